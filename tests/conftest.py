"""Suite-wide fixtures.

MindSpore writes rank_0/ folders (logs, graphs) into the working directory, so
the whole session runs from a temporary directory; tests use absolute paths
(REPO_ROOT, SAMPLE_REPO) for the project's own files.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.parallel import distinct_node_ids, isolate_redis, slow_files_first, worker_index

# The converter's markers from PyTorch's samples (analysis/verify/sample_verdicts.py) change whenever the
# verdicts are measured again; tests of other conversions read them only where the code states the dtype
# (lenient mode). tests/verify/test_sample_verdicts.py tests the default (unknown dtype = any class).
os.environ.setdefault("PORTING_STRICT_DTYPES", "0")
isolate_redis()  # under xdist, each worker's Celery queues in a Redis database of its own

REPO_ROOT = Path(__file__).resolve().parents[1]
SAMPLE_REPO = REPO_ROOT / "samples" / "pytorch_sample"


@pytest.hookimpl(trylast=True)  # after pytest-django's database order, which it keeps within each part
def pytest_collection_modifyitems(items):
    distinct_node_ids(items)
    if worker_index() is not None:  # collected by an xdist worker: the order the files are handed out in
        slow_files_first(items)


@pytest.fixture(scope="session", autouse=True)
def _session_cwd(tmp_path_factory):
    previous = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("cwd"))
    yield
    os.chdir(previous)


@pytest.fixture(scope="session")
def sample_parity():
    """The sample repository checked once, converted by analysis.convert, with the progress events it
    sent: (report, events). Each entry point is a fresh box (13-15 s on CI), so the tests that read
    this run's report and those that read its events share it instead of each paying for it."""
    from analysis.parity import check_parity

    events: list[dict] = []
    report = check_parity(SAMPLE_REPO, device="cpu", loss_steps=3, timeout_s=240, on_progress=events.append)
    return report, events


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """Tests create many users; production's slow, safe hasher buys nothing here."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def worker_database_url(settings) -> str:
    """The URL of the database this test process uses (the test database)."""
    from django.db import connection

    db = settings.DATABASES["default"]
    if connection.vendor != "postgresql":
        raise RuntimeError("end-to-end tests with a worker process need PostgreSQL (set DATABASE_URL)")
    return f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{connection.settings_dict['NAME']}"


@pytest.fixture
def run_dirs(tmp_path, settings):
    """A var directory shared by this process and worker processes (uploads, run trees)."""
    var_dir = tmp_path / "var"
    settings.MEDIA_ROOT = var_dir / "media"
    settings.PORTING_RUNS_DIR = var_dir / "runs"
    return var_dir


@pytest.fixture
def live_worker(tmp_path, settings, run_dirs):
    """A real Celery worker process on the real broker (REDIS_URL), using the test database."""
    with running_worker(tmp_path, settings, run_dirs) as worker:
        yield worker


@contextmanager
def running_worker(tmp_path, settings, run_dirs, **env):
    """Start a real worker (extra environment in `env`), stop it and print its log tail at the end."""
    from tests.processes import WorkerProcess, worker_env

    worker = WorkerProcess(tmp_path / "worker",
                           worker_env(var_dir=run_dirs, database_url=worker_database_url(settings), **env),
                           broker_url=settings.CELERY_BROKER_URL)
    worker.start()
    try:
        yield worker
    finally:
        worker.stop()
        print(worker.log_tail(3000))
