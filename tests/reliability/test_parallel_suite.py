"""The suite under pytest-xdist (tests/parallel.py): every worker has a Redis database of its own, so the
Celery workers two tests start at once never take each other's tasks; files with slow tests go first."""
from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.parallel import NAMED_REDIS_URL, slow_files_first, worker_index, worker_redis_url


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


def _item(path: str, name: str, slow: bool = False):
    return SimpleNamespace(path=Path(path), name=name, get_closest_marker=lambda mark: slow if mark == "slow" else None)


def test_files_with_a_slow_test_go_first_and_keep_their_order():
    items = [_item("a.py", "a1"), _item("b.py", "b1"), _item("b.py", "b2", slow=True), _item("c.py", "c1"),
             _item("d.py", "d1", slow=True), _item("b.py", "b3")]
    slow_files_first(items)
    assert [item.name for item in items] == ["b1", "b2", "d1", "b3", "a1", "c1"]
