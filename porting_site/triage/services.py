"""Writes: marking findings (one or many), and carrying marks into a new run.

Only members of the project's team change marks; every change writes a
MarkEvent. A mark set on a finding also applies to the same finding in the
project's later runs (linked by fingerprint), and the quality gate of the
affected finished runs is judged again.
"""
from __future__ import annotations

from collections import defaultdict

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from porting_site.accounts.models import Membership
from porting_site.projects.models import Finding, Project, Run

from porting_site.gates.paths import path_alignment

from .models import Mark, MarkEvent, State

# What a person can do to a finding; the state each action sets (None: state unchanged).
ACTIONS = {
    "accept": State.ACCEPTED,
    "false_positive": State.FALSE_POSITIVE,
    "fixed": State.FIXED,
    "reopen": State.OPEN,
    "assign": None,
}
REASON_REQUIRED = {State.ACCEPTED, State.FALSE_POSITIVE}
_UNSET = object()


class TriageError(ValueError):
    """The mark cannot be set as asked; the message says why (shown to the user)."""


def is_member(*, user, project: Project) -> bool:
    return bool(user and user.is_authenticated) and Membership.objects.filter(
        team_id=project.team_id, user=user).exists()


def _username(user) -> str:
    return user.get_username() if user else ""


def _resolve_assignee(project: Project, assignee):
    """A user (or username) of the project's team; None unassigns."""
    if assignee in (None, ""):
        return None
    if isinstance(assignee, str):
        assignee = get_user_model().objects.filter(username=assignee).first()
    if assignee is None or not Membership.objects.filter(team_id=project.team_id, user=assignee).exists():
        raise TriageError("findings can be assigned only to a member of the project's team")
    return assignee


def _validate(action: str, reason: str) -> State | None:
    if action not in ACTIONS:
        raise TriageError(f"unknown action {action!r}; use one of {', '.join(ACTIONS)}")
    state = ACTIONS[action]
    if state in REASON_REQUIRED and not reason.strip():
        raise TriageError(f"marking a finding {State(state).label.lower()} needs a reason")
    return state


def _wants_mark(state, assignee) -> bool:
    """Whether an action on an unmarked finding creates a mark (re-open or unassign do not)."""
    return state not in (None, State.OPEN) or assignee not in (_UNSET, None)


def _apply_many(run: Run, findings: list[Finding], *, user, state, reason: str, assignee,
                affected_runs: set[int]) -> dict:
    """Set the marks of some findings of one run, in a fixed number of queries.

    The marks then also apply to the same findings in the project's later runs:
    those already linked, and those with the same file and fingerprint not linked yet.
    """
    reason = reason.strip()
    now = timezone.now()
    marks = {m.pk: m for m in Mark.objects.filter(pk__in=[f.mark_id for f in findings if f.mark_id])
             .select_related("assignee")}
    new = [f for f in findings if f.mark_id is None and _wants_mark(state, assignee)]
    created = Mark.objects.bulk_create([
        Mark(project_id=run.project_id, path=f.file.path, fingerprint=f.fingerprint or f"finding:{f.pk}",
             rule_id=f.rule_id, torch_api=f.torch_api, line=f.line, first_run=run, last_run=run, created_by=user)
        for f in new])
    for finding, mark in zip(new, created):
        finding.mark_id = mark.pk
        marks[mark.pk] = mark
    counts = {"changed": 0, "unchanged": 0}
    events: list[MarkEvent] = []
    dirty: dict[int, Mark] = {}
    for finding in findings:
        mark = marks.get(finding.mark_id)
        if mark is None:
            counts["unchanged"] += 1
            continue
        old_state, old_assignee = mark.state, mark.assignee
        before = len(events)
        if state is not None and state != old_state:
            mark.state, mark.reason = state, reason
            events.append(MarkEvent(mark=mark, finding=finding, run=run, user=user, action=MarkEvent.Action.SET,
                                    old_state=old_state, new_state=state, reason=reason,
                                    old_assignee=_username(old_assignee), new_assignee=_username(old_assignee)))
        if assignee is not _UNSET and assignee != old_assignee:
            mark.assignee = assignee
            events.append(MarkEvent(mark=mark, finding=finding, run=run, user=user, action=MarkEvent.Action.ASSIGN,
                                    old_state=mark.state, new_state=mark.state, reason=reason,
                                    old_assignee=_username(old_assignee), new_assignee=_username(assignee)))
        if len(events) > before:
            mark.updated_at = now
            dirty[mark.pk] = mark
            counts["changed"] += 1
        else:
            counts["unchanged"] += 1
    if not dirty:
        return counts
    Mark.objects.bulk_update(list(dirty.values()), ["state", "reason", "assignee", "updated_at"], batch_size=500)
    MarkEvent.objects.bulk_create(events, batch_size=500)
    linked = [Finding(pk=f.pk, mark_id=f.mark_id, triage=marks[f.mark_id].state) for f in findings
              if f.mark_id in dirty]
    # Later runs: link the same code not linked yet (same file, same fingerprint).
    later = Finding.objects.filter(run__project_id=run.project_id, run__number__gt=run.number)
    by_key = {(f.file.path, marks[f.mark_id].fingerprint): f.mark_id for f in findings
              if f.mark_id in dirty and not marks[f.mark_id].fingerprint.startswith("finding:")}
    if by_key:
        rows = later.filter(mark__isnull=True, fingerprint__in={fp for _, fp in by_key}).values_list(
            "id", "file__path", "fingerprint")
        for fid, path, fp in rows:
            mark_id = by_key.get((path, fp))
            if mark_id is not None:
                linked.append(Finding(pk=fid, mark_id=mark_id, triage=marks[mark_id].state))
    Finding.objects.bulk_update(linked, ["mark", "triage"], batch_size=500)
    for value in {m.state for m in dirty.values()}:
        later.filter(mark__in=[pk for pk, m in dirty.items() if m.state == value]).exclude(triage=value).update(
            triage=value)
    affected_runs.add(run.pk)
    affected_runs.update(later.filter(mark__in=list(dirty)).values_list("run_id", flat=True).distinct())
    return counts


def _rejudge(run_ids: set[int]) -> None:
    from porting_site.gates.services import gate_evaluate

    for run in Run.objects.filter(pk__in=run_ids, gate__evaluated_at__isnull=False).select_related("project"):
        gate_evaluate(run=run, force=True)


UNRESOLVED_ACCEPT = ("an unresolved use cannot be accepted: the analyzer could not tell what it is; "
                     "mark it a false positive or fixed by hand instead")


@transaction.atomic
def finding_triage(*, finding: Finding, user, action: str, reason: str = "", assignee=_UNSET) -> Mark | None:
    """Mark one finding: accept / false_positive / fixed / reopen, or assign (assignee)."""
    project = finding.run.project
    if not is_member(user=user, project=project):
        raise PermissionDenied("only members of the project's team change marks")
    state = _validate(action, reason)
    if action == "assign" and assignee is _UNSET:
        raise TriageError("say whom to assign the finding to")
    if state == State.ACCEPTED and finding.status == "unresolved":
        raise TriageError(UNRESOLVED_ACCEPT)
    who = _resolve_assignee(project, assignee) if assignee is not _UNSET else _UNSET
    affected: set[int] = set()
    _apply_many(finding.run, [finding], user=user, state=state, reason=reason, assignee=who, affected_runs=affected)
    _rejudge(affected)
    finding.refresh_from_db(fields=["mark", "triage"])
    return finding.mark


@transaction.atomic
def findings_bulk_triage(*, findings: QuerySet[Finding], user, action: str, reason: str = "",
                         assignee=_UNSET) -> dict:
    """The same action on every finding of a (filtered) queryset of one project.

    Unresolved uses are skipped by `accept` (they cannot be accepted) and
    counted in "skipped"; returns {"changed", "skipped", "unchanged"}.
    """
    findings = findings.select_related("file", "run", "run__project")
    first = findings.first()
    if first is None:
        return {"changed": 0, "skipped": 0, "unchanged": 0}
    project = first.run.project
    if findings.exclude(run__project=project).exists():
        raise TriageError("a bulk action applies to one project's findings")
    if not is_member(user=user, project=project):
        raise PermissionDenied("only members of the project's team change marks")
    state = _validate(action, reason)
    if action == "assign" and assignee is _UNSET:
        raise TriageError("say whom to assign the findings to")
    who = _resolve_assignee(project, assignee) if assignee is not _UNSET else _UNSET
    counts = {"changed": 0, "skipped": 0, "unchanged": 0}
    affected: set[int] = set()
    by_run: dict[int, list[Finding]] = defaultdict(list)
    for finding in findings.order_by("run__number", "file__path", "line", "column", "id"):
        if state == State.ACCEPTED and finding.status == "unresolved":
            counts["skipped"] += 1
            continue
        by_run[finding.run.number].append(finding)
    for number in sorted(by_run):
        group = by_run[number]
        result = _apply_many(group[0].run, group, user=user, state=state, reason=reason, assignee=who,
                             affected_runs=affected)
        for key, n in result.items():
            counts[key] += n
    _rejudge(affected)
    return counts



# --- carrying marks into a new run -------------------------------------------------------


@transaction.atomic
def marks_carry_over(*, run: Run) -> dict:
    """Link the project's marks to this run's findings by fingerprint; close the others.

    A mark is matched by (file path, fingerprint), else by fingerprint alone when
    exactly one finding of the run has it (the file was moved or renamed).
    Marks whose code is gone are closed, keeping their state and trail; a closed
    mark whose finding comes back is re-opened. Safe to call again for a run.
    """
    findings = list(Finding.objects.filter(run=run).exclude(fingerprint="")
                    .values_list("id", "file__path", "fingerprint", "line"))
    marks = list(
        Mark.objects.filter(project_id=run.project_id, first_run__number__lte=run.number)
        .filter(last_run__number__lte=run.number)
        .order_by("closed_at", "id")  # open marks (null) first, then closed ones that may come back
    )
    # Marks set on a browser upload (one top-level folder) follow the code into a CI upload (none).
    mark_key, run_key = path_alignment({m.path for m in marks}, {path for _, path, _, _ in findings})
    by_key = {(run_key(path), fp): (fid, line, path) for fid, path, fp, line in findings}
    by_fp: dict[str, list[tuple[int, str, int]]] = defaultdict(list)
    for fid, path, fp, line in findings:
        by_fp[fp].append((fid, path, line))
    used: set[int] = set()
    now = timezone.now()
    links: list[Finding] = []
    events: list[MarkEvent] = []
    done_events = set(MarkEvent.objects.filter(run=run, mark__in=marks).values_list("mark_id", "action"))
    counts = {"carried": 0, "closed": 0, "reopened": 0}
    for mark in marks:
        found = by_key.get((mark_key(mark.path), mark.fingerprint))
        match, path = (found[:2], found[2]) if found else (None, mark.path)
        if match is None or match[0] in used:
            candidates = [c for c in by_fp.get(mark.fingerprint, ()) if c[0] not in used]
            match = (candidates[0][0], candidates[0][2]) if len(candidates) == 1 else None
            path = candidates[0][1] if match else path
        if match is None:
            if mark.closed_at is None and mark.last_run_id != run.pk:
                mark.closed_at, mark.closed_in_run = now, run
                mark.save(update_fields=["closed_at", "closed_in_run", "updated_at"])
                if (mark.pk, MarkEvent.Action.CLOSE) not in done_events:
                    events.append(MarkEvent(mark=mark, run=run, action=MarkEvent.Action.CLOSE, old_state=mark.state,
                                            new_state=mark.state,
                                            reason=f"the code it was on is not in run #{run.number}"))
                counts["closed"] += 1
            continue
        fid, line = match
        used.add(fid)
        links.append(Finding(pk=fid, mark_id=mark.pk, triage=mark.state))
        action = MarkEvent.Action.CARRY
        if mark.closed_at is not None:
            action = MarkEvent.Action.REOPEN
            counts["reopened"] += 1
        else:
            counts["carried"] += 1
        if (mark.pk, action) not in done_events and mark.last_run_id != run.pk:
            events.append(MarkEvent(mark=mark, finding_id=fid, run=run, action=action, old_state=mark.state,
                                    new_state=mark.state, reason=f"same code found in run #{run.number}"
                                    + (f" at {path}" if path != mark.path else "")))
        mark.path, mark.line, mark.last_run, mark.closed_at, mark.closed_in_run = path, line, run, None, None
        mark.save(update_fields=["path", "line", "last_run", "closed_at", "closed_in_run", "updated_at"])
    Finding.objects.bulk_update(links, ["mark", "triage"], batch_size=500)
    MarkEvent.objects.bulk_create(events)
    return counts
