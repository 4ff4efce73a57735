"""Reads: what a user may see, and the aggregates pages show.

Every lookup goes through the user's teams, so another team's project is a 404,
never a 403 that confirms it exists.
"""
from __future__ import annotations

from django.db.models import Count, Q, QuerySet
from django.shortcuts import get_object_or_404

from .models import Finding, ParityResult, Project, Run, SourceFile, Stage


def project_list(*, user) -> QuerySet[Project]:
    return Project.objects.filter(team__memberships__user=user).select_related("team").distinct()


def project_get(*, user, team_slug: str, project_slug: str) -> Project:
    return get_object_or_404(project_list(user=user), team__slug=team_slug, slug=project_slug)


def run_get(*, user, run_id: int) -> Run:
    return get_object_or_404(
        Run.objects.filter(project__team__memberships__user=user).select_related("project", "project__team"),
        pk=run_id,
    )


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
    return {"id": run.pk, "status": run.status, "error": run.error, "finished": run.is_finished, "stages": stages}


def run_summary(*, run: Run) -> dict:
    by_severity = dict(
        Finding.objects.filter(run=run).values_list("severity").annotate(n=Count("id")).values_list("severity", "n")
    )
    by_status = dict(
        Finding.objects.filter(run=run).values_list("status").annotate(n=Count("id")).values_list("status", "n")
    )
    by_rule = list(
        Finding.objects.filter(run=run)
        .values("rule_id", "severity")
        .annotate(n=Count("id"))
        .order_by("-n", "rule_id")[:20]
    )
    parity = dict(
        ParityResult.objects.filter(run=run).values_list("status").annotate(n=Count("id")).values_list("status", "n")
    )
    top_files = SourceFile.objects.filter(run=run).order_by("-errors", "-warnings", "path")[:10]
    return {
        "by_severity": by_severity,
        "by_status": by_status,
        "by_rule": by_rule,
        "parity": parity,
        "top_files": top_files,
        "files": SourceFile.objects.filter(run=run).count(),
    }


def file_list(*, run: Run, query: str = "", order: str = "path") -> QuerySet[SourceFile]:
    files = SourceFile.objects.filter(run=run).select_related("converted")
    if query:
        files = files.filter(path__icontains=query)
    allowed = {"path", "-path", "lines", "-lines", "errors", "-errors", "warnings", "-warnings"}
    return files.order_by(order if order in allowed else "path")


def file_get(*, run: Run, file_id: int) -> SourceFile:
    return get_object_or_404(SourceFile, run=run, pk=file_id)
