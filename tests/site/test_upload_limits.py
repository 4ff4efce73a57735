"""The upload size limit holds while the request streams: the file is not stored
and the user gets a message naming the limit, in the browser and the API."""
from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from porting_site.api.tokens import token_create
from porting_site.projects.models import Run
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def project(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PORTING_MAX_UPLOAD_BYTES = 64 * 1024
    team, _ = factories.team_with_member("Team", "alice")
    return factories.project(team)


def big_zip() -> bytes:
    import os

    return factories.zip_of({"repo/blob.bin": os.urandom(200 * 1024)})  # incompressible: 200 KiB


def test_oversized_browser_upload_is_refused_with_the_limit(client, project, tmp_path):
    client.login(username="alice", password=factories.PASSWORD)
    response = client.post(reverse("projects:detail", args=[project.team.slug, project.slug]),
                           {"archive": factories.upload("big.zip", big_zip()), "target": "classic",
                            "ms_version": "2.4", "device": "cpu"})
    assert response.status_code == 200
    assert b"The upload is larger than the 0.0625 MiB limit." in response.content
    assert Run.objects.count() == 0
    assert not (tmp_path / "media").exists() or not any((tmp_path / "media").rglob("*.zip"))


def test_oversized_api_upload_gets_413(project):
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=project.team.members.get())[1]}")
    response = api.post(reverse("api:project-runs", args=[project.pk]),
                        {"archive": factories.upload("big.zip", big_zip())}, format="multipart")
    assert response.status_code == 413
    assert response.json()["archive"] == ["The upload is larger than the 0.0625 MiB limit."]
    assert Run.objects.count() == 0


def test_upload_under_the_limit_is_accepted(client, project):
    client.login(username="alice", password=factories.PASSWORD)
    small = factories.zip_of({"repo/a.py": b"import torch\n"})
    response = client.post(reverse("projects:detail", args=[project.team.slug, project.slug]),
                           {"archive": factories.upload("small.zip", small), "target": "classic",
                            "ms_version": "2.4", "device": "cpu"})
    assert response.status_code == 302
    assert Run.objects.count() == 1
