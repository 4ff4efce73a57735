"""The suite split over pytest-xdist processes (bin/test runs `-n 2 --dist loadfile`).

pytest-django gives each xdist worker a PostgreSQL test database of its own. Redis it does not split:
Celery's queues, results, broadcast replies and the unacked hash that orphan recovery restores from all
live in REDIS_URL's database, so the Celery worker one test starts would take the tasks of a test running
in the other xdist worker, against the wrong test database. Worker gwN therefore uses database base + N of
REDIS_URL (gw0 the database named, gw1 the next one). Run alone (no -n, or -n 0) nothing changes.

xdist hands out tests by node id, and a test id that two items share runs once: schemathesis gives each
API operation of tests/api/test_schema_fuzz.py an item of its own under one id, so under xdist 1 of its 29
operations was fuzzed. Such items get their own name as id (distinct_node_ids).

Files go to the workers in collection order (bin/test passes --no-loadscope-reorder), and under xdist the
files holding slow tests are collected first: the minutes-long end-to-end files start at once and the
many quick files fill in behind them, instead of a long file starting last while the other worker idles.
"""
from __future__ import annotations

import os
import sys
from urllib.parse import urlsplit, urlunsplit

REDIS_DATABASES = 16  # redis-server's default `databases`
NAMED_REDIS_URL = os.environ.get("REDIS_URL")  # as the run was given it, before isolate_redis()


def worker_index() -> int | None:
    """This process's xdist worker number (gw3 -> 3), None outside xdist."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(name[2:]) if name.startswith("gw") else None


def worker_redis_url(url: str, index: int) -> str:
    """REDIS_URL moved `index` databases up from the one it names (0 when it names none)."""
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    database = base + index
    if database >= REDIS_DATABASES:
        raise RuntimeError(f"xdist worker gw{index} would need Redis database {database} of {url}: "
                           f"point REDIS_URL at a lower database or run fewer workers")
    return urlunsplit(parts._replace(path=f"/{database}"))


def isolate_redis() -> None:
    """Point this xdist worker, and the processes it starts, at its own Redis database.

    pytest-django has read the settings before any conftest loads, so the two settings made from
    REDIS_URL are rewritten here too; Celery reads them when its configuration is first used, which
    must not have happened yet."""
    index = worker_index()
    if index is None or not NAMED_REDIS_URL:
        return
    isolated = worker_redis_url(NAMED_REDIS_URL, index)
    os.environ["REDIS_URL"] = isolated  # worker_env() copies os.environ into the Celery workers it starts
    from django.conf import settings

    settings.CELERY_BROKER_URL = settings.CELERY_RESULT_BACKEND = isolated
    app = sys.modules.get("workers.celery_app")
    if app is not None and app.app.configured:
        raise RuntimeError("the Celery app read its broker before the xdist worker's Redis database was set")


def slow_files_first(items: list) -> None:
    """Reorder `items` (in place, stably) so that every file with a test marked slow comes first."""
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow)


def distinct_node_ids(items: list) -> None:
    """Give every item whose node id another item shares an id ending in its own name (the parameters)."""
    seen: dict[str, int] = {}
    for item in items:
        seen[item.nodeid] = seen.get(item.nodeid, 0) + 1
    for item in items:
        if seen[item.nodeid] > 1:
            from _pytest.nodeid import coerce_node_id  # pytest 9 keeps a node's id as a NodeId in _id

            item._id = coerce_node_id(f"{item.parent.nodeid}::{item.name}")
    ids = [item.nodeid for item in items]
    if len(set(ids)) != len(ids):
        raise RuntimeError("two tests still share a node id: xdist would run only one of them")  # pytest changed
