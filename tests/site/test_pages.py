"""Pages render for members and stay invisible to everyone else."""
from __future__ import annotations

import pytest
from django.urls import reverse

from porting_site.projects.models import Finding, Run, SourceFile, Stage
from porting_site.projects.services import run_create
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def run_of_team_a(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PORTING_RUNS_DIR = tmp_path / "runs"
    team, alice = factories.team_with_member("Team A", "alice")
    project = factories.project(team, "Detector")
    archive = factories.upload("repo.zip", factories.zip_of({"repo/net.py": b"import torch\nx = torch.abs(y)\n"}))
    run = run_create(project=project, archive=archive, user=alice, enqueue=False)
    source = SourceFile.objects.create(run=run, path="repo/net.py", sha256="0" * 64, lines=2)
    (tmp_path / "runs" / str(run.pk) / "src" / "repo").mkdir(parents=True)
    (tmp_path / "runs" / str(run.pk) / "src" / "repo" / "net.py").write_text("import torch\nx = torch.abs(y)\n")
    Finding.objects.create(run=run, file=source, line=2, column=4, rule_id="MS-API-MAPPED", severity="info",
                           torch_api="torch.abs", mindspore_api="mindspore.ops.abs", message="maps to ops.abs")
    return run


def pages(run: Run) -> list[str]:
    project = run.project
    source = run.files.get()
    return [
        reverse("projects:detail", args=[project.team.slug, project.slug]),
        reverse("projects:run", args=[run.pk]),
        reverse("projects:run-progress", args=[run.pk]),
        reverse("projects:files", args=[run.pk]),
        reverse("projects:file", args=[run.pk, source.pk]),
    ]


def test_anonymous_users_are_sent_to_login(client, run_of_team_a):
    for url in pages(run_of_team_a) + [reverse("projects:list")]:
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/login/"), url


def test_another_teams_member_gets_404_everywhere(client, run_of_team_a):
    factories.team_with_member("Team B", "mallory")
    client.login(username="mallory", password=factories.PASSWORD)
    for url in pages(run_of_team_a):
        assert client.get(url).status_code == 404, url
    assert b"Detector" not in client.get(reverse("projects:list")).content


def test_member_sees_the_finding_at_its_line(client, run_of_team_a):
    client.login(username="alice", password=factories.PASSWORD)
    for url in pages(run_of_team_a):
        assert client.get(url).status_code == 200, url
    source = run_of_team_a.files.get()
    html = client.get(reverse("projects:file", args=[run_of_team_a.pk, source.pk])).content.decode()
    line_two = html.split('id="L2"', 1)[1].split('id="L3"', 1)[0]
    assert "MS-API-MAPPED" in line_two and "mindspore.ops.abs" in line_two


def test_progress_json_lists_every_stage_in_order(client, run_of_team_a):
    client.login(username="alice", password=factories.PASSWORD)
    data = client.get(reverse("projects:run-progress", args=[run_of_team_a.pk])).json()
    assert [s["name"] for s in data["stages"]] == [str(n) for n in Stage.ORDER]
    assert data["status"] == "queued" and data["finished"] is False


def test_upload_rejects_files_that_are_not_archives(client, run_of_team_a):
    client.login(username="alice", password=factories.PASSWORD)
    project = run_of_team_a.project
    response = client.post(
        reverse("projects:detail", args=[project.team.slug, project.slug]),
        {"archive": factories.upload("notes.txt", b"hello"), "target": "classic", "ms_version": "2.4",
         "device": "cpu"},
    )
    assert response.status_code == 200
    assert b"Upload a .zip, .tar.gz" in response.content
    assert project.runs.count() == 1


def test_run_numbers_increase_per_project(run_of_team_a):
    second = run_create(project=run_of_team_a.project, archive=factories.upload("b.zip", b"PK"), enqueue=False)
    assert (run_of_team_a.number, second.number) == (1, 2)
    assert second.stages.count() == len(Stage.ORDER)
