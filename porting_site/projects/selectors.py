"""Reads: what a user may see, and the aggregates pages show.

Every lookup goes through the user's teams, so another team's project is a 404,
never a 403 that confirms it exists. Aggregates are computed in the database
(one grouped query per figure), so page cost does not grow with run size.
"""
from __future__ import annotations

from collections import defaultdict

from django.db.models import Count, Q, QuerySet
from django.shortcuts import get_object_or_404

from porting_site.accounts.models import Membership

from .models import ConvertedFile, Finding, ParityResult, Project, Run, SourceFile, Stage

SEVERITIES = ("error", "warning", "info")
# What counts as done is defined once, in progress.DONE (converted, or a person's mark;
# unresolved never counts as done by itself).


def project_list(*, user) -> QuerySet[Project]:
    return Project.objects.filter(team__memberships__user=user).select_related("team").distinct()


def project_get(*, user, team_slug: str, project_slug: str) -> Project:
    return get_object_or_404(project_list(user=user), team__slug=team_slug, slug=project_slug)


def is_team_admin(*, user, team) -> bool:
    return Membership.objects.filter(team=team, user=user, role=Membership.Role.ADMIN).exists()


def run_get(*, user, run_id: int) -> Run:
    return get_object_or_404(
        Run.objects.filter(project__team__memberships__user=user).select_related("project", "project__team"),
        pk=run_id,
    )


def run_by_number(*, project: Project, number) -> Run | None:
    try:
        return project.runs.get(number=int(number))
    except (TypeError, ValueError, Run.DoesNotExist):
        return None


def latest_runs(*, projects) -> dict[int, Run]:
    latest: dict[int, Run] = {}
    for run in Run.objects.filter(project__in=projects).order_by("project_id", "-number"):
        latest.setdefault(run.project_id, run)
    return latest


def run_progress(*, run: Run) -> dict:
    """The run's status and per-stage progress, for the live progress bars."""
    stages = []
    for stage in Stage.objects.filter(run=run):
        stages.append(
            {
                "name": stage.name,
                "label": stage.get_name_display(),
                "status": stage.status,
                "done": stage.done,
                "total": stage.total,
                "percent": round(100 * stage.done / stage.total) if stage.total else (100 if stage.status == "done" else 0),
                "seconds": stage.seconds,
                "detail": stage.detail,
            }
        )
    elapsed = None
    if run.started_at:
        from django.utils import timezone

        elapsed = ((run.finished_at or timezone.now()) - run.started_at).total_seconds()
    return {"id": run.pk, "status": run.status, "error": run.error, "finished": run.is_finished, "stages": stages,
            "elapsed": elapsed}


# --- migration accounting ----------------------------------------------------------------


def _run_counts(run_ids) -> dict[int, dict]:
    """Per run: PyTorch uses found, by status and mark, done, left by severity, parity passing/checked."""
    from . import progress

    empty_parity = dict.fromkeys(progress.PARITY_AGGREGATES, 0)
    counts: dict[int, dict] = defaultdict(
        lambda: dict(progress.finish({k: 0 for k in progress.TREND}), left_error=0, left_warning=0, left_info=0,
                     **empty_parity)
    )
    for run_id, figures in progress.runs_counts(run_ids, **progress.left_by_severity()).items():  # one grouped query
        counts[run_id].update(figures)
    for run_id, parity in progress.parity_counts(run_ids).items():
        counts[run_id].update(parity)
    return counts


def project_trend(*, project: Project, limit: int = 30) -> list[dict]:
    """Migration progress over the project's last finished runs, oldest first."""
    runs = list(
        project.runs.filter(status=Run.Status.DONE).order_by("-number")
        .values("id", "number", "created_at", "kb_version")[:limit]
    )
    counts = _run_counts([r["id"] for r in runs])
    return [dict(r, **counts[r["id"]]) for r in reversed(runs)]


def projects_sparklines(*, projects, points: int = 10) -> dict[int, list[int]]:
    """Per project, what was left for a person in each of its last finished runs."""
    run_rows = (
        Run.objects.filter(project__in=projects, status=Run.Status.DONE)
        .order_by("project_id", "-number")
        .values_list("project_id", "id")
    )
    per_project: dict[int, list[int]] = defaultdict(list)
    for project_id, run_id in run_rows:
        if len(per_project[project_id]) < points:
            per_project[project_id].append(run_id)
    counts = _run_counts([rid for ids in per_project.values() for rid in ids])
    return {pid: [counts[rid]["left"] for rid in reversed(ids)] for pid, ids in per_project.items()}


def run_summary(*, run: Run) -> dict:
    findings = Finding.objects.filter(run=run)
    by_rule = list(findings.values("rule_id", "severity").annotate(n=Count("id")).order_by("-n", "rule_id")[:25])
    parity = dict(
        ParityResult.objects.filter(run=run).values_list("status").annotate(n=Count("id")).values_list("status", "n")
    )
    top_files = (
        SourceFile.objects.filter(Q(errors__gt=0) | Q(warnings__gt=0), run=run)
        .order_by("-errors", "-warnings", "path")[:10]
    )
    from . import progress

    figures = progress.of(findings, **{f"sev_{s}": Count("id", filter=Q(severity=s)) for s in SEVERITIES},
                          **progress.left_by_severity())
    figures.update(progress.parity_from_statuses(parity))
    by_severity = {s: n for s in SEVERITIES if (n := figures.pop(f"sev_{s}"))}
    by_status = {s: figures[s] for s in progress.STATUSES if figures[s]}
    total = figures["found"]
    converted = figures["converted"]
    return {
        "progress": figures,
        "folders": progress.folders_progress(run=run, limit=60),
        "by_severity": by_severity,
        "by_status": by_status,
        "by_rule": by_rule,
        "parity": parity,
        "parity_total": figures["parity_total"],  # checked: skipped ones aside (progress.parity_counts)
        "parity_skipped": figures["parity_skipped"],
        "top_files": top_files,
        "files": SourceFile.objects.filter(run=run).count(),
        "uses": total,
        "converted": converted,
        "done": figures["done"],
        "percent_done": figures["percent"],
    }


# --- files --------------------------------------------------------------------------


FILE_ORDERS = {"path", "lines", "errors", "warnings", "infos"}
FILE_FILTERS = {"errors": Q(errors__gt=0), "warnings": Q(warnings__gt=0), "clean": Q(errors=0, warnings=0),
                "unparsed": ~Q(parse_error="")}


def file_list(*, run: Run, query: str = "", order: str = "path", show: str = "") -> QuerySet[SourceFile]:
    files = SourceFile.objects.filter(run=run).only(
        "id", "path", "lines", "errors", "warnings", "infos", "parse_error"
    )
    if query:
        files = files.filter(path__icontains=query)
    if show in FILE_FILTERS:
        files = files.filter(FILE_FILTERS[show])
    key = order.lstrip("-")
    if key not in FILE_ORDERS:
        order = "path"
    return files.order_by(order, "path") if order.lstrip("-") != "path" else files.order_by(order)


def file_get(*, run: Run, file_id: int) -> SourceFile:
    return get_object_or_404(SourceFile, run=run, pk=file_id)


def file_findings(*, source_file: SourceFile, severity: str = "", rule: str = "") -> QuerySet[Finding]:
    findings = Finding.objects.filter(file=source_file).only(
        "id", "line", "column", "cell", "rule_id", "severity", "status", "torch_api", "mindspore_api", "message",
        "extra", "confidence", "triage", "mark_id",
    )
    if severity in SEVERITIES:
        findings = findings.filter(severity=severity)
    if rule:
        findings = findings.filter(rule_id=rule)
    return findings.order_by("line", "column")


def mark_assignees(*, source_file: SourceFile) -> dict[int, str]:
    """Usernames of the assignees of the file's marked findings, by mark id (one small query)."""
    from porting_site.triage.models import Mark

    return dict(Mark.objects.filter(findings__file=source_file, assignee__isnull=False).distinct()
                .values_list("id", "assignee__username"))


def file_rule_counts(*, source_file: SourceFile) -> list[dict]:
    return list(
        Finding.objects.filter(file=source_file).values("rule_id").annotate(n=Count("id")).order_by("rule_id")
    )


def rule_usage(*, user) -> dict[str, int]:
    """How often each rule fired in the latest finished run of the user's projects."""
    latest = {}
    for project_id, run_id in (
        Run.objects.filter(project__team__memberships__user=user, status=Run.Status.DONE)
        .order_by("project_id", "-number").values_list("project_id", "id")
    ):
        latest.setdefault(project_id, run_id)
    return dict(
        Finding.objects.filter(run_id__in=list(latest.values())).values_list("rule_id").annotate(n=Count("id"))
        .values_list("rule_id", "n")
    )


# --- the findings list (pages, API, bulk actions) -------------------------------------


FINDING_FILTERS = ("status", "triage", "done", "severity", "rule", "path", "file_id", "assignee", "api", "q", "new",
                   "gate")


TRUE, FALSE = ("yes", "true", "1", True), ("no", "false", "0", False)


def finding_query(*, run: Run, status: str = "", triage: str = "", done: str = "", severity: str = "",
                  rule: str = "", path: str = "", file_id=None, assignee: str = "", api: str = "", q: str = "",
                  new=None, gate: str = "") -> QuerySet[Finding]:
    """A run's findings filtered as the list page and the API offer.

    triage: open | marked | accepted | false_positive | fixed; done: yes | no;
    rule: an id, or a prefix ending in * (MS-DEVICE-*); path: a file path or a
    folder prefix ending in /; assignee: a username; api: a PyTorch API, or a
    prefix ending in * (torch.nn.*); q: text in the message, API or path;
    new: yes | no against the run's baseline (as the gate matches them);
    gate: "counted" keeps what the project's quality gate counts.
    """
    from . import progress

    findings = Finding.objects.filter(run=run)
    if status:
        findings = findings.filter(status=status)
    if triage == "open":
        findings = findings.filter(triage="")
    elif triage == "marked":
        findings = findings.exclude(triage="")
    elif triage:
        findings = findings.filter(triage=triage)
    if done in ("yes", "true", "1"):
        findings = findings.filter(progress.DONE)
    elif done in ("no", "false", "0"):
        findings = findings.exclude(progress.DONE)
    if severity:
        findings = findings.filter(severity=severity)
    if rule:
        findings = findings.filter(rule_id__startswith=rule[:-1]) if rule.endswith("*") else findings.filter(rule_id=rule)
    if path:
        findings = findings.filter(file__path__startswith=path) if path.endswith("/") else findings.filter(
            file__path=path)
    if file_id:
        findings = findings.filter(file_id=file_id)
    if assignee:
        findings = findings.filter(mark__assignee__username=assignee)
    if api:
        findings = findings.filter(torch_api__startswith=api[:-1]) if api.endswith("*") else findings.filter(
            torch_api=api)
    if q:
        findings = findings.filter(Q(message__icontains=q) | Q(torch_api__icontains=q) | Q(
            mindspore_api__icontains=q) | Q(file__path__icontains=q))
    if gate == "counted":
        from porting_site.gates.services import gate_counted

        findings = gate_counted(findings, project=run.project)
    if new in TRUE or new in FALSE:
        from porting_site.gates.fingerprints import new_finding_ids
        from porting_site.gates.services import run_baseline

        ids = new_finding_ids(run=run, baseline=run_baseline(run=run), severities=[severity] if severity else None)
        findings = findings.filter(pk__in=ids) if new in TRUE else findings.exclude(pk__in=ids)
    return findings


# --- parity ---------------------------------------------------------------------------


def parity_get(*, run: Run, result_id: int) -> ParityResult:
    return get_object_or_404(ParityResult.objects.select_related("loss_curve"), run=run, pk=result_id)


def files_by_path(*, run: Run, paths) -> dict[str, int]:
    """SourceFile ids for the paths parity reports (relative to the source root)."""
    paths = {p for p in paths if p}
    if not paths:
        return {}
    found = dict(SourceFile.objects.filter(run=run, path__in=paths).values_list("path", "id"))
    for missing in paths - found.keys():
        # Parity may report a path relative to a sub-folder: match on the suffix.
        match = SourceFile.objects.filter(run=run, path__endswith="/" + missing).values_list("id", flat=True).first()
        if match:
            found[missing] = match
    return found


# --- comparing runs -----------------------------------------------------------------------


def findings_delta(before: dict[tuple, int], after: dict[tuple, int]) -> tuple[list[dict], list[dict]]:
    """New and fixed findings between two {(path, rule, api, severity): count} tallies."""
    new, fixed = [], []
    for key in sorted(before.keys() | after.keys()):
        delta = after.get(key, 0) - before.get(key, 0)
        row = {"path": key[0], "rule_id": key[1], "torch_api": key[2], "severity": key[3], "n": abs(delta)}
        if delta > 0:
            new.append(row)
        elif delta < 0:
            fixed.append(row)
    return new, fixed


def runs_compare(*, older: Run, newer: Run, limit: int = 500) -> dict:
    """New and fixed findings between two runs, matched by file, rule and API
    (not by line, which moves with unrelated edits), and parity changes."""
    from .tallies import run_tallies, tallies_delta

    older_tallies, newer_tallies = run_tallies(run=older), run_tallies(run=newer)
    new, fixed = tallies_delta(older_tallies, newer_tallies)
    old_parity = {(p.module, p.name): p for p in older.parity_results.all()}
    parity = []
    for result in newer.parity_results.all():
        previous = old_parity.pop((result.module, result.name), None)
        parity.append({"module": result.module, "name": result.name, "before": previous.status if previous else None,
                       "after": result.status, "result": result,
                       "changed": previous is None or previous.status != result.status})
    for (module, name), previous in old_parity.items():
        parity.append({"module": module, "name": name, "before": previous.status, "after": None, "result": None,
                       "changed": True})
    totals = _compare_totals({older.pk: older_tallies, newer.pk: newer_tallies})
    return {
        "new": new[:limit], "fixed": fixed[:limit],
        "new_total": sum(r["n"] for r in new), "fixed_total": sum(r["n"] for r in fixed),
        "truncated": len(new) > limit or len(fixed) > limit,
        "parity": parity, "before": totals[older.pk], "after": totals[newer.pk],
    }


def _compare_totals(tallies: dict[int, dict]) -> dict[int, dict]:
    """Per run: found, done, left and parity passing/total, the figures the compare page shows.

    Found and converted come from the tallies; people's marks change after a
    run, so the uses they made done are counted live, over marked findings only
    (few, and found through the triage index).
    """
    from . import progress

    marked_done = dict(
        Finding.objects.filter(run_id__in=list(tallies), triage__in=progress.MARKS).exclude(status="converted")
        .filter(progress.DONE).order_by().values_list("run_id").annotate(n=Count("id")).values_list("run_id", "n")
    )
    parity = progress.parity_counts(list(tallies))
    totals = {}
    for run_id, t in tallies.items():
        found = t.get("found", 0)
        done = t.get("by_status", {}).get("converted", 0) + marked_done.get(run_id, 0)
        totals[run_id] = {"found": found, "done": done, "left": found - done, **parity[run_id]}
    return totals
