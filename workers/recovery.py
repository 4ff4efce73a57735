"""Give back to the queue the tasks of a worker that was killed outright.

With late acks on Redis, a delivered task stays in the broker's `unacked`
hash until it is acknowledged. When the whole worker is SIGKILLed (OOM
killer, `docker kill`, a host reboot), nothing acknowledges or rejects it, and
kombu only puts it back once the visibility timeout has passed: over half an
hour here, since the timeout must stay above the longest parity task, or a
healthy long task would be delivered a second time.

So workers look for orphans themselves, when they start and then every
PORTING_ORPHAN_CHECK_S seconds: an unacknowledged message older than
ORPHAN_MIN_AGE_S whose task no live worker reports (active, reserved or
scheduled, through Celery's remote control) and whose delivery is not running
on this host (workers/deliveries.py) is pushed back to its queue, through
kombu's own restore (a Redis transaction, so two workers never restore it
twice). The redelivered stage is idempotent; its progress is not counted
twice (deliveries.py), and the lost delivery counts towards MAX_LOST.

The embedded SQLite broker has no unacked hash; nothing to do there.
"""
from __future__ import annotations

import json
import logging
import threading
import time

from porting_site.lib.env import envint

from .deliveries import _safe_id, is_alive, ledger_dir, read_entries

log = logging.getLogger(__name__)

ORPHAN_MIN_AGE_S = envint("PORTING_ORPHAN_MIN_AGE_S", 10)
CHECK_EVERY_S = envint("PORTING_ORPHAN_CHECK_S", 30)
INSPECT_TIMEOUT_S = 3.0


def live_task_ids(app) -> set[str] | None:
    """Ids of the tasks every worker that answers holds; None when no worker answers (not even this one).

    The replies are read on a connection of its own, not one of the app's pool: a pool process forked while
    this thread waits on a pooled connection closes it after the fork (kombu's after-fork cleanup), blocks
    reading the parent's reply there and never reports ready (the pool then stops starting processes)."""
    ids: set[str] = set()
    answered = False
    with app.connection_for_read() as connection:
        inspect = app.control.inspect(timeout=INSPECT_TIMEOUT_S, connection=connection)
        for method in (inspect.active, inspect.reserved, inspect.scheduled):
            replies = method() or {}
            answered = answered or bool(replies)
            for tasks in replies.values():
                for task in tasks or []:
                    task_id = task.get("id") or (task.get("request") or {}).get("id")
                    if task_id:
                        ids.add(task_id)
    return ids if answered else None


def _running_here(task_id: str) -> bool:
    entries = read_entries(ledger_dir() / _safe_id(task_id))
    return bool(entries) and is_alive(entries[-1]) is True


def restore_orphans(app, min_age_s: float = ORPHAN_MIN_AGE_S) -> list[str]:
    """Put orphaned unacknowledged tasks back on their queues; returns their task ids."""
    if not str(app.conf.broker_url or "").startswith(("redis://", "rediss://")):
        return []
    live = live_task_ids(app)
    if live is None:
        return []  # the remote control is not answering: better late (visibility timeout) than twice
    restored = []
    with app.connection_for_write() as connection:
        channel = connection.default_channel
        client = channel.client
        ceil = time.time() - min_age_s
        for tag in client.zrangebyscore(channel.unacked_index_key, 0, ceil):
            raw = client.hget(channel.unacked_key, tag)
            if not raw:
                continue
            try:
                payload = json.loads(raw)[0]
                task_id = payload["headers"]["id"]
            except (ValueError, KeyError, IndexError, TypeError):
                continue
            if task_id in live or _running_here(task_id):
                continue
            channel.qos.restore_by_tag(tag, client)
            restored.append(task_id)
    if restored:
        log.warning("restored %d task(s) whose worker is gone: %s", len(restored), ", ".join(restored))
    return restored


def watch(app) -> threading.Thread:
    """In a worker's main process: check now (after the worker is ready), then periodically."""

    def loop():
        time.sleep(2)  # let this worker's remote control start answering
        while True:
            try:
                restore_orphans(app)
            except Exception:  # noqa: BLE001 - a broker hiccup must not end the watch
                log.warning("orphaned-task check failed", exc_info=True)
            time.sleep(CHECK_EVERY_S)

    thread = threading.Thread(target=loop, name="orphan-watch", daemon=True)
    thread.start()
    return thread
