"""Every endpoint: members get it, another team's token gets 404, anonymous 401."""
from __future__ import annotations

import pytest
from django.urls import reverse

from .conftest import client_for

pytestmark = pytest.mark.django_db


def object_urls(world) -> list[str]:
    run, project = world.run, world.project
    source = run.files.get(path="pkg/net.py")
    return [
        reverse("api:project", args=[project.pk]),
        reverse("api:project-gate", args=[project.pk]),
        reverse("api:project-runs", args=[project.pk]),
        reverse("api:run", args=[run.pk]),
        reverse("api:run-gate", args=[run.pk]),
        reverse("api:run-findings", args=[run.pk]),
        reverse("api:run-files", args=[run.pk]),
        reverse("api:run-file", args=[run.pk, source.pk]),
        reverse("api:run-converted-zip", args=[run.pk]),
        reverse("api:run-parity", args=[run.pk]),
        reverse("api:run-sarif", args=[run.pk]),
        reverse("api:run-junit", args=[run.pk]),
        reverse("api:run-report", args=[run.pk]),
    ]


def test_members_read_every_endpoint(world):
    for username in ("alice", "bob"):
        client = client_for(world, username)
        for url in object_urls(world) + [reverse("api:projects"), reverse("api:tokens")]:
            assert client.get(url).status_code == 200, (username, url)


def test_another_teams_token_gets_404_everywhere(world):
    client = client_for(world, "mallory")
    for url in object_urls(world):
        assert client.get(url).status_code == 404, url
    writes = [
        ("post", reverse("api:run-cancel", args=[world.run.pk])),
        ("put", reverse("api:project-gate", args=[world.project.pk])),
        ("post", reverse("api:project-runs", args=[world.project.pk])),
    ]
    for method, url in writes:
        assert getattr(client, method)(url, {}, format="json").status_code == 404, url
    assert client.get(reverse("api:projects")).json()["results"] == []
    response = client.post(reverse("api:projects"), {"team": world.team.slug, "name": "Intruder"}, format="json")
    assert response.status_code == 404


def test_anonymous_and_bad_tokens_get_401(world):
    urls = object_urls(world) + [reverse("api:projects"), reverse("api:tokens")]
    for client in (client_for(None, None), _with_key("pt_not-a-real-key")):
        for url in urls:
            response = client.get(url)
            assert response.status_code == 401, url
            assert response["WWW-Authenticate"].startswith("Token")
        assert client.post(reverse("api:run-cancel", args=[world.run.pk])).status_code == 401


def test_session_auth_works_like_the_browser(world, client):
    client.login(username="bob", password="a-long-test-password")
    assert client.get(reverse("api:run", args=[world.run.pk])).status_code == 200
    client.logout()
    client.login(username="mallory", password="a-long-test-password")
    assert client.get(reverse("api:run", args=[world.run.pk])).status_code == 404


def test_schema_and_docs_are_served(world):
    client = client_for(world, "bob")
    schema = client.get(reverse("api:schema"), HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert "/api/runs/{run_id}/findings/" in paths and "/api/projects/{project_id}/runs/" in paths
    assert "application/gzip" in paths["/api/projects/{project_id}/runs/"]["post"]["requestBody"]["content"]
    docs = client.get(reverse("api:docs"))
    assert docs.status_code == 200
    assert b"/static/drf_spectacular_sidecar/swagger-ui-dist/" in docs.content and b"cdn." not in docs.content
    # The schema is public (it describes the API, not anyone's data); the data behind it is not.
    anonymous = client_for(None, None)
    assert anonymous.get(reverse("api:schema")).status_code == 200


def _with_key(key: str):
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client
