"""Celery app and tasks: thin wrappers that call porting_site services.

porting_site reaches the workers through start() and revoke() only (submit.py); the tasks import the
services they call inside their bodies, so importing either package imports nothing of the other."""
from .celery_app import app
from .submit import revoke, start

__all__ = ["app", "revoke", "start"]
