"""Hardened settings for a real deployment (docker-compose uses these)."""
from __future__ import annotations

import os

from porting_site.lib.env import envbool, envint

from . import *  # noqa: E402,F401,F403

if not os.environ.get("DJANGO_SECRET_KEY"):
    raise RuntimeError("DJANGO_SECRET_KEY must be set in production")
SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]
DEBUG = False
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
SECURE_SSL_REDIRECT = envbool("DJANGO_SECURE_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = envint("DJANGO_HSTS_SECONDS", 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = envbool("DJANGO_HSTS_PRELOAD", False)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Static files (CSS, JS, plotly.min.js) are served by the app itself via WhiteNoise.
# (The middleware is in the base settings.) Hashed names are cached for a year; the finders are
# not needed once collectstatic ran.
WHITENOISE_USE_FINDERS = False
WHITENOISE_IMMUTABLE_FILE_TEST = None
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
