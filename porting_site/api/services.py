"""Writes behind the API: the same services the pages use, plus the API's options."""
from __future__ import annotations

from django.db import transaction
from django.http import Http404
from django.utils import timezone
from django.utils.text import slugify
from rest_framework.exceptions import PermissionDenied, ValidationError

from analysis.archive import ArchiveError
from porting_site.accounts.models import Membership, Team
from porting_site.gates.services import baseline_default, run_gate_set_baseline
from porting_site.projects import services as project_services
from porting_site.projects.models import Project, Run, Stage

# gzip, zip, and (at offset 257) the ustar magic of a plain tar.
_GZIP, _ZIP, _EMPTY_ZIP = b"\x1f\x8b", b"PK\x03\x04", b"PK\x05\x06"


def archive_looks_valid(upload) -> bool:
    upload.seek(0)
    head = upload.read(265)
    upload.seek(0)
    return head.startswith((_GZIP, _ZIP, _EMPTY_ZIP)) or head[257:262] == b"ustar"


def project_create_api(*, user, team_slug: str, name: str, **fields) -> Project:
    team = Team.objects.filter(slug=team_slug, memberships__user=user).first()
    if team is None:
        raise Http404("no such team")
    if not Membership.objects.filter(team=team, user=user, role=Membership.Role.ADMIN).exists():
        raise PermissionDenied("only team admins create projects")
    if not slugify(name):
        raise ValidationError({"name": ["the name needs at least one letter or digit"]})
    if Project.objects.filter(team=team, slug=slugify(name)).exists():
        raise ValidationError({"name": ["the team already has a project with this name"]})
    return project_services.project_create(team=team, name=name, **fields)


def _baseline(project: Project, choice: str) -> Run | None | str:
    if choice in ("", "auto"):
        return "auto"
    if choice == "none":
        return None
    try:
        return Run.objects.get(project=project, pk=int(choice))
    except (ValueError, Run.DoesNotExist):
        raise ValidationError({"baseline": ["use 'auto', 'none' or the id of a run of this project"]}) from None


def run_create_api(*, project: Project, user, archive, baseline: str = "auto", **options) -> Run:
    if not archive_looks_valid(archive):
        raise ValidationError({"archive": ["not a .tar.gz, .tar or .zip archive"]})
    if options.get("converted_archive") and not archive_looks_valid(options["converted_archive"]):
        raise ValidationError({"converted_archive": ["not a .tar.gz, .tar or .zip archive"]})
    problem = project_services.archive_contents_problem(archive)
    if problem:  # an empty archive, or one with no Python: refused with the reason, as the upload form does
        raise ValidationError({"archive": [problem[0].upper() + problem[1:] + "."]})
    chosen = _baseline(project, baseline)
    with transaction.atomic():
        try:
            run = project_services.run_create(project=project, archive=archive, user=user,
                                              **{k: v for k, v in options.items() if v})
        except ArchiveError as exc:  # too large, or past the team's disk quota: the same words as the form
            raise ValidationError({"archive": [str(exc)]}) from exc
        run_gate_set_baseline(run=run, baseline=baseline_default(run=run) if chosen == "auto" else chosen)
    return run


def run_cancel(*, run: Run) -> Run:
    """Stop a queued or running run: its running stage's tasks are revoked (their pool
    processes and sandboxes killed); stages not started yet see it inactive and skip."""
    now = timezone.now()
    updated = Run.objects.filter(pk=run.pk, status__in=[Run.Status.QUEUED, Run.Status.RUNNING]).update(
        status=Run.Status.CANCELLED, finished_at=now, error="cancelled by a user"
    )
    if not updated:
        raise ValidationError({"status": [f"the run is already {run.status}"]})
    Stage.objects.filter(run=run, status__in=[Stage.Status.PENDING, Stage.Status.RUNNING]).update(
        detail="cancelled", finished_at=now
    )
    import workers

    task_ids = project_services.run_running_task_ids(run_id=run.pk)
    transaction.on_commit(lambda: workers.revoke(task_ids))
    run.refresh_from_db()
    return run
