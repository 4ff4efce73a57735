"""The periodic check fails runs that stopped making progress, and only those."""
from __future__ import annotations

import pytest
from django.core.management import call_command
from django.utils import timezone

from porting_site.projects.models import Run, Stage
from porting_site.projects.services import run_create, run_fail_stuck, stage_begin
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def project(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    team, _ = factories.team_with_member("Team", "alice")
    return factories.project(team)


def make_run(project) -> Run:
    return run_create(project=project, archive=factories.upload("r.zip", b"PK"), enqueue=False)


def test_run_without_activity_beyond_the_limit_is_failed_with_a_reason(project):
    stuck, fresh = make_run(project), make_run(project)
    stage_begin(run_id=stuck.pk, name=Stage.Name.UNPACK)
    Stage.objects.filter(run=stuck).update(started_at=timezone.now() - timezone.timedelta(hours=3))
    Run.objects.filter(pk=stuck.pk).update(created_at=timezone.now() - timezone.timedelta(hours=3))

    assert run_fail_stuck(limit_s=3600) == [stuck.pk]

    stuck.refresh_from_db()
    fresh.refresh_from_db()
    assert stuck.status == Run.Status.FAILED and "no progress for more than 60 minutes" in stuck.error
    assert stuck.stages.get(name=Stage.Name.UNPACK).status == Stage.Status.FAILED
    assert fresh.status == Run.Status.QUEUED


def test_recent_stage_activity_keeps_an_old_run_alive(project):
    run = make_run(project)
    Run.objects.filter(pk=run.pk).update(created_at=timezone.now() - timezone.timedelta(hours=5))
    stage_begin(run_id=run.pk, name=Stage.Name.ANALYZE)
    assert run_fail_stuck(limit_s=3600) == []


def test_finished_runs_are_never_touched(project, capsys):
    run = make_run(project)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.DONE, created_at=timezone.now() - timezone.timedelta(days=2))
    call_command("fail_stuck_runs", minutes=1)
    assert "marked 0 stuck run(s)" in capsys.readouterr().out
    run.refresh_from_db()
    assert run.status == Run.Status.DONE
