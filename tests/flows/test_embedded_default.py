"""The embedded default: no Redis, no PostgreSQL. SQLite holds the data and is the
Celery broker (through SQLAlchemy); a real worker process runs the sample repo's
pipeline, as `bin/dashboard` does on a fresh machine."""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time

import pytest

from tests.conftest import REPO_ROOT
from tests.processes import WorkerProcess

pytestmark = pytest.mark.slow


def embedded_env(var_dir) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL", "DJANGO_SETTINGS_MODULE")}
    env.update(PORTING_VAR_DIR=str(var_dir), PYTHONPATH=str(REPO_ROOT))
    return env


def manage(env: dict, *args: str) -> str:
    result = subprocess.run([sys.executable, "manage.py", *args], cwd=REPO_ROOT, env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def test_sample_project_is_analysed_on_the_embedded_default(tmp_path):
    var_dir = tmp_path / "var"
    var_dir.mkdir()
    env = embedded_env(var_dir)
    manage(env, "migrate", "--no-input", "-v", "0")
    worker = WorkerProcess(tmp_path / "worker", env, broker_url=f"sqla+sqlite:///{var_dir / 'celery-broker.sqlite3'}")
    worker.start(timeout=120)
    try:
        assert "queued the sample repository" in manage(env, "bootstrap_demo")
        database = sqlite3.connect(var_dir / "porting.sqlite3")
        deadline = time.monotonic() + 420
        status = None
        while time.monotonic() < deadline:
            status, error = database.execute("SELECT status, error FROM projects_run").fetchone()
            if status in ("done", "failed"):
                break
            time.sleep(1)
        assert status == "done", (status, error, worker.log_tail())
        findings = database.execute("SELECT COUNT(*) FROM projects_finding").fetchone()[0]
        converted = database.execute("SELECT COUNT(*) FROM projects_convertedfile").fetchone()[0]
        parity = dict(database.execute("SELECT name, status FROM projects_parityresult").fetchall())
        assert findings > 40 and converted == 4
        assert parity == {"LeNet": "pass", "MLP": "pass"}
        # Idempotent: a second bootstrap queues nothing new.
        manage(env, "bootstrap_demo")
        assert database.execute("SELECT COUNT(*) FROM projects_run").fetchone()[0] == 1
    finally:
        worker.stop()
