"""A run cancelled while its parity stage runs: the stage stops its sandbox within
seconds through its own poll of the run's state (no broker involved) and stores
nothing half-done. Real sandbox, real torch and MindSpore, real database."""
from __future__ import annotations

import shutil
import threading
import time

import pytest
from django.db import connection

from porting_site.projects import storage
from porting_site.projects.models import ParityResult, Run
from porting_site.projects.services import run_create, run_parity
from tests import factories
from tests.parity.conftest import MS_REPO, TORCH_REPO

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SLEEPER = "import time\nfrom torch import nn\n\n\nclass Sleeper(nn.Module):\n    def __init__(self):\n" \
          "        super().__init__()\n        time.sleep(600)\n"


def test_cancel_stops_the_parity_stage_and_stores_nothing(run_dirs):
    team, alice = factories.team_with_member("Vision", "alice")
    archive = factories.upload("repo.zip", factories.zip_of({"a.py": b"import torch\n"}))
    run = run_create(project=factories.project(team), archive=archive, user=alice, enqueue=False)
    source = storage.source_dir(run.pk)
    shutil.rmtree(source, ignore_errors=True)
    shutil.copytree(TORCH_REPO, source)
    (source / "models" / "sleeper.py").write_text(SLEEPER)
    (source / "porting.toml").write_text('[[entry]]\nclass = "models.sleeper:Sleeper"\ninputs = [{shape = [4, 4]}]\n')
    shutil.copytree(MS_REPO, storage.converted_dir(run.pk), dirs_exist_ok=True)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING)

    def parity_stage():
        try:
            run_parity(run_id=run.pk)
        finally:
            connection.close()  # the thread's own connection, so the test database can be dropped

    stage = threading.Thread(target=parity_stage)
    started = time.monotonic()
    stage.start()
    time.sleep(3)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.CANCELLED)
    stage.join(timeout=60)
    assert not stage.is_alive(), "the parity stage kept running after the run was cancelled"
    assert time.monotonic() - started < 60
    assert not ParityResult.objects.filter(run=run).exists()
