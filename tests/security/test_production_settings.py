"""Production settings: Django's deploy checks pass (bar the per-domain HSTS
preload decision), secrets come only from the environment, DEBUG is off."""
from __future__ import annotations

import os
import re
import subprocess
import sys

from tests.conftest import REPO_ROOT


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    environment.update(DJANGO_SETTINGS_MODULE="porting_site.settings.production", **env)
    return subprocess.run([sys.executable, "manage.py", *args], cwd=REPO_ROOT, env=environment,
                          capture_output=True, text=True, timeout=120)


def test_deploy_checks_report_nothing_but_the_hsts_preload_choice():
    result = manage("check", "--deploy", DJANGO_SECRET_KEY="x" * 60 + "-a-real-looking-secret-key",
                    DJANGO_ALLOWED_HOSTS="porting.example.com")
    issues = set(re.findall(r"\((\w+\.[WE]\d+)\)", result.stdout + result.stderr))
    assert issues <= {"security.W021"}, result.stdout + result.stderr


def test_production_refuses_to_start_without_a_secret_key():
    result = manage("check")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set in production" in result.stderr


def test_production_flags():
    code = ("from django.conf import settings as s; "
            "print(s.DEBUG, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT)")
    result = manage("shell", "-v", "0", "-c", code, DJANGO_SECRET_KEY="k" * 60, DJANGO_DEBUG="1")
    assert result.stdout.split() == ["False", "True", "True", "True"], result.stderr
