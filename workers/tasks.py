"""Pipeline tasks. Each unpacks ids, calls one service, and records the outcome.

A stage that raises leaves the run failed with the reason; a problem in one
user file never gets here (the engine turns it into a finding).
"""
from __future__ import annotations

import logging

import django

django.setup()

from celery import chord  # noqa: E402
from celery.exceptions import SoftTimeLimitExceeded  # noqa: E402

from porting_site.projects import services  # noqa: E402
from porting_site.projects.models import Stage  # noqa: E402

from .celery_app import app  # noqa: E402

log = logging.getLogger(__name__)

TASK_OPTIONS = {"acks_late": True, "reject_on_worker_lost": True}


def _guarded(stage: str, run_id: int, work):
    """Run one stage's service; on failure mark the run failed and stop the chain."""
    if not services.run_is_active(run_id):
        log.info("run %s is no longer active; skipping %s", run_id, stage)
        return None
    try:
        return work()
    except services.StageFailed as exc:
        services.run_fail(run_id=run_id, stage=stage, reason=str(exc))
        raise
    except SoftTimeLimitExceeded:
        services.run_fail(run_id=run_id, stage=stage, reason="the stage ran past its time limit")
        raise
    except Exception as exc:
        log.exception("stage %s of run %s crashed", stage, run_id)
        services.run_fail(run_id=run_id, stage=stage, reason=f"{type(exc).__name__}: {exc}")
        raise


@app.task(bind=True, **TASK_OPTIONS)
def unpack_run(self, run_id: int):
    """Unpack the upload, then replace this task with the rest of the pipeline."""
    from .pipeline import after_unpack

    batches = _guarded(Stage.Name.UNPACK, run_id, lambda: services.run_unpack(run_id=run_id))
    if batches is None:
        return None
    return self.replace(after_unpack(run_id, batches))


@app.task(**TASK_OPTIONS)
def analyze_batch(run_id: int, paths: list[str]):
    _guarded(Stage.Name.ANALYZE, run_id, lambda: services.run_analyze_batch(run_id=run_id, paths=paths))


@app.task(**TASK_OPTIONS)
def analyze_done(_results=None, run_id: int | None = None):
    _guarded(Stage.Name.ANALYZE, run_id, lambda: services.run_analyze_finish(run_id=run_id))


@app.task(**TASK_OPTIONS)
def convert_run(_previous=None, run_id: int | None = None):
    _guarded(Stage.Name.CONVERT, run_id, lambda: services.run_convert(run_id=run_id))


@app.task(**TASK_OPTIONS)
def run_parity(_previous=None, run_id: int | None = None):
    _guarded(Stage.Name.PARITY, run_id, lambda: services.run_parity(run_id=run_id))


@app.task(**TASK_OPTIONS)
def finalize_run(_previous=None, run_id: int | None = None):
    _guarded(Stage.Name.FINALIZE, run_id, lambda: services.run_finalize(run_id=run_id))


__all__ = ["unpack_run", "analyze_batch", "analyze_done", "convert_run", "run_parity", "finalize_run", "chord"]
