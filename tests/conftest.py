"""Suite-wide fixtures.

MindSpore writes rank_0/ folders (logs, graphs) into the working directory, so
the whole session runs from a temporary directory; tests use absolute paths
(REPO_ROOT, SAMPLE_REPO) for the project's own files.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SAMPLE_REPO = REPO_ROOT / "samples" / "pytorch_sample"


@pytest.fixture(scope="session", autouse=True)
def _session_cwd(tmp_path_factory):
    previous = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("cwd"))
    yield
    os.chdir(previous)


@pytest.fixture
def live_worker(tmp_path, settings, django_db_blocker):
    """A real Celery worker process on the real broker, using the test database.

    The worker gets the same var directory as this process (uploads, run
    trees) and the name of the test database pytest-django created.
    """
    import subprocess
    import sys
    import time

    from django.db import connection

    from workers import app

    var_dir = tmp_path / "var"
    settings.MEDIA_ROOT = var_dir / "media"
    settings.PORTING_RUNS_DIR = var_dir / "runs"
    db = settings.DATABASES["default"]
    env = dict(os.environ)
    env.update(
        PORTING_VAR_DIR=str(var_dir),
        DATABASE_URL=(
            f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{connection.settings_dict['NAME']}"
            if connection.vendor == "postgresql"
            else env.get("DATABASE_URL", "")
        ),
        PYTHONPATH=str(REPO_ROOT),
    )
    hostname = f"test-{os.getpid()}-{time.monotonic_ns()}@%h"
    worker_cwd = tmp_path / "worker-cwd"
    worker_cwd.mkdir()
    log = open(tmp_path / "worker.log", "wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "--workdir", str(REPO_ROOT), "-A", "workers", "worker",
         "-Q", "analysis,parity.cpu", "-c", "2", "-n", hostname, "--without-gossip", "--without-mingle",
         "--loglevel", "INFO"],
        cwd=worker_cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError((tmp_path / "worker.log").read_text()[-4000:])
            if app.control.ping(timeout=0.5, destination=[hostname.replace("%h", __import__("socket").gethostname())]):
                break
        else:
            raise RuntimeError("the Celery worker did not answer a ping within 60 s")
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
        print((tmp_path / "worker.log").read_text()[-3000:])
