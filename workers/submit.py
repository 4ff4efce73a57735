"""What the site asks of the workers: start() queues a job's first task, revoke() stops tasks.

The tasks module is imported when a job is queued, not before: it imports the services it calls, and
the services call start(), so an import at the top would close a circle."""
from __future__ import annotations

import logging

log = logging.getLogger(__name__)

# job -> (its first task, in workers.tasks; the keyword argument the id goes in)
JOBS = {
    "run": ("unpack_run", "run_id"),  # unpack -> analyze -> convert -> parity -> finalize (pipeline.py)
    "kb_recheck": ("kb_recheck_run", "recheck_id"),
}


def start(job: str, object_id: int) -> None:
    """Queue job for the object (a run, a knowledge-base re-check) on the static-work queue."""
    from . import tasks

    name, keyword = JOBS[job]
    task = getattr(tasks, name)
    if job == "run":
        task.apply_async(args=[object_id], queue="analysis")
    else:
        task.apply_async(kwargs={keyword: object_id}, queue="analysis")


def revoke(task_ids: list[str]) -> None:
    """Stop these tasks: dropped if still queued, their pool process sent SIGTERM if running.

    A broker that cannot broadcast (the embedded SQLite one) or is down leaves
    the tasks running; the run is cancelled anyway, the parity stage sees it
    within a second and kills its sandbox, and later stages skip.
    """
    from .celery_app import app

    if not task_ids:
        return
    try:
        app.control.revoke(list(task_ids), terminate=True, signal="SIGTERM")
    except Exception:  # noqa: BLE001 - cancelling must not fail because the broker did
        log.warning("could not revoke tasks %s", task_ids, exc_info=True)
