"""The Celery application, configured from Django settings (CELERY_* names).

Start a worker for static work:   celery -A workers worker -Q analysis
and one per device queue:          celery -A workers worker -Q parity.cpu   (or parity.gpu, parity.ascend)
"""
from __future__ import annotations

import faulthandler
import os
import signal

from celery import Celery
from celery.signals import worker_init, worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "porting_site.settings")

app = Celery("porting")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["workers"], related_name="tasks")


@worker_init.connect
def _stacks_on_sigusr2(**_):
    """`kill -USR2` on a worker's process group writes every thread's stack of each process to its log:
    how to see where a wedged worker or pool process waits. Registered before the pool forks, so its
    processes inherit it (Celery resets SIGUSR1 in them, not SIGUSR2)."""
    faulthandler.register(signal.SIGUSR2, all_threads=True)


@worker_ready.connect
def _watch_for_orphans(sender=None, **_):
    """Tasks of a worker killed outright go back to the queue within a minute of a worker running."""
    from .recovery import watch

    watch(sender.app)
