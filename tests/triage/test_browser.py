"""In Chromium: mark a finding accepted from the file page and see the project's
progress change; screenshots of the lifecycle pages go to test-artifacts/."""
from __future__ import annotations

import pytest
from django.urls import reverse

from porting_site.projects import progress
from porting_site.projects.models import Finding
from tests import factories
from tests.browser.conftest import NARROW, browser  # noqa: F401 - the fixture
from tests.triage import repo

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def two_runs(run_dirs):
    team, alice = factories.team_with_member("Vision", "alice")
    project = factories.project(team, "Detector")
    first = repo.analysed_run(project, alice, repo.files_v1())
    dp = Finding.objects.get(run=first, rule_id="MS-DEVICE-DATAPARALLEL")
    from porting_site.triage.services import finding_triage

    finding_triage(finding=dp, user=alice, action="accept", reason="single device for now")
    second = repo.analysed_run(project, alice, repo.files_v2())  # the DataParallel line is gone: mark closed
    return first, second


def test_mark_a_finding_accepted_and_see_project_progress_change(browser, two_runs, live_worker):  # noqa: F811
    first, second = two_runs
    project = second.project
    before = progress.run_progress(run=second)
    browser.login("alice", factories.PASSWORD)
    project_url = reverse("projects:detail", args=[project.team.slug, project.slug])
    browser.get(project_url)
    browser.wait_for("#trend-plot svg.main-svg", timeout=30)
    assert browser.find('#project-progress [data-figure="done"]').text == f"{before['percent']}%"
    assert browser.find('#project-progress [data-figure="accepted"]').text == "0 accepted"
    browser.shot("triage-01-project-before")

    # A use the converter left for a person (torch.as_tensor itself is converted now).
    target = Finding.objects.get(run=second, rule_id="MS-DEVICE-ENV")
    assert target.status == "manual"
    # with every use listed: once accepted, the finding is done and the default view hides it
    browser.get(reverse("projects:file", args=[second.pk, target.file_id]) + f"?show=all#F{target.pk}")
    browser.find(f'#F{target.pk} a.triage-open').click()
    browser.wait_until(lambda: browser.find("#triage-dialog").get_attribute("open") is not None)
    from selenium.webdriver.support.ui import Select

    Select(browser.find("#t-action")).select_by_value("accept")
    browser.find("#t-reason").send_keys("single device: the CPU/GPU choice moves to set_context by hand")
    browser.shot("triage-02-file-dialog")
    browser.find("#triage-form button[type=submit]").click()
    browser.wait_for(f'#F{target.pk} [data-mark="accepted"]')
    assert "accepted" in browser.find(".messages").text.lower()
    browser.shot("triage-03-file-marked")

    after = progress.run_progress(run=second)
    assert after["done"] == before["done"] + 1 and after["percent"] > before["percent"]
    browser.get(project_url)
    assert browser.find('#project-progress [data-figure="done"]').text == f"{after['percent']}%"
    assert browser.find('#project-progress [data-figure="accepted"]').text == "1 accepted"
    browser.shot("triage-04-project-after")

    # The figure links to the uses behind it: the accepted one is there.
    browser.find('#project-progress [data-figure="accepted"]').click()
    browser.wait_until(lambda: "triage=accepted" in browser.driver.current_url)
    rows = browser.find_all("table.findings tbody tr")
    assert len(rows) == 1 and "MS-DEVICE-ENV" in rows[0].text
    browser.shot("triage-05-findings-accepted")

    browser.get(reverse("projects:finding", args=[second.pk, target.pk]))
    assert "alice" in browser.find("#audit").text and "single device: the CPU/GPU" in browser.find("#audit").text
    browser.shot("triage-06-finding-audit")

    closed = Finding.objects.get(run=first, rule_id="MS-DEVICE-DATAPARALLEL")
    browser.get(reverse("projects:finding", args=[first.pk, closed.pk]))
    assert "closed" in browser.find("main").text
    browser.shot("triage-07-closed-mark")

    browser.get(reverse("projects:findings", args=[second.pk]) + "?rule=MS-DEVICE-*&path=scripts/")
    browser.shot("triage-08-bulk-list")
    browser.shot("triage-08-bulk-list-narrow", NARROW)
    browser.get(reverse("projects:run", args=[second.pk]))
    browser.shot("triage-09-run")

    # Knowledge base: run 1 recorded as analysed by an older release; the compare page
    # queues a re-analysis of its snapshot (the worker does it, the page reloads when it is
    # done) and splits the changes into knowledge base and code.
    from porting_site.projects.models import Run

    Run.objects.filter(pk=first.pk).update(kb_version="2025.06.0")
    browser.get(reverse("projects:compare", args=[project.team.slug, project.slug]) + "?a=1&b=2")
    browser.find("#kb-split form button[type=submit]").click()
    browser.wait_for("#kb-pending")
    browser.wait_for("#kb-new", timeout=90)
    assert (browser.find("#kb-new").text, browser.find("#kb-gone").text) == ("0", "0")
    assert browser.find("#code-gone").text == "1"  # the DataParallel line the team deleted
    browser.shot("triage-10-compare-kb-split")
    browser.get(reverse("projects:run", args=[first.pk]) + "#kb")
    assert "0 added" in browser.find("#kb-result").text
    browser.shot("triage-11-run-kb")
