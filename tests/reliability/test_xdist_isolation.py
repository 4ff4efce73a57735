"""Under pytest-xdist every worker has a Redis database of its own (tests/parallel.py): the Celery
workers two tests start at once must not take each other's tasks."""
from __future__ import annotations

import os

import pytest

from tests.parallel import NAMED_REDIS_URL, worker_index, worker_redis_url


def test_worker_n_moves_n_databases_up_from_the_one_named():
    assert worker_redis_url("redis://127.0.0.1:6379/12", 0) == "redis://127.0.0.1:6379/12"
    assert worker_redis_url("redis://127.0.0.1:6379/12", 1) == "redis://127.0.0.1:6379/13"
    assert worker_redis_url("redis://127.0.0.1:6379", 1) == "redis://127.0.0.1:6379/1"
    assert worker_redis_url("redis://:pw@127.0.0.1:6379/0?timeout=3", 2) == "redis://:pw@127.0.0.1:6379/2?timeout=3"


def test_a_database_past_redis_default_count_is_refused():
    with pytest.raises(RuntimeError, match="database 16"):
        worker_redis_url("redis://127.0.0.1:6379/15", 1)


def test_the_celery_app_and_the_workers_it_starts_use_this_processs_database(settings):
    from workers import app

    if not NAMED_REDIS_URL:
        pytest.skip("REDIS_URL is not set (the embedded broker)")
    expected = worker_redis_url(NAMED_REDIS_URL, worker_index() or 0)
    assert app.conf.broker_url == app.conf.result_backend == settings.CELERY_BROKER_URL == expected
    assert os.environ["REDIS_URL"] == expected  # what worker_env() hands the Celery workers
