"""The quality gate: a project's thresholds, a run's baseline, and the verdict.

gate_evaluate(run=) is cheap to call repeatedly: it judges a finished run once
and keeps the verdict (force=True judges again, e.g. after a policy change).
"""
from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from analysis.parity.statuses import count_phrase
from porting_site.projects.models import Finding, ParityResult, Project, Run

from .fingerprints import new_finding_ids
from .models import GatePolicy, RunGate

POLICY_FIELDS = ("max_new_errors", "max_new_warnings", "min_parity_pass_rate", "no_parity_regression",
                 "count_accepted", "count_false_positive", "count_fixed")
# Each policy switch and the mark it lets count.
MARK_POLICY = (("count_accepted", "accepted"), ("count_false_positive", "false_positive"), ("count_fixed", "fixed"))


def gate_policy_get(*, project: Project) -> GatePolicy:
    policy, _ = GatePolicy.objects.get_or_create(project=project)
    return policy


@transaction.atomic
def gate_policy_update(*, project: Project, **values) -> GatePolicy:
    policy = gate_policy_get(project=project)
    for name in POLICY_FIELDS:
        if name in values:
            setattr(policy, name, values[name])
    policy.full_clean()
    policy.save()
    return policy


def baseline_default(*, run: Run) -> Run | None:
    """The project's latest finished-successfully run before this one."""
    return (
        Run.objects.filter(project_id=run.project_id, number__lt=run.number, status=Run.Status.DONE)
        .order_by("-number")
        .first()
    )


def run_gate_set_baseline(*, run: Run, baseline: Run | None) -> RunGate:
    """Record the baseline a run is compared with (chosen at upload)."""
    if baseline is not None and (baseline.project_id != run.project_id or baseline.pk == run.pk):
        raise ValueError("the baseline must be another run of the same project")
    gate, _ = RunGate.objects.update_or_create(run=run, defaults={"baseline": baseline})
    return gate


def _run_gate(run: Run) -> RunGate:
    gate = RunGate.objects.select_related("baseline").filter(run=run).first()
    if gate is None:
        gate, _ = RunGate.objects.get_or_create(run=run, defaults={"baseline": baseline_default(run=run)})
    return gate


def run_baseline(*, run: Run) -> Run | None:
    """The run this one is compared with (chosen at upload, else the latest done run before it)."""
    return _run_gate(run).baseline


def _check(name: str, passed: bool, message: str, value=None, threshold=None) -> dict:
    return {"name": name, "passed": passed, "message": message, "value": value, "threshold": threshold}


def gate_scope(policy: GatePolicy | dict | None) -> str:
    """One sentence saying what the finding thresholds count (run page, gate page, JUnit)."""
    get = (policy.get if isinstance(policy, dict) else lambda name, default=False: getattr(policy, name, default)) \
        if policy is not None else (lambda name, default=False: default)
    left_out = [label for field, label in (("count_accepted", "accepted"), ("count_false_positive", "false positive"),
                                           ("count_fixed", "fixed by hand")) if not get(field, False)]
    marks = f", nor those a person marked {' / '.join(left_out)}" if left_out else ""
    return ("The finding thresholds count what is left for a person: uses the converter rewrote "
            f"(status converted) are not counted{marks}.")


def uncounted_marks(policy: GatePolicy) -> list[str]:
    """The marks whose findings the gate leaves out under this policy."""
    return [mark for field, mark in MARK_POLICY if not getattr(policy, field)]


def gate_counted(findings, *, project: Project, policy: GatePolicy | None = None):
    """The findings (a queryset) the project's gate counts: not converted, and not carrying a mark
    the policy leaves out. The gate's own count and the findings list behind its link both use this."""
    skipped = uncounted_marks(policy or gate_policy_get(project=project))
    findings = findings.exclude(status="converted")
    return findings.exclude(triage__in=skipped) if skipped else findings


def _new_count(run: Run, baseline: Run | None, severity: str, limit: int | None,
               policy: GatePolicy | None = None) -> dict | None:
    """New findings of a severity that are left for a person.

    The converter's own fixes (status converted) never count: on a first upload
    every finding is new, and the gate must judge what a person still has to do.
    Marked findings count only when the policy says so (count_accepted...).
    """
    if limit is None:
        return None
    ids = new_finding_ids(run=run, baseline=baseline, severities=[severity])
    policy = policy or gate_policy_get(project=run.project)
    skipped = uncounted_marks(policy)
    new = Finding.objects.filter(run=run, pk__in=ids)
    counted = set(gate_counted(new, project=run.project, policy=policy).values_list("pk", flat=True)) if ids else set()
    left_out = list(new.exclude(pk__in=counted).values_list("status", flat=True)) if ids else []
    converted = sum(1 for status in left_out if status == "converted")
    marked = len(left_out) - converted
    ids = counted
    count = len(ids)
    against = f"run #{baseline.number}" if baseline else "no baseline run (every finding counts as new)"
    ok = count <= limit
    notes = []
    if converted:
        notes.append(f"{converted} converted automatically")
    if marked:
        notes.append(f"{marked} marked {' / '.join(s.replace('_', ' ') for s in skipped)}")
    note = f" ({'; '.join(notes)}: not counted)" if notes else ""
    return _check(
        f"new_{severity}s", ok,
        f"{count} new {severity} finding(s) left for a person versus {against}{note}; at most {limit} allowed",
        count, limit,
    )


def _parity_outcomes(run: Run) -> dict[tuple[str, str], str]:
    return {(m, n): s for m, n, s in ParityResult.objects.filter(run=run).values_list("module", "name", "status")}


def _parity_stage_error(run: Run) -> str:
    """Why the parity stage could not check anything (the box could not be built...), else ""."""
    detail = run.stages.filter(name="parity").values_list("detail", flat=True).first() or ""
    marker = "parity could not run: "
    return detail.split(marker, 1)[1] if marker in detail else ""


def _parity_required(outcomes: dict, threshold: float, stage_error: str) -> dict:
    """The pass-rate check when the project requires parity.

    An entry whose check errored is checked and not passing (it proves nothing),
    and a run where nothing was checked fails whatever the threshold: a gate
    that requires parity must not pass on the absence of evidence.
    """
    checked = [s for s in outcomes.values() if s != ParityResult.Status.SKIPPED]
    passed = sum(1 for s in checked if s == ParityResult.Status.PASS)
    errored = sum(1 for s in checked if s == ParityResult.Status.ERROR)
    # The original's own forward failing on its inputs (torch_fail) proves nothing either: counted like an error.
    torch_failed = sum(1 for s in checked if s == ParityResult.Status.TORCH_FAIL)
    if not checked:
        why = f" ({stage_error})" if stage_error else ""
        return _check("parity_pass_rate", False, f"no entry point was checked for parity{why}; "
                      f"the gate requires a pass rate of at least {threshold:.0%}", None, threshold)
    rate = passed / len(checked)
    ok = rate >= threshold
    said = ([f"{errored} of them errored"] if errored else []) + \
        ([count_phrase(ParityResult.Status.TORCH_FAIL, torch_failed)] if torch_failed else [])
    errors = f", {' and '.join(said)} (counted as failing)" if said else ""
    return _check("parity_pass_rate", ok, f"parity pass rate {passed}/{len(checked)} = {rate:.0%}{errors}; "
                  f"at least {threshold:.0%} required", rate, threshold)


def _parity_not_required(outcomes: dict, stage_error: str) -> dict:
    """Said, not judged: parity's outcome when the project sets no pass rate, so the gate's
    verdict and a JUnit file full of parity errors do not seem to disagree."""
    counts = {s: sum(1 for v in outcomes.values() if v == s) for s in ParityResult.Status.values}
    told = ", ".join(count_phrase(s, n) for s, n in counts.items() if n) or "nothing checked"
    why = f" (parity could not run: {stage_error})" if stage_error else ""
    return _check("parity_not_required", True, f"parity is not required by this gate (no minimum pass rate): "
                  f"{told}{why}")


def _checks(run: Run, baseline: Run | None, policy: GatePolicy) -> list[dict]:
    if run.status != Run.Status.DONE:
        reason = run.error or f"the run is {run.status}"
        return [_check("run_completed", False, f"the run did not complete: {reason}")]
    checks = [_check("run_completed", True, "the run completed")]
    for severity, limit in (("error", policy.max_new_errors), ("warning", policy.max_new_warnings)):
        check = _new_count(run, baseline, severity, limit, policy)
        if check:
            checks.append(check)
    outcomes = _parity_outcomes(run)
    if policy.min_parity_pass_rate is not None:
        checks.append(_parity_required(outcomes, policy.min_parity_pass_rate, _parity_stage_error(run)))
    elif outcomes or _parity_stage_error(run):
        checks.append(_parity_not_required(outcomes, _parity_stage_error(run)))
    if policy.no_parity_regression:
        if baseline is None:
            checks.append(_check("parity_regression", True, "no baseline run to compare parity with"))
        else:
            before = _parity_outcomes(baseline)
            regressed = sorted(
                f"{module}.{name}" if module else name
                for (module, name), status in before.items()
                if status == ParityResult.Status.PASS and outcomes.get((module, name), "missing") != ParityResult.Status.PASS
            )
            message = (
                f"parity regressed versus run #{baseline.number}: {', '.join(regressed)}"
                if regressed else f"no entry point regressed versus run #{baseline.number}"
            )
            checks.append(_check("parity_regression", not regressed, message, len(regressed), 0))
    return checks


def gate_evaluate(*, run: Run, force: bool = False) -> RunGate:
    """The run's gate verdict; judged once the run finished, pending before."""
    gate = _run_gate(run)
    if not run.is_finished:
        if gate.status != RunGate.Status.PENDING:
            gate.status, gate.checks, gate.evaluated_at = RunGate.Status.PENDING, [], None
            gate.save(update_fields=["status", "checks", "evaluated_at"])
        return gate
    if gate.evaluated_at is not None and not force:
        return gate
    policy = gate_policy_get(project=run.project)
    checks = _checks(run, gate.baseline, policy)
    gate.checks = checks
    gate.status = RunGate.Status.PASSED if all(c["passed"] for c in checks) else RunGate.Status.FAILED
    gate.policy = {name: getattr(policy, name) for name in POLICY_FIELDS}
    gate.evaluated_at = timezone.now()
    gate.save(update_fields=["checks", "status", "policy", "evaluated_at"])
    return gate


def gate_statuses(*, runs) -> dict[int, str]:
    """{run id: gate status} for tables (project list, runs table, history strip).

    Finished runs never judged yet (a run that failed before finalize) are judged
    now, so a failed run shows "failed" rather than nothing; unfinished runs are
    pending.
    """
    runs = list(runs)
    statuses = dict(RunGate.objects.filter(run__in=runs, evaluated_at__isnull=False)
                    .values_list("run_id", "status"))
    for run in runs:
        if run.pk in statuses:
            continue
        statuses[run.pk] = gate_evaluate(run=run).status if run.is_finished else RunGate.Status.PENDING
    return statuses
