"""Test-only tasks, loaded by a test's worker with `-I tests.reliability.crashing_tasks` (never by a
deployment): a pipeline stage whose process dies on every delivery, as a segfault in native code would."""
from __future__ import annotations

import os
import signal

from workers.celery_app import app
from workers.tasks import StageTask


@app.task(base=StageTask, bind=True, stage="analyze", name="tests.reliability.crash_every_time")
def crash_every_time(self, run_id: int):
    os.kill(os.getpid(), signal.SIGKILL)
