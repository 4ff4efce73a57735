"""The same code uploaded with a top-level folder (a zipped folder from the browser)
and without one (the CI client): files match by path, so the gate sees nothing new,
marks carry over and the compare page reports no change (issue #19)."""
from __future__ import annotations

import pytest
from django.db.models import F, Value
from django.db.models.functions import Concat

from porting_site.gates.fingerprints import new_finding_ids
from porting_site.gates.paths import path_alignment
from porting_site.gates.services import gate_evaluate, gate_policy_update, run_gate_set_baseline
from porting_site.projects.models import Finding, SourceFile
from porting_site.projects.selectors import runs_compare
from porting_site.triage.services import findings_bulk_triage
from tests import factories
from tests.triage import repo

pytestmark = pytest.mark.django_db


def test_alignment_drops_a_top_level_folder_only_when_it_matches_more():
    old_key, new_key = path_alignment({"tut/a/x.py", "tut/b.py"}, {"a/x.py", "b.py", "c.py"})
    assert (old_key("tut/a/x.py"), new_key("a/x.py")) == ("a/x.py", "a/x.py")
    same_old, same_new = path_alignment({"pkg/a.py", "pkg/b.py"}, {"pkg/a.py"})
    assert (same_old("pkg/a.py"), same_new("pkg/a.py")) == ("pkg/a.py", "pkg/a.py")
    both_old, both_new = path_alignment({"v1/a.py"}, {"v2/a.py"})
    assert both_old("v1/a.py") == both_new("v2/a.py") == "a.py"


def test_browser_then_ci_upload_is_not_all_new_and_keeps_marks(run_dirs):
    team, alice = factories.team_with_member("Vision", "alice")
    project = factories.project(team, "Detector")
    browser_run = repo.analysed_run(project, alice, repo.files_v1())
    # As stored from a zipped folder: every path under the folder's name.
    SourceFile.objects.filter(run=browser_run).update(path=Concat(Value("detector-main/"), F("path")))
    left = Finding.objects.filter(run=browser_run).exclude(status="converted")
    findings_bulk_triage(findings=left, user=alice, action="fixed")
    marked = left.count()

    ci_run = repo.analysed_run(project, alice, repo.files_v1())  # the CI client: no folder
    assert not SourceFile.objects.filter(run=ci_run, path__startswith="detector-main/").exists()
    assert new_finding_ids(run=ci_run, baseline=browser_run) == set()
    carried = Finding.objects.filter(run=ci_run, triage="fixed").count()
    assert carried == marked > 0
    gate_policy_update(project=project, max_new_errors=0)
    run_gate_set_baseline(run=ci_run, baseline=browser_run)
    assert gate_evaluate(run=ci_run, force=True).status == "passed"
    comparison = runs_compare(older=browser_run, newer=ci_run)
    assert (comparison["new_total"], comparison["fixed_total"]) == (0, 0)
