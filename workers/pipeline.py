"""The shape of a run's pipeline: unpack → analyze (fan-out) → convert → parity → finalize.

Static work goes to the "analysis" queue; parity goes to the device queue the
run asked for (parity.cpu / parity.gpu / parity.ascend), where a worker on the
matching machine picks it up.
"""
from __future__ import annotations

from celery import chain, chord
from django.conf import settings


def parity_queue(device: str) -> str:
    return settings.PARITY_QUEUES.get(device, settings.PARITY_QUEUES["cpu"])


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
