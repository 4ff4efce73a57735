"""Pipeline tasks. Each unpacks ids, calls one service, and records the outcome.

A stage that raises leaves the run failed with the reason; a problem in one
user file never gets here (the engine turns it into a finding). Database and
broker hiccups are retried with backoff before a run is given up on.
"""
from __future__ import annotations

import logging

from celery import Task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import InterfaceError, OperationalError
from redis.exceptions import ConnectionError as RedisConnectionError

from .celery_app import app
from .children import killed_on_exit
from .deliveries import MAX_LOST, Delivery, delivery

log = logging.getLogger(__name__)

TRANSIENT = (OperationalError, InterfaceError, RedisConnectionError, ConnectionError)


class ReliableTask(Task):
    """Late ack, requeued if its worker dies, retried with backoff on database and broker hiccups."""

    abstract = True
    acks_late = True
    reject_on_worker_lost = True
    autoretry_for = TRANSIENT
    retry_backoff = 2
    retry_backoff_max = 60
    max_retries = 5


class StageTask(ReliableTask):
    """A pipeline stage; a failure leaves its run failed with the reason."""

    abstract = True
    stage = ""

    def __call__(self, *args, **kwargs):
        with delivery(self.request.id) as this:
            if this.lost >= MAX_LOST:
                self._give_up(_run_id(args, kwargs), this)
                return None  # acknowledged: not delivered again
            self.request.delivery = this
            # A revoked (terminated) stage must not leave its parity sandbox running.
            with killed_on_exit():
                return super().__call__(*args, **kwargs)

    def _give_up(self, run_id: int | None, this: Delivery) -> None:
        from porting_site.projects import services

        log.error("task %s lost its process %d times; failing run %s", self.request.id, this.lost, run_id)
        if run_id is not None and services.run_is_active(run_id):
            services.run_fail(run_id=run_id, stage=self.stage, reason=(
                f"the worker process running this stage died {this.lost} times (a crash in native code, or "
                "the process killed, e.g. for memory); it was not tried again. Upload again to retry, or "
                "report the files of this upload that may cause it."))

    def before_start(self, task_id, args, kwargs):
        # Recorded before the task looks at the run, so a cancel either sees this id or
        # lands before the task's own check of the run's status.
        from porting_site.projects import services

        run_id = _run_id(args, kwargs)
        if run_id is not None:
            services.stage_task_record(run_id=run_id, name=self.stage, task_id=task_id)

    def on_failure(self, exc, task_id, args, kwargs, einfo):
        # Reached when retries are exhausted or the error was not transient.
        from porting_site.projects import services

        run_id = _run_id(args, kwargs)
        if run_id is not None and services.run_is_active(run_id):
            services.run_fail(run_id=run_id, stage=self.stage, reason=_reason(exc))


def _run_id(args, kwargs) -> int | None:
    return kwargs.get("run_id") or (args[0] if args else None)


def _reason(exc: BaseException) -> str:
    from porting_site.projects.services import StageFailed

    if isinstance(exc, StageFailed):
        return str(exc)
    if isinstance(exc, SoftTimeLimitExceeded):
        return "the stage ran past its time limit"
    return f"{type(exc).__name__}: {exc}"


def _stage_task(stage: str, **options):
    return app.task(base=StageTask, bind=True, stage=stage, **options)


def _active(run_id: int, stage: str) -> bool:
    from porting_site.projects import services

    if services.run_is_active(run_id):
        return True
    log.info("run %s is no longer active; skipping %s", run_id, stage)
    return False


@_stage_task("unpack")
def unpack_run(self, run_id: int):
    """Unpack the upload, then replace this task with the rest of the pipeline."""
    from porting_site.projects import services

    from .pipeline import after_unpack

    if not _active(run_id, self.stage):
        return None
    batches = services.run_unpack(run_id=run_id)
    return self.replace(after_unpack(run_id, batches))


@_stage_task("analyze")
def analyze_batch(self, run_id: int, paths: list[str]):
    from porting_site.projects import services

    if _active(run_id, self.stage):
        this: Delivery = getattr(self.request, "delivery", None) or Delivery(path=None, lost=0)
        done = this.counted()  # files an earlier delivery of this batch stored and counted
        left = [p for p in paths if p not in done]
        # Files are analysed in order: after two lost deliveries, the first file not done is what kills it.
        crashed = set(left[:1]) if this.lost >= 2 else set()
        services.run_analyze_batch(run_id=run_id, paths=left, crashed=crashed, on_stored=this.count)


@_stage_task("analyze")
def analyze_done(self, _results=None, run_id: int | None = None):
    from porting_site.projects import services

    if _active(run_id, self.stage):
        services.run_analyze_finish(run_id=run_id)


@_stage_task("convert")
def convert_run(self, _previous=None, run_id: int | None = None):
    from porting_site.projects import services

    if _active(run_id, self.stage):
        services.run_convert(run_id=run_id)


@_stage_task("parity")
def run_parity(self, _previous=None, run_id: int | None = None):
    from porting_site.projects import services

    if _active(run_id, self.stage):
        services.run_parity(run_id=run_id)


@_stage_task("finalize")
def finalize_run(self, _previous=None, run_id: int | None = None):
    from porting_site.projects import services

    if _active(run_id, self.stage):
        services.run_finalize(run_id=run_id)
        warm_highlights.apply_async(kwargs={"run_id": run_id}, queue="analysis")


class RecheckTask(ReliableTask):
    """A knowledge-base re-check, left failed with the reason when it cannot finish."""

    abstract = True

    def on_failure(self, exc, task_id, args, kwargs, einfo):
        from porting_site.projects import kb

        recheck_id = kwargs.get("recheck_id") or (args[0] if args else None)
        if recheck_id is not None:
            kb.kb_recheck_fail(recheck_id=recheck_id, reason=_reason(exc))


@app.task(base=RecheckTask, ignore_result=True)
def kb_recheck_run(recheck_id: int):
    """Analyse a run's snapshot again with this worker's knowledge base (queued by a page or the API)."""
    from porting_site.projects import kb

    kb.kb_recheck_perform(recheck_id=recheck_id)


@app.task(ignore_result=True)
def warm_highlights(run_id: int):
    """After a run: pre-render its big files' highlighting so file pages open fast."""
    from porting_site.projects import services

    return services.run_warm_highlights(run_id=run_id)


@app.task
def fail_stuck_runs():
    """Periodic: a run with no stage activity for too long is marked failed."""
    from porting_site.projects import services

    return services.run_fail_stuck()
