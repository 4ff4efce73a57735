"""Cancelling a run stuck in its parity stage stops the work itself: the stage's
Celery task is revoked, its pool process and the sandboxed child running the
user's model die, and the worker is free again within seconds (a real worker,
real broker, a model whose constructor sleeps for ten minutes).

The stage's own database check for a cancel (the path for brokers that cannot
broadcast, tested in tests/parity/test_sandbox.py) is slowed to once in ten
minutes here: otherwise it may end the task before the revoke arrives, and
this test would not know which of the two stopped it."""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from porting_site.projects.models import Run, Stage
from porting_site.projects.services import run_create
from tests import factories
from workers.children import child_pids

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SLEEPER = '''import time

from torch import nn


class Sleeper(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        time.sleep(600)

    def forward(self, x):
        return self.fc(x)
'''


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"  # a zombie has finished dying


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        kids = child_pids(todo.pop())
        found.extend(kids)
        todo.extend(kids)
    return found


def _sandbox_child(worker_pid: int) -> tuple[int, Path] | None:
    """The parity sandbox's interpreter (a descendant of the worker started with a sandbox.json)
    and its working directory."""
    for pid in _descendants(worker_pid):
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        config = next((a for a in args if a.endswith(b"sandbox.json")), None)
        if config:
            # The path is the box's own (its private work directory); seen from here through
            # the process's root. Only the interpreter itself has it: bwrap's argv ends in `--`.
            if b"--" in args:
                continue
            return pid, Path(f"/proc/{pid}/root") / config.decode().lstrip("/").rsplit("/", 1)[0]
    return None


def _running_user_code(pid: int) -> bool:
    """The box has started the entry point: the model's constructor sleeps. The box reports to its
    parent only through a pipe, so this reads the kernel's word for where the interpreter waits:
    only the model's time.sleep puts it in a nanosleep (imports and the channel never do)."""
    try:
        where = Path(f"/proc/{pid}/wchan").read_text()
        call = Path(f"/proc/{pid}/syscall").read_text().split(" ", 1)[0]
    except OSError:
        return False
    return "nanosleep" in where or call in ("35", "230")  # nanosleep, clock_nanosleep (x86-64)


def _wait(predicate, timeout: float, what: str, worker):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}\n{worker.log_tail()}")


@pytest.fixture
def worker(tmp_path, settings, run_dirs):
    from tests.conftest import running_worker

    with running_worker(tmp_path, settings, run_dirs, PORTING_PARITY_CANCEL_POLL_S="600") as worker:
        yield worker


def test_cancel_kills_the_running_parity_stage_and_frees_the_worker(worker):
    from workers.celery_app import app

    team, alice = factories.team_with_member("Speech", "alice")
    archive = factories.upload("repo.zip", factories.zip_of({"models/__init__.py": b"",
                                                             "models/sleeper.py": SLEEPER.encode()}))
    run = run_create(project=factories.project(team, "Slow"), archive=archive, user=alice)

    sandbox, _ = _wait(lambda: _sandbox_child(worker.process.pid), 240, "the parity sandbox to start", worker)
    try:
        _wait(lambda: _running_user_code(sandbox), 240, "the sandbox to run the model", worker)
        time.sleep(1)
        assert _alive(sandbox)
        pool_process = int(Path(f"/proc/{sandbox}/stat").read_text().rsplit(")", 1)[1].split()[1])
        parity = Stage.objects.get(run=run, name=Stage.Name.PARITY)
        assert parity.status == Stage.Status.RUNNING and parity.task_ids  # the task said who it is

        client = APIClient()
        client.force_authenticate(alice)
        cancelled_at = time.monotonic()
        response = client.post(reverse("api:run-cancel", args=[run.pk]))
        assert response.status_code == 200 and response.json()["status"] == "cancelled"

        _wait(lambda: not _alive(sandbox) and not _alive(pool_process), 20,
              "the sandbox and its pool process to die", worker)
        assert time.monotonic() - cancelled_at < 20
    finally:
        if _alive(sandbox):  # never leave a ten-minute sleeper behind a failed test
            os.killpg(sandbox, signal.SIGKILL)

    def idle() -> bool:
        active = app.control.inspect(destination=[worker.hostname], timeout=2).active() or {}
        return active.get(worker.hostname) == []

    _wait(idle, 20, "the worker to report no active task", worker)
    assert _sandbox_child(worker.process.pid) is None
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED
    assert Stage.objects.get(run=run, name=Stage.Name.FINALIZE).status == Stage.Status.PENDING
    assert f"Terminating {parity.task_ids[0]}" in worker.log_tail(200_000)
