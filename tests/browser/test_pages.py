"""Every dashboard page in a real browser, on a finished run with realistic
results (no worker needed): findings at their lines, the side-by-side diff,
plotly figures drawn, keyboard use, another team denied. Screenshots of each
page, at laptop and narrow widths, go to test-artifacts/."""
from __future__ import annotations

import pytest
from django.urls import reverse

from tests import factories
from tests.browser.conftest import NARROW
from tests.site import data

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def two_runs(settings, tmp_path):
    data.use_tmp_storage(settings, tmp_path)
    team, alice = factories.team_with_member("Vision", "alice")
    project = factories.project(team, "Detector")
    first = data.finished_run(project, alice, failing=True)
    second = data.finished_run(project, alice, failing=False, findings=data.FINDINGS[:3])
    return first, second


def _svg_plots(browser, container: str):
    # Plots draw when they come near the viewport (plots.js): scroll to it as a reader would.
    browser.driver.execute_script("document.querySelector(arguments[0]).scrollIntoView()", container)
    browser.wait_until(lambda: browser.find_all(f"{container} svg.main-svg"), timeout=30)
    return browser.find_all(f"{container} svg.main-svg")


def test_pages_render_in_chromium(browser, two_runs):
    first, second = two_runs
    project = first.project
    lenet = first.files.get()
    parity = first.parity_results.get()
    browser.login("alice", factories.PASSWORD)

    browser.get(reverse("projects:list"))
    assert "Detector" in browser.find("main table").text
    assert browser.find_all("svg.spark polyline"), "the projects page shows a small trend per project"
    browser.shot("01-projects")
    browser.shot("01-projects-narrow", NARROW)

    browser.get(reverse("projects:detail", args=[project.team.slug, project.slug]))
    assert _svg_plots(browser, "#trend-plot")
    browser.shot("02-project")
    browser.shot("02-project-narrow", NARROW)

    browser.get(reverse("projects:run", args=[first.pk]))
    assert browser.find("#run-status").text == "Done"
    bars = browser.find_all("#progress .bar")
    assert len(bars) == 5 and all(b.get_attribute("aria-valuenow") == "100" for b in bars)
    assert "LeNet" in browser.find("main").text
    browser.shot("03-run")
    browser.shot("03-run-narrow", NARROW)

    browser.get(reverse("projects:files", args=[first.pk]) + "?order=-errors")
    assert data.LENET in browser.find("table.files tbody").text
    browser.shot("04-files")

    # The file page: the BatchNorm finding sits on line 12, the line that builds bn1.
    browser.get(reverse("projects:file", args=[first.pk, lenet.pk]))
    line = browser.find("#L12")
    assert "nn.BatchNorm2d(6, momentum=0.1)" in line.find_element("css selector", "pre").text
    finding = line.find_element("css selector", ".finding.error")
    assert "MS-BN-MOMENTUM" in finding.text and "mindspore.nn.BatchNorm2d" in finding.text
    browser.shot("05-file")
    browser.shot("05-file-narrow", NARROW)

    # Filter by rule: only that rule's findings stay.
    browser.get(reverse("projects:file", args=[first.pk, lenet.pk]) + "?rule=MS-API-DIFF")
    rules = {f.get_attribute("data-rule") for f in browser.find_all(".finding")}
    assert rules == {"MS-API-DIFF"}

    # Toggle to the side-by-side diff: the unconverted BatchNorm line is highlighted on both sides.
    browser.get(reverse("projects:file", args=[first.pk, lenet.pk]))
    browser.find("#diff-tab").click()
    browser.wait_for("table.sbs")
    original = browser.find("#O12").find_element("xpath", "following-sibling::td[1]")
    assert "todo" in original.get_attribute("class") and "BatchNorm2d" in original.text
    assert any("MIGRATE" in td.text for td in browser.find_all("table.sbs td.add.todo"))
    assert "class LeNet(nn.Cell)" in browser.find("table.sbs").text
    browser.shot("06-diff")
    browser.shot("06-diff-narrow", NARROW)

    # Parity: figures drawn by plotly (SVG), the first diverging layer linked to its line.
    browser.get(reverse("projects:parity", args=[first.pk, parity.pk]))
    for plot in ("#plot-layers", "#plot-layers-train", "#plot-gradients", "#plot-loss", "#plot-scatter",
                 "#plot-hist"):
        assert _svg_plots(browser, plot), plot
    bars = browser.find_all("#plot-layers-train .bars .point")
    assert len(bars) == len(parity.layers)
    # The momentum error shows in train mode only; eval blames nothing.
    assert browser.find("#plot-layers-train").text.count("first diverging") == 1
    assert "first diverging" not in browser.find("#plot-layers").text
    link = browser.find("#first-layer-source")
    assert link.get_attribute("href").endswith(f"/files/{lenet.pk}/#L12")
    browser.shot("07-parity")
    browser.shot("07-parity-narrow", NARROW)
    link.click()
    browser.wait_until(lambda: browser.driver.current_url.endswith("#L12"))

    browser.get(reverse("projects:rules"))
    browser.shot("08-rules")

    browser.get(reverse("projects:compare", args=[project.team.slug, project.slug]))
    text = browser.find("main").text
    assert "Fixed findings" in text and "MS-DROPOUT-P" in text
    browser.shot("09-compare")


def test_keyboard_reaches_the_content_first(browser, two_runs):
    from selenium.webdriver.common.keys import Keys

    browser.login("alice", factories.PASSWORD)
    browser.get(reverse("projects:list"))
    browser.find("body").send_keys(Keys.TAB)
    focused = browser.driver.switch_to.active_element
    assert focused.text == "Skip to content"
    focused.send_keys(Keys.ENTER)
    assert browser.driver.switch_to.active_element.get_attribute("id") == "main"


def test_another_team_is_denied_and_bad_archives_are_explained(browser, two_runs, settings):
    first, _ = two_runs
    factories.team_with_member("Audio", "mallory")
    browser.login("mallory", factories.PASSWORD)
    browser.get(reverse("projects:run", args=[first.pk]))
    assert "Not Found" in browser.driver.page_source or "404" in browser.driver.title
    browser.get(reverse("projects:list"))
    assert "Detector" not in browser.find("main").text
    browser.shot("10-denied-projects")
    browser.logout()

    # A member uploading a file that is not an archive gets the reason next to the field.
    browser.login("alice", factories.PASSWORD)
    project = first.project
    browser.get(reverse("projects:detail", args=[project.team.slug, project.slug]))
    bad = settings.MEDIA_ROOT.parent / "notes.zip"
    bad.write_bytes(b"just some text, not a zip")
    browser.find("#id_archive").send_keys(str(bad))
    browser.find("#upload-form button[type=submit]").click()
    error = browser.wait_for("#upload-error:not([hidden])")
    browser.wait_until(lambda: "not a zip archive" in error.text)
    browser.shot("11-upload-refused")
