"""The suite under pytest-xdist (tests/parallel.py): every worker has a Redis database of its own, so the
Celery workers two tests start at once never take each other's tasks; files with slow tests go first."""
from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.parallel import NAMED_REDIS_URL, distinct_node_ids, slow_files_first, worker_index, worker_redis_url


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


class _Item:
    """What distinct_node_ids reads of a pytest item: its node id (a property over _id), name, parent."""

    def __init__(self, nodeid: str, name: str, parent):
        self._id, self.name, self.parent = nodeid, name, parent

    @property
    def nodeid(self) -> str:
        return str(self._id)


def test_items_sharing_a_node_id_get_their_own_names_as_ids():
    module = SimpleNamespace(nodeid="tests/api/test_fuzz.py")
    items = [_Item("tests/api/test_fuzz.py::test_x", f"test_x[{op}]", module) for op in ("GET /a", "POST /a")]
    items.append(_Item("tests/api/test_fuzz.py::test_y", "test_y", module))
    distinct_node_ids(items)
    assert [item.nodeid for item in items] == ["tests/api/test_fuzz.py::test_x[GET /a]",
                                               "tests/api/test_fuzz.py::test_x[POST /a]", "tests/api/test_fuzz.py::test_y"]


def test_every_schema_fuzz_operation_is_a_test_of_its_own(request):
    ids = [item.nodeid for item in request.session.items if "test_schema_fuzz" in item.nodeid]
    if not ids:
        pytest.skip("tests/api/test_schema_fuzz.py is not collected in this run")
    assert len(ids) == len(set(ids)) > 20, ids
