"""Celery: broker, result backend and queue routing.

With REDIS_URL set (the team deployment and the tests), Redis is the broker and
result backend. Without it, an SQLite file is both, through SQLAlchemy: a real
broker and a real worker process, with nothing to install.
"""
from __future__ import annotations

import os
from pathlib import Path

from porting_site.lib.env import envint, envstr

_var = Path(envstr("PORTING_VAR_DIR", str(Path(__file__).resolve().parents[2] / "var")))
_redis = envstr("REDIS_URL")

CELERY_BROKER_URL = _redis or f"sqla+sqlite:///{_var / 'celery-broker.sqlite3'}"
CELERY_RESULT_BACKEND = _redis or f"db+sqlite:///{_var / 'celery-results.sqlite3'}"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_DEFAULT_QUEUE = "analysis"
# Static work on "analysis"; numerics on the device queue the run asked for.
PARITY_QUEUES = {"cpu": "parity.cpu", "gpu": "parity.gpu", "ascend": "parity.ascend"}
CELERY_TASK_ROUTES = {
    "workers.tasks.run_parity": {"queue": "parity.cpu"},  # overridden per run
}
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = envint("CELERY_TASK_SOFT_TIME_LIMIT", 1800)
CELERY_TASK_TIME_LIMIT = envint("CELERY_TASK_TIME_LIMIT", 1900)
CELERY_RESULT_EXPIRES = 24 * 3600
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
os.environ.setdefault("FORKED_BY_MULTIPROCESSING", "1")

# A run whose stages have shown no activity for this long is marked failed
# (longer than any single stage may run: the hard time limit above).
PORTING_STUCK_RUN_SECONDS = envint("PORTING_STUCK_RUN_SECONDS", 2 * 3600)
CELERY_BEAT_SCHEDULE = {
    "fail-stuck-runs": {"task": "workers.tasks.fail_stuck_runs", "schedule": 300.0, "options": {"queue": "analysis"}},
}

# With acks_late, a task whose worker died is delivered again once this many
# seconds pass without an ack. Keep it above the longest task (the hard limit).
# (Redis only: the embedded SQLite broker has no visibility timeout, and the
# SQLAlchemy result backend would pass the option to create_engine.)
if _redis:
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": envint("CELERY_VISIBILITY_TIMEOUT", 2000)}
    CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = CELERY_BROKER_TRANSPORT_OPTIONS
