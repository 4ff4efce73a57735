"""Management commands that forward to the engine's CLI modules (analysis/cli/).

The engine owns argument parsing and behaviour, so `python manage.py analyze`
and `python -m analysis.cli.analyze` are the same program; these wrappers only
make the commands available next to runserver and migrate.
"""
from __future__ import annotations

import importlib

from django.core.management.base import BaseCommand, CommandError


class EngineCommand(BaseCommand):
    engine_module = ""  # e.g. "analysis.cli.analyze"
    requires_system_checks: list = []
    requires_migrations_checks = False

    def _engine(self):
        return importlib.import_module(self.engine_module)

    def add_arguments(self, parser):
        self._engine().add_arguments(parser)

    def handle(self, *args, **options):
        status = self._engine().run(options, self.stdout)
        if status:
            raise CommandError(f"{self.engine_module.rsplit('.', 1)[-1]} exited with status {status}", returncode=status)
