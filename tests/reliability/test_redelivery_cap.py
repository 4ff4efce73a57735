"""A stage whose worker process dies on every delivery fails its run with the reason after a few
deliveries, instead of being delivered forever with the run left "running"."""
from __future__ import annotations

import time

import pytest
from celery import Celery

from porting_site.projects.models import Run, Stage
from porting_site.projects.services import run_create
from tests import factories
from tests.conftest import worker_database_url
from tests.processes import WorkerProcess, worker_env
from workers.deliveries import MAX_LOST

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_task_that_kills_its_worker_every_time_fails_the_run(tmp_path, settings, run_dirs):
    worker = WorkerProcess(tmp_path / "worker", worker_env(var_dir=run_dirs, database_url=worker_database_url(settings)),
                           extra_args=("-I", "tests.reliability.crashing_tasks"))
    team, member = factories.team_with_member("Crash", "cora")
    run = run_create(project=factories.project(team, "Loop"), archive=factories.upload("a.zip", b"PK"),
                     user=member, enqueue=False)
    # A message an earlier test's killed worker left on the queue would reach this worker first and
    # take its pool processes down with it (the run here then never gets its deliveries counted).
    with Celery(broker=settings.CELERY_BROKER_URL, set_as_current=False) as app, app.connection_for_write() as conn:
        conn.default_channel.queue_purge("analysis")
    worker.start()
    try:
        with Celery(broker=settings.CELERY_BROKER_URL, set_as_current=False) as app:
            app.send_task("tests.reliability.crash_every_time", args=[run.pk], queue="analysis")
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and not Run.objects.get(pk=run.pk).is_finished:
            time.sleep(1)
        alive = worker.process.poll() is None
        if not Run.objects.get(pk=run.pk).is_finished:
            worker.dump_stacks()  # the log then says where each process waits (this test has been flaky)
    finally:
        worker.stop()
    run.refresh_from_db()
    log = worker.log_tail(1_000_000)
    assert run.status == Run.Status.FAILED, log[-20000:]
    assert f"died {MAX_LOST} times" in run.error and run.error.startswith("analyze failed")
    assert Stage.objects.get(run=run, name=Stage.Name.ANALYZE).status == Stage.Status.FAILED
    # Delivered MAX_LOST + 1 times (the last one only fails the run), then never again.
    assert log.count("Task tests.reliability.crash_every_time[") - log.count("succeeded in") == MAX_LOST + 1, log
    assert alive  # the worker itself survived its pool processes


def test_sigusr2_writes_the_stacks_of_the_worker_and_its_pool_processes(tmp_path, settings, run_dirs):
    # the diagnosis the test above relies on when its run hangs (workers/celery_app.py)
    worker = WorkerProcess(tmp_path / "worker", worker_env(var_dir=run_dirs, database_url=worker_database_url(settings)))
    worker.start()
    try:
        worker.dump_stacks()
        log = worker.log_tail(1_000_000)
    finally:
        worker.stop()
    # one stack per process: the main process and its two pool processes (-c 2)
    assert log.count("Current thread") == 3, log[-3000:]
