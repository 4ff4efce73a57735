"""The upload form, the project settings form and the API accept the same MindSpore versions,
through one validator, with the same message."""
from __future__ import annotations

import pytest
from django.urls import reverse

from porting_site.projects.forms import ProjectSettingsForm, UploadForm
from porting_site.projects.models import Run
from tests import factories

pytestmark = pytest.mark.django_db

BAD = ["latest", "2", "2.x", "2.10; rm", "v2.4", "2.4.1.1"]
GOOD = ["2.10", "2.4", "2.4.1"]
MESSAGE = "Enter a MindSpore version number such as 2.10 or 2.4.1."


def _upload_form(version: str) -> UploadForm:
    return UploadForm(data={"target": "classic", "ms_version": version, "device": "cpu"},
                      files={"archive": factories.upload("a.zip", factories.zip_of({"a.py": b"x = 1\n"}))})


@pytest.mark.parametrize("version", BAD)
def test_forms_refuse_what_the_api_refuses(version):
    form = _upload_form(version)
    assert not form.is_valid() and form.errors["ms_version"] == [MESSAGE]
    settings_form = ProjectSettingsForm(data={"description": "", "target": "classic", "ms_version": version,
                                              "device": "cpu"})
    assert not settings_form.is_valid() and settings_form.errors["ms_version"] == [MESSAGE]


@pytest.mark.parametrize("version", GOOD)
def test_forms_accept_release_numbers(version):
    assert _upload_form(version).is_valid()


def test_the_page_and_the_api_give_the_same_answer(client, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    team, alice = factories.team_with_member("Versions", "alice")
    project = factories.project(team, "Net")
    assert client.login(username="alice", password=factories.PASSWORD)
    page = client.post(reverse("projects:detail", args=[team.slug, project.slug]),
                       {"archive": factories.upload("a.zip", factories.zip_of({"a.py": b"x = 1\n"})),
                        "target": "classic", "ms_version": "latest", "device": "cpu"})
    assert page.status_code == 200 and MESSAGE.encode() in page.content
    api = client.post(reverse("api:project-runs", args=[project.pk]),
                      {"archive": factories.upload("a.zip", factories.zip_of({"a.py": b"x = 1\n"})),
                       "ms_version": "latest"})
    assert api.status_code == 400 and MESSAGE in str(api.json())
    assert Run.objects.filter(project=project).count() == 0
