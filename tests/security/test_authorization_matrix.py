"""Who may see and do what: every page and API endpoint against anonymous, a
member, a team admin, a member of another team and a site admin.

Team data is visible to the team's members only. A site admin manages teams in
Django's admin and sees a team's projects once they add themselves to it; they
get the same 404 as any outsider, which never confirms that an object exists.
Every URL the project serves must appear here: a new endpoint fails this test
until someone decides who may use it.
"""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.test import APIClient

from porting_site.accounts.models import Membership
from porting_site.accounts.services import membership_add
from porting_site.api.tokens import token_create
from porting_site.projects import storage
from porting_site.projects.models import Project, Run
from tests import factories
from tests.site import data

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "member", "admin", "outsider", "site_admin")
# URL names served without login, and the Django admin (which has its own staff checks).
PUBLIC = {"login", "logout", "api:schema", "api:docs", "api:client-script"}
# Pages and endpoints any logged-in user may open; they only ever list the user's own data.
PERSONAL = {"projects:list", "projects:rules", "api:projects", "api:tokens", "api:token-page"}


def all_url_names() -> set[str]:
    names: set[str] = set()

    def walk(resolver: URLResolver, namespace: str):
        for entry in resolver.url_patterns:
            if isinstance(entry, URLResolver):
                if entry.namespace == "admin":
                    continue
                walk(entry, f"{namespace}{entry.namespace}:" if entry.namespace else namespace)
            elif isinstance(entry, URLPattern) and entry.name:
                names.add(namespace + entry.name)

    walk(get_resolver(), "")
    return names


@pytest.fixture
def world(settings, tmp_path):
    data.use_tmp_storage(settings, tmp_path)
    team, admin = factories.team_with_member("Team A", "admin_a", role=Membership.Role.ADMIN)
    member = factories.user("member_a")
    membership_add(team=team, user=member, role=Membership.Role.MEMBER)
    factories.team_with_member("Team B", "outsider")
    site_admin = get_user_model().objects.create_superuser("root", password=factories.PASSWORD)
    project = factories.project(team, "Detector")
    run = data.finished_run(project, admin)
    result = run.parity_results.get()
    result.details = {**result.details, "checkpoint": "models.lenet.LeNet.ckpt"}
    result.save()
    storage.checkpoint_dir(run.pk).mkdir(parents=True)
    (storage.checkpoint_dir(run.pk) / "models.lenet.LeNet.ckpt").write_bytes(b"ckpt")
    users = {"member": member, "admin": admin, "outsider": get_user_model().objects.get(username="outsider"),
             "site_admin": site_admin}
    return {"team": team, "project": project, "run": run, "users": users}


def team_urls(world) -> dict[str, str]:
    """Every URL that shows or changes team data, by name (reads with GET)."""
    project, run = world["project"], world["run"]
    team_slug, slug = project.team.slug, project.slug
    source = run.files.get()
    result = run.parity_results.get()
    return {
        "projects:detail": reverse("projects:detail", args=[team_slug, slug]),
        "projects:compare": reverse("projects:compare", args=[team_slug, slug]),
        "projects:run": reverse("projects:run", args=[run.pk]),
        "projects:run-progress": reverse("projects:run-progress", args=[run.pk]),
        "projects:files": reverse("projects:files", args=[run.pk]),
        "projects:file": reverse("projects:file", args=[run.pk, source.pk]),
        "projects:file-converted": reverse("projects:file-converted", args=[run.pk, source.pk]),
        "projects:parity": reverse("projects:parity", args=[run.pk, result.pk]),
        "projects:parity-checkpoint": reverse("projects:parity-checkpoint", args=[run.pk, result.pk]),
        "api:gate-page": reverse("api:gate-page", args=[project.pk]),
        "api:project": reverse("api:project", args=[project.pk]),
        "api:project-gate": reverse("api:project-gate", args=[project.pk]),
        "api:project-runs": reverse("api:project-runs", args=[project.pk]),
        "api:run": reverse("api:run", args=[run.pk]),
        "api:run-gate": reverse("api:run-gate", args=[run.pk]),
        "api:run-findings": reverse("api:run-findings", args=[run.pk]),
        "api:run-files": reverse("api:run-files", args=[run.pk]),
        "api:run-file": reverse("api:run-file", args=[run.pk, source.pk]),
        "api:run-converted-zip": reverse("api:run-converted-zip", args=[run.pk]),
        "api:run-parity": reverse("api:run-parity", args=[run.pk]),
        "api:run-sarif": reverse("api:run-sarif", args=[run.pk]),
        "api:run-junit": reverse("api:run-junit", args=[run.pk]),
        "api:run-report": reverse("api:run-report", args=[run.pk]),
        # findings lifecycle (triage, progress, knowledge base)
        "projects:findings": reverse("projects:findings", args=[run.pk]),
        "projects:finding": reverse("projects:finding", args=[run.pk, source.findings.first().pk]),
        "api:run-finding": reverse("api:run-finding", args=[run.pk, source.findings.first().pk]),
        "api:run-progress": reverse("api:run-progress", args=[run.pk]),
        "api:run-kb-recheck": reverse("api:run-kb-recheck", args=[run.pk]),
        "api:project-progress": reverse("api:project-progress", args=[project.pk]),
        "api:project-marks": reverse("api:project-marks", args=[project.pk]),
    }


# URL names whose only method is a write; they are checked in the write tests below.
WRITE_ONLY = {"projects:create", "projects:settings", "api:run-cancel", "api:token",
              "projects:findings-triage", "projects:finding-mark", "projects:kb-recheck",
              "api:run-findings-triage", "api:run-finding-triage"}


def client_for(role: str, world, api: bool):
    if api:
        client = APIClient()
        if role != "anonymous":
            client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=world['users'][role])[1]}")
        return client
    from django.test import Client

    client = Client()
    if role != "anonymous":
        client.force_login(world["users"][role])
    return client


def test_every_url_is_in_the_matrix(world):
    covered = PUBLIC | PERSONAL | WRITE_ONLY | set(team_urls(world))
    assert all_url_names() - covered == set(), "add the new URL to the authorization matrix"


@pytest.mark.parametrize("role", ROLES)
def test_reads_of_team_data(world, role):
    for name, url in team_urls(world).items():
        api = name.startswith("api:") and name != "api:gate-page"
        response = client_for(role, world, api).get(url)
        if role in ("member", "admin"):
            assert response.status_code == 200, (role, name, response.status_code)
        elif role == "anonymous":
            if api:
                assert response.status_code in (401, 403), (name, response.status_code)
            else:
                assert response.status_code == 302 and "/login/" in response["Location"], name
        else:
            assert response.status_code == 404, (role, name, response.status_code)


@pytest.mark.parametrize("role", ROLES)
def test_personal_pages_show_only_the_users_own_teams(world, role):
    for name in sorted(PERSONAL):
        api = name.startswith("api:") and name != "api:token-page"
        response = client_for(role, world, api).get(reverse(name))
        if role == "anonymous":
            assert response.status_code in (302, 401, 403), name
            continue
        assert response.status_code == 200, (role, name)
        if name in ("projects:list", "api:projects"):
            assert (b"Detector" in response.content) == (role in ("member", "admin")), (role, name)


def test_public_urls_need_no_login(client):
    for name in ("login", "api:schema", "api:docs", "api:client-script"):
        assert client.get(reverse(name)).status_code == 200, name


@pytest.mark.parametrize("role, allowed", [("anonymous", False), ("member", True), ("admin", True),
                                           ("outsider", False), ("site_admin", False)])
def test_upload_through_the_browser_and_the_api(world, role, allowed):
    project = world["project"]
    before = Run.objects.filter(project=project).count()
    archive = factories.tar_gz_of(data.SAMPLE_REPO, "pytorch_sample")
    page = client_for(role, world, api=False).post(
        reverse("projects:detail", args=[project.team.slug, project.slug]),
        {"archive": factories.upload("a.tar.gz", archive), "target": "classic", "ms_version": "2.4",
         "device": "cpu"})
    api = client_for(role, world, api=True).post(
        reverse("api:project-runs", args=[project.pk]), {"archive": factories.upload("a.tar.gz", archive)},
        format="multipart")
    created = Run.objects.filter(project=project).count() - before
    if allowed:
        assert (page.status_code, api.status_code, created) == (302, 201, 2)
    else:
        assert created == 0
        assert page.status_code in (302, 404) and api.status_code in (401, 403, 404), (page.status_code, api)
        if role != "anonymous":
            assert (page.status_code, api.status_code) == (404, 404)


@pytest.mark.parametrize("role, allowed", [("anonymous", False), ("member", False), ("admin", True),
                                           ("outsider", False), ("site_admin", False)])
def test_only_team_admins_change_project_settings_and_gate(world, role, allowed):
    project = world["project"]
    client_for(role, world, api=False).post(
        reverse("projects:settings", args=[project.team.slug, project.slug]),
        {"description": "", "target": "mint", "ms_version": "2.5", "device": "gpu"})
    gate = client_for(role, world, api=True).put(
        reverse("api:project-gate", args=[project.pk]), {"max_new_errors": 7}, format="json")
    project.refresh_from_db()
    assert (project.target == "mint") == allowed
    if allowed:
        assert gate.status_code == 200
    else:
        assert gate.status_code in {"anonymous": (401, 403), "member": (403,)}.get(role, (404,))


@pytest.mark.parametrize("role, allowed", [("anonymous", False), ("member", False), ("admin", True),
                                           ("outsider", False), ("site_admin", False)])
def test_only_team_admins_create_projects(world, role, allowed):
    team = world["team"]
    client_for(role, world, api=False).post(reverse("projects:create"),
                                            {"team": team.pk, "name": "From page", "target": "classic",
                                             "device": "cpu"})
    api = client_for(role, world, api=True).post(reverse("api:projects"),
                                                 {"team": team.slug, "name": "From API"}, format="json")
    names = set(Project.objects.filter(team=team).values_list("name", flat=True))
    assert ({"From page", "From API"} <= names) == allowed, (role, names, api.status_code)
    if not allowed:
        assert not names & {"From page", "From API"}


@pytest.mark.parametrize("role, allowed", [("anonymous", False), ("member", True), ("admin", True),
                                           ("outsider", False), ("site_admin", False)])
def test_cancel_is_for_members(world, role, allowed):
    project = world["project"]
    run = Run.objects.create(project=project, number=99, archive="x.zip", status=Run.Status.RUNNING)
    response = client_for(role, world, api=True).post(reverse("api:run-cancel", args=[run.pk]))
    run.refresh_from_db()
    assert (run.status == Run.Status.CANCELLED) == allowed, (role, response.status_code)
    if not allowed and role != "anonymous":
        assert response.status_code == 404


@pytest.mark.parametrize("role, allowed", [("anonymous", False), ("member", True), ("admin", True),
                                           ("outsider", False), ("site_admin", False)])
def test_marking_findings_is_for_members(world, role, allowed):
    from porting_site.projects.models import Finding

    run = world["run"]
    first, second, third = Finding.objects.filter(run=run).order_by("id")[:3]
    page = client_for(role, world, api=False).post(
        reverse("projects:finding-mark", args=[run.pk, first.pk]), {"action": "fixed"})
    bulk_page = client_for(role, world, api=False).post(
        reverse("projects:findings-triage", args=[run.pk]), {"action": "fixed", "scope": "selected", "ids": [second.pk]})
    one = client_for(role, world, api=True).post(
        reverse("api:run-finding-triage", args=[run.pk, third.pk]), {"action": "fixed"}, format="json")
    bulk = client_for(role, world, api=True).post(
        reverse("api:run-findings-triage", args=[run.pk]), {"action": "fixed", "ids": [third.pk]}, format="json")
    marked = Finding.objects.filter(run=run, triage="fixed").count()
    recheck = client_for(role, world, api=False).post(reverse("projects:kb-recheck", args=[run.pk]))
    assert run.kb_rechecks.exists() == allowed, (role, recheck.status_code)
    if allowed:
        assert (page.status_code, bulk_page.status_code, one.status_code, bulk.status_code, marked) == (
            302, 302, 200, 200, 3)
    else:
        assert marked == 0
        if role != "anonymous":
            assert (page.status_code, bulk_page.status_code, one.status_code, bulk.status_code) == (404,) * 4
        else:
            assert one.status_code in (401, 403) and bulk.status_code in (401, 403)


def test_tokens_are_personal(world):
    token, _ = token_create(user=world["users"]["admin"])
    url = reverse("api:token", args=[token.pk])
    for role in ("member", "outsider", "site_admin"):
        assert client_for(role, world, api=True).delete(url).status_code == 404, role
    assert client_for("admin", world, api=True).delete(url).status_code in (200, 204)
