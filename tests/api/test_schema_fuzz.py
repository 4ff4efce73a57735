"""A bounded schemathesis run: every operation of the OpenAPI schema, fuzzed with
a member's token against real objects, must never answer with a server error.

The same check against a running server (command for the README):
    st run http://127.0.0.1:8000/api/schema/ -H "Authorization: Token $PORTING_TOKEN" \\
        --checks not_a_server_error --max-examples 50
"""
from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

pytestmark = [pytest.mark.django_db, pytest.mark.slow]  # ~70 s: 21 operations x 4 examples


from porting_site.wsgi import application  # noqa: E402  (pytest-django configured Django already)

# The schema is public (no database access), so it can be loaded at collection time.
schema = schemathesis.openapi.from_wsgi("/api/schema/", application)


@schemathesis.serializer("application/gzip")
def _raw_archive(ctx, value) -> bytes:
    # Raw uploads: whatever bytes the generator drew (the server must answer 400, never 500).
    return value if isinstance(value, (bytes, bytearray)) else str(value).encode()


@pytest.fixture
def keep_test_connection():
    """Like Django's test client: the WSGI handler must not close the test's transaction."""
    from django.core import signals
    from django.db import close_old_connections

    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_no_server_errors(case, world, keep_test_connection):
    # Point ids at real objects so the fuzzed query strings and bodies reach the real code paths.
    real = {"run_id": world.run.pk, "project_id": world.project.pk,
            "file_id": world.run.files.get(path="pkg/net.py").pk}
    for name, value in real.items():
        if case.path_parameters and name in case.path_parameters:
            case.path_parameters[name] = value
    case.call_and_validate(headers={"Authorization": f"Token {world.tokens['alice']}"}, checks=[not_a_server_error])
