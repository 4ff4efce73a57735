"""The quality gate's checks on real rows, and its pages."""
from __future__ import annotations

import pytest
from django.template import Context, Template
from django.urls import reverse

from porting_site.gates.models import RunGate
from porting_site.gates.services import gate_evaluate, gate_policy_update, run_gate_set_baseline
from porting_site.projects.models import Run
from tests import factories

from .conftest import FINDINGS_V1, NET_V1, PARITY_PASS, make_run

pytestmark = pytest.mark.django_db


def checks_of(gate: RunGate) -> dict[str, bool]:
    return {c["name"]: c["passed"] for c in gate.checks}


def test_same_code_again_passes_versus_its_baseline(world):
    run2 = make_run(world.project, world.admin, {"pkg/net.py": (NET_V1, [dict(f) for f in FINDINGS_V1])},
                    parity=[dict(p) for p in PARITY_PASS])
    gate = gate_evaluate(run=run2)
    assert gate.status == RunGate.Status.PASSED and gate.baseline == world.run
    # Parity is not required (no pass rate): said as a passing check, so JUnit's parity cases and the verdict agree.
    assert checks_of(gate) == {"run_completed": True, "new_errors": True, "parity_not_required": True,
                               "parity_regression": True}
    assert gate.policy["max_new_errors"] == 0


def test_parity_regression_and_pass_rate(world):
    gate_policy_update(project=world.project, min_parity_pass_rate=0.75, max_new_errors=None)
    regressed = [dict(PARITY_PASS[0], status="fail", reason="max_abs 0.3"), dict(PARITY_PASS[1])]
    run2 = make_run(world.project, world.admin, {}, parity=regressed)
    gate = gate_evaluate(run=run2)
    assert gate.status == RunGate.Status.FAILED
    assert checks_of(gate) == {"run_completed": True, "parity_pass_rate": False, "parity_regression": False}
    assert "parity pass rate 1/2 = 50%; at least 75% required" in gate.reasons
    assert "parity regressed versus run #1: pkg.net.Net" in gate.reasons
    # Skipped entry points neither count for nor against the rate.
    run3 = make_run(world.project, world.admin, {}, parity=[dict(p) for p in PARITY_PASS] + [
        dict(name="Big", module="pkg.big", status="skipped", reason="needs a GPU")])
    assert gate_evaluate(run=run3).status == RunGate.Status.PASSED


def test_explicit_baseline_none_makes_every_warning_new(world):
    gate_policy_update(project=world.project, max_new_errors=5, max_new_warnings=0)
    run2 = make_run(world.project, world.admin, {"pkg/net.py": (NET_V1, [dict(f) for f in FINDINGS_V1])})
    run_gate_set_baseline(run=run2, baseline=None)
    gate = gate_evaluate(run=run2)
    assert gate.status == RunGate.Status.FAILED
    assert gate.reasons == ["1 new warning finding(s) left for a person versus no baseline run (every finding counts as new); "
                            "at most 0 allowed"]


def test_a_failed_run_fails_the_gate_and_a_verdict_is_kept_until_forced(world):
    failed = make_run(world.project, world.admin, {}, status=Run.Status.FAILED)
    Run.objects.filter(pk=failed.pk).update(error="unpack failed: not an archive")
    failed.refresh_from_db()
    gate = gate_evaluate(run=failed)
    assert gate.status == RunGate.Status.FAILED and "unpack failed" in gate.reasons[0]
    # A finished run is judged once; a policy change applies when asked to judge again.
    assert gate_evaluate(run=world.run).status == RunGate.Status.FAILED
    gate_policy_update(project=world.project, max_new_errors=10)
    assert gate_evaluate(run=world.run).status == RunGate.Status.FAILED
    assert gate_evaluate(run=world.run).status == RunGate.Status.FAILED
    assert gate_evaluate(run=world.run, force=True).status == RunGate.Status.PASSED


def test_a_queued_run_is_pending(world):
    run = make_run(world.project, world.admin, {}, status=Run.Status.QUEUED)
    Run.objects.filter(pk=run.pk).update(finished_at=None)
    run.refresh_from_db()
    assert gate_evaluate(run=run).status == RunGate.Status.PENDING


def test_gate_panel_and_thresholds_page(world, client):
    html = Template("{% load gates %}{% gate_panel run %}").render(Context({"run": world.run}))
    assert "Quality gate: Failed" in html and "1 new error finding(s)" in html

    url = reverse("api:gate-page", args=[world.project.pk])
    client.login(username="bob", password=factories.PASSWORD)
    assert client.get(url).status_code == 200
    assert client.post(url, {"max_new_errors": "4"}).status_code == 403
    client.login(username="alice", password=factories.PASSWORD)
    response = client.post(url, {"max_new_errors": "4", "min_parity_pass_rate": "0.9",
                                 "no_parity_regression": "on"})
    assert response.status_code == 302
    world.project.gate_policy.refresh_from_db()
    assert (world.project.gate_policy.max_new_errors, world.project.gate_policy.min_parity_pass_rate) == (4, 0.9)
    client.login(username="mallory", password=factories.PASSWORD)
    assert client.get(url).status_code == 404
