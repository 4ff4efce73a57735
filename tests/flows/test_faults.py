"""Runs survive the faults a real deployment sees: a worker killed mid-task, and
the broker restarting mid-run. Real processes throughout: a private redis-server
this test may stop, real Celery workers, the PostgreSQL test database."""
from __future__ import annotations

import time

import pytest
from celery import Celery

from analysis.scan import analyze_source, build_project_index
from porting_site.projects.models import Finding, ParityResult, Run, Stage
from porting_site.projects.services import run_create
from tests import factories
from tests.conftest import SAMPLE_REPO, worker_database_url
from tests.processes import RedisServer, WorkerProcess, worker_env

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def redis_server(tmp_path):
    server = RedisServer(tmp_path)
    server.start()
    yield server
    server.stop()


def queue_sample_run(broker_url: str) -> Run:
    team, member = factories.team_with_member("Faults", "carol")
    project = factories.project(team, "Sample")
    archive = factories.upload("sample.tar.gz", factories.tar_gz_of(SAMPLE_REPO, "pytorch_sample"))
    run = run_create(project=project, archive=archive, user=member, enqueue=False)
    # A private app for the private broker; set_as_current=False keeps this test's
    # broker out of every later test that uses the project's own app.
    with Celery(broker=broker_url, set_as_current=False) as app:
        app.send_task("workers.tasks.unpack_run", args=[run.pk], queue="analysis")
    return run


def wait_until(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


def stage_status(run: Run, name: str) -> str:
    return Stage.objects.get(run=run, name=name).status


def expected_finding_count(run) -> int:
    """What the engine finds in the sample, computed in this process, as the pipeline does (for the run's
    MindSpore version: rules retired in a release do not fire for it)."""
    root = SAMPLE_REPO.parent
    paths = sorted(p.relative_to(root).as_posix() for p in SAMPLE_REPO.rglob("*.py"))
    index = build_project_index(root, paths)
    return sum(len(analyze_source((root / p).read_bytes(), p, target=run.target, ms_version=run.ms_version,
                                  index=index).findings) for p in paths)


def test_worker_killed_mid_run_the_run_completes_after_a_restart(tmp_path, settings, run_dirs, redis_server):
    env = worker_env(var_dir=run_dirs, database_url=worker_database_url(settings), redis_url=redis_server.url,
                     CELERY_VISIBILITY_TIMEOUT="20")
    worker = WorkerProcess(tmp_path / "worker", env, broker_url=redis_server.url)
    worker.start()
    run = queue_sample_run(redis_server.url)
    try:
        wait_until(lambda: stage_status(run, Stage.Name.PARITY) == Stage.Status.RUNNING, 180, "the parity stage")
        worker.kill()  # SIGKILL to the whole worker: the parity task is unacknowledged
        assert Run.objects.get(pk=run.pk).status == Run.Status.RUNNING
        worker.start()
        done = wait_until(lambda: Run.objects.get(pk=run.pk).is_finished, 400, "the run to finish")
    finally:
        worker.stop()
    run.refresh_from_db()
    assert done and run.status == Run.Status.DONE, (run.error, worker.log_tail())
    assert Finding.objects.filter(run=run).count() == expected_finding_count(run)
    statuses = dict(ParityResult.objects.filter(run=run).values_list("name", "status"))
    assert statuses.get("LeNet") == statuses.get("MLP") == "pass"


def test_broker_restart_mid_run_never_leaves_the_run_hanging(tmp_path, settings, run_dirs, redis_server):
    env = worker_env(var_dir=run_dirs, database_url=worker_database_url(settings), redis_url=redis_server.url,
                     CELERY_VISIBILITY_TIMEOUT="20")
    worker = WorkerProcess(tmp_path / "worker", env, broker_url=redis_server.url)
    worker.start()
    run = queue_sample_run(redis_server.url)

    def finished_under_supervision() -> bool:
        # Celery's Redis transport can crash a worker that acks while the broker is
        # away ("Unrecoverable error", a known kombu failure mode). Deployments run
        # workers under a supervisor (docker-compose: restart: unless-stopped); do
        # what it does, and the unacknowledged task is delivered again.
        if worker.process.poll() is not None:
            worker.start()
        return Run.objects.get(pk=run.pk).is_finished

    try:
        wait_until(lambda: stage_status(run, Stage.Name.PARITY) == Stage.Status.RUNNING, 180, "the parity stage")
        redis_server.stop()
        time.sleep(3)
        redis_server.start()  # same port, append-only file kept: queued messages survive
        wait_until(finished_under_supervision, 400, "the run to finish")
    finally:
        worker.stop()
    run.refresh_from_db()
    # Completed, or failed with a reason a person can act on; never stuck in "running".
    assert run.status == Run.Status.DONE or (run.status == Run.Status.FAILED and run.error), worker.log_tail()
    if run.status == Run.Status.DONE:
        assert Finding.objects.filter(run=run).count() == expected_finding_count(run)


def _many_files_archive(count: int) -> bytes:
    """A repository of `count` small PyTorch files (slow enough to analyse that a kill lands mid-stage)."""
    import io
    import tarfile

    # Functions only: no module classes, so parity has no entry points and the run ends soon after analysis.
    body = ("import torch\n\n" + "".join(
        f"\ndef step_{j}(x, w):\n    y = torch.matmul(x, w) + torch.abs(x).sum()\n    return torch.relu(y).mean()\n"
        for j in range(20))).encode()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for i in range(count):
            info = tarfile.TarInfo(f"many/models/net_{i:03d}.py")
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    return buffer.getvalue()


def test_whole_worker_sigkilled_mid_analysis_recovers_within_two_minutes(tmp_path, settings, run_dirs,
                                                                           redis_server):
    """No short visibility timeout here (the default, over half an hour, which long parity tasks need):
    the restarted worker finds the dead worker's unacknowledged tasks and queues them again. Progress
    is polled throughout and never passes its total."""
    env = worker_env(var_dir=run_dirs, database_url=worker_database_url(settings), redis_url=redis_server.url,
                     PORTING_ANALYSIS_BATCH_FILES="4")
    worker = WorkerProcess(tmp_path / "worker", env, broker_url=redis_server.url)
    worker.start()
    team, member = factories.team_with_member("Kill", "kim")
    project = factories.project(team, "Many")
    run = run_create(project=project, archive=factories.upload("many.tar.gz", _many_files_archive(40)),
                     user=member, enqueue=False)
    with Celery(broker=redis_server.url, set_as_current=False) as app:
        app.send_task("workers.tasks.unpack_run", args=[run.pk], queue="analysis")
    overshoots = []

    def analysed_some() -> bool:
        stage = Stage.objects.get(run=run, name=Stage.Name.ANALYZE)
        return stage.status == Stage.Status.RUNNING and 6 <= stage.done < stage.total - 12

    def finished() -> bool:
        for stage in Stage.objects.filter(run=run):
            if stage.done > stage.total:
                overshoots.append((stage.name, stage.done, stage.total))
        return Run.objects.get(pk=run.pk).is_finished

    try:
        wait_until(analysed_some, 300, "the analysis to be under way")
        worker.kill()  # the whole worker, pool and all: its batches stay unacknowledged in Redis
        time.sleep(2)
        worker.start()
        ready = time.monotonic()
        wait_until(finished, 300, "the run to finish")
        recovered_s = time.monotonic() - ready
    finally:
        worker.stop()
    run.refresh_from_db()
    assert run.status == Run.Status.DONE, (run.error, worker.log_tail())
    print(f"recovered {recovered_s:.0f} s after the new worker was ready")
    assert recovered_s < 120, worker.log_tail()
    assert not overshoots, overshoots
    analyze = Stage.objects.get(run=run, name=Stage.Name.ANALYZE)
    assert analyze.done == analyze.total == 40
    assert Finding.objects.filter(run=run).values("file").distinct().count() == 40
