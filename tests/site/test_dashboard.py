"""The dashboard pages on a finished run with realistic results."""
from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from porting_site.projects.models import Finding, Run
from tests import factories
from tests.site import data

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice_run(settings, tmp_path, client):
    data.use_tmp_storage(settings, tmp_path)
    team, alice = factories.team_with_member("Team A", "alice")
    project = factories.project(team, "Detector")
    run = data.finished_run(project, alice)
    client.login(username="alice", password=factories.PASSWORD)
    return run


def _figure(html: str, figure_id: str) -> dict:
    match = re.search(rf'<script id="{figure_id}" type="application/json">(.*?)</script>', html, re.S)
    assert match, f"figure {figure_id} missing"
    return json.loads(match.group(1))


def test_every_page_renders_for_a_member(client, alice_run):
    project = alice_run.project
    source = alice_run.files.get()
    parity = alice_run.parity_results.get()
    urls = [
        reverse("projects:list"),
        reverse("projects:detail", args=[project.team.slug, project.slug]),
        reverse("projects:run", args=[alice_run.pk]),
        reverse("projects:files", args=[alice_run.pk]),
        reverse("projects:file", args=[alice_run.pk, source.pk]),
        reverse("projects:file", args=[alice_run.pk, source.pk]) + "?view=diff",
        reverse("projects:parity", args=[alice_run.pk, parity.pk]),
        reverse("projects:rules"),
        reverse("projects:compare", args=[project.team.slug, project.slug]),
    ]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, (url, response.content[:3000])
