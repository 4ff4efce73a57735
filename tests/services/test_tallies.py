"""Per-run tallies: counted once when a run is finalized (or on first use for
older runs), they give the compare page the same answer as grouping the
findings live, while people's marks are still counted live."""
from __future__ import annotations

from collections import Counter

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from porting_site.projects import selectors
from porting_site.projects.models import Finding, Run
from porting_site.projects.services import run_finalize
from porting_site.projects.tallies import grouped_counts, run_tallies
from porting_site.triage.services import finding_triage
from tests import factories
from tests.triage import repo

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_runs(run_dirs):
    team, alice = factories.team_with_member("Vision", "alice")
    project = factories.project(team, "Detector")
    older = repo.analysed_run(project, alice, repo.files_v1(), done=False)
    newer = repo.analysed_run(project, alice, repo.files_v2(), done=False)
    for run in (older, newer):
        run_finalize(run_id=run.pk)
        run.refresh_from_db()
    return older, newer


def _live_grouped(run: Run) -> dict[tuple, int]:
    """The findings grouped straight from their rows, as the compare page used to do."""
    return dict(Counter(Finding.objects.filter(run=run).values_list("file__path", "rule_id", "torch_api", "severity")))


def test_finalize_stores_tallies_that_match_the_findings(two_runs):
    older, newer = two_runs
    for run in two_runs:
        assert run.status == Run.Status.DONE and run.tallies["version"]
        assert grouped_counts(run.tallies) == _live_grouped(run)
        assert run.tallies["found"] == Finding.objects.filter(run=run).count()
        assert run.tallies["by_status"] == dict(Counter(Finding.objects.filter(run=run).values_list("status", flat=True)))
        assert run.tallies["by_rule"]["MS-DEVICE-ENV"] == Finding.objects.filter(run=run, rule_id="MS-DEVICE-ENV").count()
    # The code change between the runs: the DataParallel line is gone.
    cmp = selectors.runs_compare(older=older, newer=newer)
    live_new, live_fixed = selectors.findings_delta(_live_grouped(older), _live_grouped(newer))
    assert (cmp["new"], cmp["fixed"]) == (live_new, live_fixed)
    assert {r["rule_id"] for r in cmp["fixed"]} == {"MS-DEVICE-DATAPARALLEL"}


def test_compare_page_reads_the_tallies_instead_of_grouping_findings(client, two_runs):
    older, newer = two_runs
    client.login(username="alice", password=factories.PASSWORD)
    url = reverse("projects:compare", args=[older.project.team.slug, older.project.slug])
    with CaptureQueriesContext(connection) as queries:
        page = client.get(url, {"a": older.number, "b": newer.number})
    assert page.status_code == 200 and "MS-DEVICE-DATAPARALLEL" in page.content.decode()
    grouping = [q["sql"] for q in queries.captured_queries
                if 'FROM "projects_finding"' in q["sql"] and '"projects_finding"."file_id"' in q["sql"]
                and "GROUP BY" in q["sql"]]
    assert grouping == []


def test_marks_made_after_the_run_still_count(two_runs):
    older, newer = two_runs
    before = selectors.runs_compare(older=older, newer=newer)["after"]
    open_finding = Finding.objects.filter(run=newer, status="manual", triage="").first()
    finding_triage(finding=open_finding, user=newer.created_by, action="false_positive", reason="not used on CPU")
    newer.refresh_from_db()
    after = selectors.runs_compare(older=older, newer=newer)["after"]
    assert (after["found"], after["done"], after["left"]) == (before["found"], before["done"] + 1, before["left"] - 1)


def test_runs_from_before_tallies_get_them_on_first_use(two_runs):
    older, newer = two_runs
    Run.objects.filter(pk=older.pk).update(tallies={})
    older.refresh_from_db()
    counted = run_tallies(run=older)
    assert grouped_counts(counted) == _live_grouped(older)
    assert Run.objects.get(pk=older.pk).tallies == counted  # stored for next time
    # A run still in progress is counted but not stored: its findings may change.
    Run.objects.filter(pk=newer.pk).update(tallies={}, status=Run.Status.RUNNING)
    newer.refresh_from_db()
    assert grouped_counts(run_tallies(run=newer)) == _live_grouped(newer)
    assert Run.objects.get(pk=newer.pk).tallies == {}
