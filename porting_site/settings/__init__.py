"""Settings for development, tests and the embedded default.

Everything that differs between deployments comes from the environment, read
here and only here. Without REDIS_URL / DATABASE_URL the project runs on
SQLite with an SQLite-backed Celery broker, so nothing needs installing.
porting_site.settings.production hardens this for a real deployment.
"""
from __future__ import annotations

import os
import warnings
from pathlib import Path

import dj_database_url

from porting_site.lib.env import envbool, envint, envlist, envstr
from porting_site.lib.plotly_static import PREFIX as PLOTLY_PREFIX
from porting_site.lib.plotly_static import plotly_static_dir

BASE_DIR = Path(__file__).resolve().parents[2]
VAR_DIR = Path(envstr("PORTING_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = envbool("DJANGO_DEBUG", True)
SECRET_KEY = envstr("DJANGO_SECRET_KEY", "dev-only-insecure-key-change-me")
ALLOWED_HOSTS = envlist("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
CSRF_TRUSTED_ORIGINS = envlist("DJANGO_CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",  # runserver too serves static files through WhiteNoise (compressed, cached)
    "django.contrib.staticfiles",
    "porting_site.accounts",
    "porting_site.projects",
    # REST API, quality gate (see the "REST API" block below)
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served from the package: no CDN
    "porting_site.api",
    "porting_site.gates",
    "porting_site.triage",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "porting_site.urls"
WSGI_APPLICATION = "porting_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        envstr("DATABASE_URL", f"sqlite:///{VAR_DIR / 'porting.sqlite3'}"), conn_max_age=60
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # The worker and the web server write concurrently; wait instead of failing.
    DATABASES["default"]["OPTIONS"] = {"timeout": 30}
    DATABASES["default"]["CONN_MAX_AGE"] = 0
else:
    # One test database per test process, so parallel test runs on a shared
    # PostgreSQL (developers, CI) never fight over "test_<name>".
    DATABASES["default"]["TEST"] = {"NAME": f"test_{DATABASES['default']['NAME']}_{os.getpid()}"}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "projects:list"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# plotly.min.js comes from the pinned plotly package (no CDN, no vendored copy), copied
# with a gzip twin under a folder named after its version (porting_site/lib/plotly_static.py).
STATICFILES_DIRS = [BASE_DIR / "porting_site" / "static", (PLOTLY_PREFIX, plotly_static_dir(VAR_DIR))]
# WhiteNoise serves static files in every setting: the embedded default and runserver read
# them through the finders (no collectstatic); production from STATIC_ROOT with hashed names.
WHITENOISE_USE_FINDERS = True
# Before collectstatic (development, tests) STATIC_ROOT does not exist; the finders serve everything.
warnings.filterwarnings("ignore", message="No directory at: ")
# The versioned plotly folder never changes under its URL: browsers keep it for a year.
WHITENOISE_IMMUTABLE_FILE_TEST = r"^/?static/plotly-[0-9][^/]*/"
MEDIA_ROOT = VAR_DIR / "media"
MEDIA_URL = "media/"
# Uploads above this size are streamed to disk rather than held in memory.
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_HANDLERS = [
    "porting_site.projects.upload_handlers.SizeLimitUploadHandler",  # stops oversized uploads mid-stream
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]

# --- uploads and archives --------------------------------------------------------
PORTING_MAX_UPLOAD_BYTES = envint("PORTING_MAX_UPLOAD_BYTES", 200 * 1024 * 1024)
PORTING_MAX_UNPACKED_BYTES = envint("PORTING_MAX_UNPACKED_BYTES", 1024 * 1024 * 1024)
PORTING_MAX_FILES = envint("PORTING_MAX_FILES", 50_000)
PORTING_MAX_COMPRESSION_RATIO = envint("PORTING_MAX_COMPRESSION_RATIO", 200)
PORTING_RUNS_DIR = VAR_DIR / "runs"
# What one team may hold on the host's disk: stored archives, unpacked source, converted trees and
# parity checkpoints, measured from disk (porting_site/projects/quota.py). Uploads and checkpoint
# copy-outs that would go past it are refused with the reason.
PORTING_TEAM_DISK_BYTES = envint("PORTING_TEAM_DISK_BYTES", 20 * 1024 * 1024 * 1024)

# --- pipeline ----------------------------------------------------------------------
PORTING_ANALYSIS_BATCH_FILES = envint("PORTING_ANALYSIS_BATCH_FILES", 200)
PORTING_PARITY_TIMEOUT_S = envint("PORTING_PARITY_TIMEOUT_S", 600)
PORTING_PARITY_MEMORY_MB = envint("PORTING_PARITY_MEMORY_MB", 6144)
PORTING_PARITY_LOSS_STEPS = envint("PORTING_PARITY_LOSS_STEPS", 20)
# How often a running parity stage asks the database whether its run was cancelled: the
# path that works whatever the broker (a revoke needs one that broadcasts).
PORTING_PARITY_CANCEL_POLL_S = envint("PORTING_PARITY_CANCEL_POLL_S", 1)
# Declared dependencies of an upload, wheels only, in cached read-only layers the parity
# box mounts (analysis/parity/dependencies.py). Off unless the site opts in by setting
# PORTING_DEPS_CACHE (a folder): otherwise an upload's requirements.txt would make the
# worker fetch from PyPI. PORTING_DEPS_WHEELHOUSE for offline sites, PORTING_DEPS_ALLOW /
# _DENY (names, comma-separated), PORTING_DEPS_MAX_MB (all wheels of one project).
PORTING_DEPS_CACHE = envstr("PORTING_DEPS_CACHE", "")

# --- REST API (porting_site.api, porting_site.gates) --------------------------------
# Token (CI) and session (browser) auth; every lookup is team-scoped in the
# selectors, so another team's objects are 404 and anonymous requests 401.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "porting_site.api.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "porting_site.api.pagination.Pagination",
    "PAGE_SIZE": 100,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "PyTorch → MindSpore porting API",
    "DESCRIPTION": "Upload repositories from CI, follow runs, fetch findings, reports and the quality gate.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "RunStatusEnum": "porting_site.projects.models.Run.Status",
        "ParityStatusEnum": "porting_site.projects.models.ParityResult.Status",
    },
}
PORTING_API_TOKEN_TOUCH_SECONDS = 60  # how often a token's last_used_at is written

from .celery import *  # noqa: E402,F401,F403  (Celery settings live in their own module)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": envstr("LOG_LEVEL", "INFO")},
}
