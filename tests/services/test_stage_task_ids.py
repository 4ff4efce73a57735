"""Stage tasks record their Celery ids so that cancelling a run can revoke
what is still running (tested end to end in tests/api/test_cancel_running.py)."""
from __future__ import annotations

import pytest

from porting_site.projects.models import Stage
from porting_site.projects.services import run_create, run_running_task_ids, stage_end, stage_task_record
from tests import factories

pytestmark = pytest.mark.django_db


def test_ids_of_unfinished_stages_are_the_ones_to_revoke(run_dirs):
    team, alice = factories.team_with_member("Vision", "alice")
    archive = factories.upload("repo.zip", factories.zip_of({"a.py": b"import torch\n"}))
    run = run_create(project=factories.project(team), archive=archive, user=alice, enqueue=False)
    stage_task_record(run_id=run.pk, name=Stage.Name.ANALYZE, task_id="batch-1")
    stage_task_record(run_id=run.pk, name=Stage.Name.ANALYZE, task_id="batch-2")
    stage_task_record(run_id=run.pk, name=Stage.Name.ANALYZE, task_id="batch-2")  # a redelivery: once is enough
    assert Stage.objects.get(run=run, name=Stage.Name.ANALYZE).task_ids == ["batch-1", "batch-2"]
    assert sorted(run_running_task_ids(run_id=run.pk)) == ["batch-1", "batch-2"]
    stage_end(run_id=run.pk, name=Stage.Name.ANALYZE)
    stage_task_record(run_id=run.pk, name=Stage.Name.PARITY, task_id="parity-1")
    assert run_running_task_ids(run_id=run.pk) == ["parity-1"]
