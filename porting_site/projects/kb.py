"""Knowledge-base versions: what a new knowledge base changes on a run's snapshot.

kb_recheck(run=) analyses the run's stored source tree again with the current
knowledge base (same target and MindSpore version) and compares the result
with the run's stored findings by fingerprint; kb_recheck_request queues the
same work for a worker (kb_recheck_perform). The code is identical, so every
difference comes from the knowledge base. kb_split(older=, newer=) then splits
the changes between two runs into those due to the knowledge base and those
due to the team's code: older -> older-with-current-KB is the knowledge base,
older-with-current-KB -> newer is the code.
"""
from __future__ import annotations

import pickle
from collections import Counter

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from analysis.fingerprint import fingerprint_findings
from analysis.knowledge import KNOWLEDGE_BASE_VERSION

from . import storage
from .selectors import findings_delta
from .models import Finding, KbRecheck, Run, SourceFile

COMPARED = ("status", "severity", "mindspore_api", "message")
MAX_CHANGES = 2000


class RecheckUnavailable(Exception):
    """The run's files are gone, or the run has not been analysed."""


def _stored(run: Run, src) -> dict[tuple[str, str], dict]:
    """The run's findings keyed by (path, fingerprint); fingerprints computed if missing."""
    rows = list(Finding.objects.filter(run=run).select_related("file").order_by("file__path", "line", "column"))
    missing = {r.file.path for r in rows if not r.fingerprint}
    for path in missing:
        these = [r for r in rows if r.file.path == path]
        try:
            data = (src / path).read_bytes()
        except OSError:
            data = b""
        for row, fp in zip(these, fingerprint_findings(data, path, these)):
            row.fingerprint = fp
    return {(r.file.path, r.fingerprint): {
        "path": r.file.path, "line": r.line, "rule_id": r.rule_id, "torch_api": r.torch_api,
        **{k: getattr(r, k) for k in COMPARED}} for r in rows}


def _reanalysed(run: Run, src, paths: list[str]) -> dict[tuple[str, str], dict]:
    from analysis.fingerprint import add_fingerprints
    from analysis.scan import analyze_source, build_project_index

    index_file = storage.index_path(run.pk)
    try:
        index = pickle.loads(index_file.read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError):
        index = build_project_index(src, paths)
    out = {}
    for rel in paths:
        data = (src / rel).read_bytes()
        report = add_fingerprints(analyze_source(data, rel, target=run.target, ms_version=run.ms_version,
                                                 index=index), data)
        for f in report.findings:
            out[(rel, f.fingerprint)] = {
                "path": rel, "line": f.line, "rule_id": f.rule_id, "torch_api": f.torch_api[:255],
                "status": f.status.value, "severity": f.severity.value, "mindspore_api": f.mindspore_api[:255],
                "message": f.message,
            }
    return out


def _grouped(findings: dict) -> list[list]:
    counts = Counter((f["path"], f["rule_id"], f["torch_api"], f["severity"]) for f in findings.values())
    return [[*key, n] for key, n in sorted(counts.items())]


def _check_available(run: Run) -> tuple:
    src = storage.source_dir(run.pk)
    paths = list(SourceFile.objects.filter(run=run).values_list("path", flat=True))
    if not paths or not src.is_dir():
        raise RecheckUnavailable("the run's source files are no longer on disk (or it has no analysed files)")
    if any(not (src / p).is_file() for p in paths):
        raise RecheckUnavailable("some of the run's source files are no longer on disk")
    return src, paths


def _compare(run: Run) -> dict:
    """The re-analysis against the stored findings: counts, changes (capped) and grouped findings."""
    src, paths = _check_available(run)
    before, after = _stored(run, src), _reanalysed(run, src, paths)
    changes = []
    counts = Counter()
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key), after.get(key)
        if old and not new:
            kind = "removed"
        elif new and not old:
            kind = "added"
        elif any(old[k] != new[k] for k in COMPARED):
            kind = "changed"
        else:
            counts["unchanged"] += 1
            continue
        counts[kind] += 1
        ref = new or old
        if len(changes) < MAX_CHANGES:
            changes.append({
                "kind": kind, "path": ref["path"], "line": ref["line"], "rule_id": ref["rule_id"],
                "torch_api": ref["torch_api"],
                "before": {k: old[k] for k in COMPARED} if old else None,
                "after": {k: new[k] for k in COMPARED} if new else None,
            })
    return {"counts": {k: counts.get(k, 0) for k in ("added", "removed", "changed", "unchanged")},
            "changes": changes, "grouped": _grouped(after)}


def kb_recheck(*, run: Run, user=None) -> KbRecheck:
    """Re-analyse the run's snapshot now, in this process; store and return the differences.

    The management command's path: an operator at a shell waits for it.
    """
    result = _compare(run)
    with transaction.atomic():
        return KbRecheck.objects.create(
            run=run, kb_before=run.kb_version, kb_after=KNOWLEDGE_BASE_VERSION, created_by=user,
            status=KbRecheck.Status.DONE, finished_at=timezone.now(), **result,
        )


def kb_recheck_request(*, run: Run, user=None) -> KbRecheck:
    """Queue a re-check for a worker (pages and API); a pending one for the same knowledge base is reused.

    Refuses at once when the snapshot is gone, so the user learns it without waiting.
    """
    _check_available(run)
    with transaction.atomic():
        # One pending re-check per run, even when the button is pressed twice.
        Run.objects.select_for_update().filter(pk=run.pk).first()
        pending = kb_pending_recheck(run=run)
        if pending is not None:
            return pending
        recheck = KbRecheck.objects.create(run=run, kb_before=run.kb_version, kb_after=KNOWLEDGE_BASE_VERSION,
                                           created_by=user, status=KbRecheck.Status.QUEUED)
        import workers

        transaction.on_commit(lambda: workers.start("kb_recheck", recheck.pk))
    return recheck


def kb_recheck_perform(*, recheck_id: int) -> KbRecheck | None:
    """The worker's side of kb_recheck_request: do the queued re-check and store its outcome."""
    claimed = KbRecheck.objects.filter(pk=recheck_id, status=KbRecheck.Status.QUEUED).update(
        status=KbRecheck.Status.RUNNING)
    recheck = KbRecheck.objects.select_related("run").filter(pk=recheck_id).first()
    if recheck is None or (not claimed and recheck.status != KbRecheck.Status.RUNNING):
        return recheck  # deleted, or already finished by an earlier delivery
    if recheck.kb_after != KNOWLEDGE_BASE_VERSION:
        return kb_recheck_fail(recheck_id=recheck_id, reason=(
            f"this worker runs knowledge base {KNOWLEDGE_BASE_VERSION}, not {recheck.kb_after}"))
    try:
        result = _compare(recheck.run)
    except RecheckUnavailable as exc:
        return kb_recheck_fail(recheck_id=recheck_id, reason=str(exc))
    KbRecheck.objects.filter(pk=recheck_id).update(status=KbRecheck.Status.DONE, finished_at=timezone.now(),
                                                   **result)
    recheck.refresh_from_db()
    return recheck


def kb_recheck_fail(*, recheck_id: int, reason: str) -> KbRecheck | None:
    KbRecheck.objects.filter(pk=recheck_id).exclude(status=KbRecheck.Status.DONE).update(
        status=KbRecheck.Status.FAILED, error=reason[:2000], finished_at=timezone.now())
    return KbRecheck.objects.filter(pk=recheck_id).first()


def kb_latest_recheck(*, run: Run, kb_version: str = KNOWLEDGE_BASE_VERSION) -> KbRecheck | None:
    """The latest finished re-check of the run with that knowledge base."""
    return run.kb_rechecks.filter(kb_after=kb_version, status=KbRecheck.Status.DONE).order_by(
        "-created_at", "-id").first()


def kb_pending_recheck(*, run: Run, kb_version: str = KNOWLEDGE_BASE_VERSION) -> KbRecheck | None:
    """A queued or running re-check, unless it is so old that its worker must have died."""
    cutoff = timezone.now() - timezone.timedelta(seconds=settings.PORTING_STUCK_RUN_SECONDS)
    return run.kb_rechecks.filter(
        kb_after=kb_version, status__in=[KbRecheck.Status.QUEUED, KbRecheck.Status.RUNNING], created_at__gte=cutoff,
    ).order_by("-created_at", "-id").first()


def kb_recheck_state(*, run: Run, kb_version: str = KNOWLEDGE_BASE_VERSION) -> dict:
    """What the run page shows: the latest finished re-check, a pending one, or why the last one failed.

    One query when the newest re-check is finished or there is none (the usual cases), two otherwise.
    """
    # grouped (the re-analysis's findings, for comparing runs) is not shown here: leave it in the database.
    newest = run.kb_rechecks.filter(kb_after=kb_version).defer("grouped").order_by("-created_at", "-id").first()
    state = {"latest": None, "pending": None, "failed": None}
    if newest is None:
        return state
    if newest.status == KbRecheck.Status.DONE:
        state["latest"] = newest
        return state
    if newest.status == KbRecheck.Status.FAILED:
        state["failed"] = newest
    elif newest.created_at >= timezone.now() - timezone.timedelta(seconds=settings.PORTING_STUCK_RUN_SECONDS):
        state["pending"] = newest
    state["latest"] = kb_latest_recheck(run=run, kb_version=kb_version)
    return state


def _run_grouped(run: Run) -> dict[tuple, int]:
    from .tallies import grouped_counts, run_tallies

    return grouped_counts(run_tallies(run=run))


def kb_split(*, older: Run, newer: Run) -> dict:
    """Changes between two runs split into knowledge base and code.

    Needs a re-check of the older run with the newer run's knowledge base;
    {"available": False, ...} says what is missing.
    """
    if older.kb_version == newer.kb_version:
        return {"available": True, "same_kb": True, "kb": newer.kb_version}
    recheck = kb_latest_recheck(run=older, kb_version=newer.kb_version)
    if recheck is None:
        can_recheck = newer.kb_version == KNOWLEDGE_BASE_VERSION
        return {"available": False, "same_kb": False, "kb_before": older.kb_version, "kb_after": newer.kb_version,
                "can_recheck": can_recheck,
                "pending": kb_pending_recheck(run=older, kb_version=newer.kb_version) if can_recheck else None}
    middle = {tuple(row[:4]): row[4] for row in recheck.grouped}
    kb_new, kb_gone = findings_delta(_run_grouped(older), middle)
    code_new, code_gone = findings_delta(middle, _run_grouped(newer))
    return {
        "available": True, "same_kb": False, "kb_before": older.kb_version, "kb_after": newer.kb_version,
        "recheck": recheck,
        "kb": {"new": kb_new, "gone": kb_gone, "new_total": sum(r["n"] for r in kb_new),
               "gone_total": sum(r["n"] for r in kb_gone)},
        "code": {"new": code_new, "gone": code_gone, "new_total": sum(r["n"] for r in code_new),
                 "gone_total": sum(r["n"] for r in code_gone)},
    }
