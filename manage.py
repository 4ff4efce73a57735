#!/usr/bin/env python
"""Django's command-line utility: runserver, migrate, and the engine's commands
(analyze, convert, parity, rules) that need no server."""
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "porting_site.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
