"""Team-scoped reads for the API (the same scoping as the pages: others get 404)."""
from __future__ import annotations

from django.db.models import Count, Q, QuerySet, Sum
from django.shortcuts import get_object_or_404

from porting_site.accounts.models import Membership
from porting_site.gates.fingerprints import new_finding_ids
from porting_site.gates.models import RunGate
from porting_site.gates.services import run_baseline
from porting_site.projects.models import Finding, ParityResult, Project, Run, SourceFile
from porting_site.projects.selectors import project_list


# The figures FiguresSerializer shows (the history's rows are figures plus run details).
HISTORY_FIGURES = ("found", "done", "left", "percent", "converted", "review", "manual", "unresolved", "accepted",
                   "false_positive", "fixed")


def project_get_by_id(*, user, project_id: int) -> Project:
    return get_object_or_404(project_list(user=user), pk=project_id)


def user_is_team_admin(*, user, team_id: int) -> bool:
    return Membership.objects.filter(user=user, team_id=team_id, role=Membership.Role.ADMIN).exists()


def project_history(*, project: Project, limit: int = 50) -> list[dict]:
    """Per run, oldest first: findings by severity, parity outcomes, gate verdict."""
    runs = list(
        Run.objects.filter(project=project).order_by("-number")[:limit].annotate(
            n_errors=Sum("files__errors"), n_warnings=Sum("files__warnings"), n_infos=Sum("files__infos"),
        )
    )
    parity = {
        row["run_id"]: row
        for row in ParityResult.objects.filter(run__in=runs).values("run_id").annotate(
            passed=Count("id", filter=Q(status=ParityResult.Status.PASS)),
            checked=Count("id", filter=~Q(status=ParityResult.Status.SKIPPED)),
        )
    }
    gates = dict(RunGate.objects.filter(run__in=runs).values_list("run_id", "status"))
    from porting_site.projects import progress

    figures = progress.runs_counts([r.pk for r in runs])
    history = []
    for run in reversed(runs):
        p = parity.get(run.pk, {})
        history.append({
            "run_id": run.pk, "number": run.number, "status": run.status, "created_at": run.created_at,
            "errors": run.n_errors or 0, "warnings": run.n_warnings or 0, "infos": run.n_infos or 0,
            "parity_passed": p.get("passed", 0), "parity_checked": p.get("checked", 0),
            "gate": gates.get(run.pk),
            **{k: figures.get(run.pk, progress.empty())[k] for k in HISTORY_FIGURES},
        })
    return history


def finding_list(*, run: Run, file: str = "", file_id: int | None = None, rule: str = "",
                 severity: str = "", new: bool | None = None, **filters) -> QuerySet[Finding]:
    """Filters as the findings page (status, triage, done, path, assignee) plus file and new."""
    from porting_site.projects.selectors import finding_query

    findings = finding_query(run=run, rule=rule, severity=severity, file_id=file_id, new=new,
                             **filters).select_related("file", "mark__assignee").order_by("file__path", "line",
                                                                                         "column", "id")
    if file:
        findings = findings.filter(file__path=file)
    return findings


def file_list(*, run: Run, path_prefix: str = "") -> QuerySet[SourceFile]:
    files = SourceFile.objects.filter(run=run).select_related("converted").order_by("path")
    return files.filter(path__startswith=path_prefix) if path_prefix else files
