"""The shape of a run's pipeline: unpack → analyze (fan-out) → convert → parity → finalize.

Static work goes to the "analysis" queue; parity goes to the device queue the
run asked for (parity.cpu / parity.gpu / parity.ascend), where a worker on the
matching machine picks it up.
"""
from __future__ import annotations

import logging

from celery import chain, chord
from django.conf import settings

log = logging.getLogger(__name__)


def parity_queue(device: str) -> str:
    return settings.PARITY_QUEUES.get(device, settings.PARITY_QUEUES["cpu"])


def pipeline_start(run_id: int) -> None:
    from .tasks import unpack_run

    unpack_run.apply_async(args=[run_id], queue="analysis")


def kb_recheck_enqueue(recheck_id: int) -> None:
    from .tasks import kb_recheck_run

    kb_recheck_run.apply_async(kwargs={"recheck_id": recheck_id}, queue="analysis")


def tasks_revoke(task_ids: list[str]) -> None:
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


def after_unpack(run_id: int, batches: list[list[str]]):
    """Everything after unpacking, as one Celery canvas."""
    from porting_site.projects.models import Run

    from .tasks import analyze_batch, analyze_done, convert_run, finalize_run, run_parity

    device = Run.objects.values_list("device", flat=True).get(pk=run_id)
    done = analyze_done.si(run_id=run_id).set(queue="analysis")
    if batches:
        analysis = chord([analyze_batch.si(run_id, paths).set(queue="analysis") for paths in batches], done)
    else:
        analysis = done
    return chain(
        analysis,
        convert_run.si(run_id=run_id).set(queue="analysis"),
        run_parity.si(run_id=run_id).set(queue=parity_queue(device)),
        finalize_run.si(run_id=run_id).set(queue="analysis"),
    )
