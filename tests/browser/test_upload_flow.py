"""End to end in Chromium with a real Celery worker: log in, upload the sample
repository through the form, watch the run's progress bars reach done, open a
file page and the diff, open a parity plot; another team's user is denied."""
from __future__ import annotations

import pytest
from django.urls import reverse

from porting_site.projects.models import Run, SourceFile
from tests import factories
from tests.conftest import SAMPLE_REPO

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_upload_progress_file_diff_parity_and_denial(browser, live_worker, settings, tmp_path):
    team, _ = factories.team_with_member("Vision", "alice")
    project = factories.project(team, "Sample")
    factories.team_with_member("Audio", "mallory")
    archive = tmp_path / "pytorch_sample.tar.gz"
    archive.write_bytes(factories.tar_gz_of(SAMPLE_REPO, "pytorch_sample"))

    browser.login("alice", factories.PASSWORD)
    browser.get(reverse("projects:detail", args=[team.slug, project.slug]))
    browser.find("#id_archive").send_keys(str(archive))
    browser.find("#upload-form button[type=submit]").click()

    # The XHR upload lands on the run page; the bars follow the worker until done.
    browser.wait_until(lambda: "/runs/" in browser.driver.current_url, timeout=60)
    run = Run.objects.get(project=project)
    assert browser.driver.current_url.endswith(reverse("projects:run", args=[run.pk]))
    browser.shot("20-run-in-progress")
    browser.wait_until(lambda: browser.find("#run-status").text in ("Done", "Failed"), timeout=420, poll=1)
    run.refresh_from_db()
    assert run.status == Run.Status.DONE, run.error
    bars = browser.wait_until(lambda: browser.find_all("#progress .bar"), timeout=10)
    assert [b.get_attribute("aria-valuenow") for b in bars] == ["100"] * 5
    assert browser.find_all(".stats .stat"), "the summary renders once the run is done"
    browser.shot("21-run-done")

    # File page: the Dropout use is reported on the line that builds it.
    lenet = SourceFile.objects.get(run=run, path="models/lenet.py")  # the one top-level folder is stripped
    text = (SAMPLE_REPO / "models" / "lenet.py").read_text().splitlines()
    dropout_line = next(n for n, line in enumerate(text, start=1) if "nn.Dropout(" in line)
    # (converted uses are listed with ?show=all; by default the page shows what is left for a person)
    browser.get(reverse("projects:file", args=[run.pk, lenet.pk]) + "?show=all")
    line = browser.find(f"#L{dropout_line}")
    assert "nn.Dropout" in line.find_element("css selector", "pre").text
    # a converted use sits in its line's closed "done here" box: read the text, shown or not
    assert any("torch.nn.Dropout" in f.get_attribute("textContent") for f in line.find_elements("css selector", ".finding"))
    browser.shot("22-file-real")

    browser.find("#diff-tab").click()
    browser.wait_for("table.sbs")
    assert "nn.Cell" in browser.find("table.sbs").text
    browser.shot("23-diff-real")

    # Parity page of the first entry point: plotly drew its figures.
    browser.get(reverse("projects:run", args=[run.pk]))
    browser.find("a[href*='/parity/']").click()
    browser.wait_until(lambda: browser.find_all(".plot svg.main-svg"), timeout=30)
    browser.shot("24-parity-real")

    browser.logout()
    browser.login("mallory", factories.PASSWORD)
    for url in (reverse("projects:run", args=[run.pk]), reverse("projects:file", args=[run.pk, lenet.pk]),
                reverse("projects:detail", args=[team.slug, project.slug])):
        browser.get(url)
        assert "Not Found" in browser.driver.page_source, url
    browser.shot("25-denied")
