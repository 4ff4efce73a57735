"""Celery app and tasks: thin wrappers that call porting_site services."""
from .celery_app import app

__all__ = ["app"]
