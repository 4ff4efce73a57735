"""The same statuses, progress and triage actions through the REST API and the
pages, with the same permissions; the knowledge-base re-check; the CLI's JSON."""
from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from porting_site.accounts.services import membership_add
from porting_site.api.tokens import token_create
from porting_site.projects.models import Finding, KbRecheck, Run
from porting_site.triage.models import Mark, MarkEvent
from tests import factories
from tests.conftest import REPO_ROOT
from tests.triage import repo

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(run_dirs):
    team, alice = factories.team_with_member("Vision", "alice")
    bob = factories.user("bob")
    membership_add(team=team, user=bob, role="member")
    factories.team_with_member("Other", "mallory")
    project = factories.project(team, "Detector")
    run = repo.analysed_run(project, alice, repo.files_v1())
    return run


def api(username: str | None) -> APIClient:
    from django.contrib.auth import get_user_model

    client = APIClient()
    if username:
        _, key = token_create(user=get_user_model().objects.get(username=username), name="t")
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def _env(run) -> Finding:
    return Finding.objects.get(run=run, rule_id="MS-DEVICE-ENV")


def test_api_lists_statuses_marks_and_fingerprints_with_filters(world):
    url = reverse("api:run-findings", args=[world.pk])
    body = api("bob").get(url, {"status": "unresolved"}).json()
    # LeNet().cuda() is removed by the converter: converted, no longer unresolved (findings agree with it)
    assert body["count"] == 1 and {f["status"] for f in body["results"]} == {"unresolved"}
    first = body["results"][0]
    assert first["fingerprint"] and first["triage"] == "" and first["mark"] is None
    scripts = api("bob").get(url, {"rule": "MS-DEVICE-*", "path": "scripts/", "done": "no"}).json()
    assert scripts["count"] == 2  # two manual; the converted ones are done
    progress = api("bob").get(reverse("api:run-progress", args=[world.pk])).json()
    # Pinned from the analyzer whose findings agree with the converter: 46 of the 51 uses converted
    # (torch.save(model.state_dict()) is one checkpoint finding; .cuda()/.cpu() removed count as converted).
    assert (progress["found"], progress["done"], progress["unresolved"]) == (51, 46, 1)
    assert [f["path"] for f in progress["folders"]] == ["models/", "scripts/"]
    detail = api("bob").get(reverse("api:run", args=[world.pk])).json()
    assert detail["progress"]["percent"] == round(100 * 46 / 51)
    history = api("bob").get(reverse("api:project", args=[world.project_id])).json()["history"]
    assert (history[-1]["found"], history[-1]["converted"], history[-1]["unresolved"]) == (51, 46, 1)


def test_api_triage_writes_the_audit_trail_and_changes_progress(world):
    finding = _env(world)
    url = reverse("api:run-finding-triage", args=[world.pk, finding.pk])
    missing = api("bob").post(url, {"action": "accept"}, format="json")
    assert missing.status_code == 400 and "reason" in missing.json()["detail"]
    done = api("bob").post(url, {"action": "accept", "reason": "CPU only"}, format="json")
    assert done.status_code == 200 and done.json()["triage"] == "accepted"
    assert done.json()["mark"]["reason"] == "CPU only"
    assigned = api("alice").post(url, {"action": "assign", "assignee": "bob"}, format="json")
    assert assigned.json()["mark"]["assignee"] == "bob"
    events = api("alice").get(reverse("api:run-finding", args=[world.pk, finding.pk])).json()["events"]
    assert [(e["user"], e["action"], e["old_state"], e["new_state"], e["new_assignee"], e["reason"]) for e in events] == [
        ("bob", "set", "", "accepted", "", "CPU only"), ("alice", "assign", "accepted", "accepted", "bob", "")]
    assert api("bob").get(reverse("api:project-progress", args=[world.project_id])).json()["accepted"] == 1
    mine = api("bob").get(reverse("api:run-findings", args=[world.pk]), {"assignee": "bob"}).json()
    assert [f["id"] for f in mine["results"]] == [finding.pk]
    report = api("bob").get(reverse("api:run-report", args=[world.pk])).json()
    assert (report["summary"]["uses"]["accepted"], report["summary"]["uses"]["done"]) == (1, 47)
    assert report["marks"] == [{"path": "scripts/train.py", "line": 8, "rule_id": "MS-DEVICE-ENV", "torch_api": "",
                                "fingerprint": finding.fingerprint, "state": "accepted", "reason": "CPU only",
                                "assignee": "bob"}]


def test_api_bulk_accept_and_permissions(world):
    bulk = reverse("api:run-findings-triage", args=[world.pk])
    body = {"action": "accept", "reason": "CPU-only port", "filter": {"rule": "MS-DEVICE-*", "path": "scripts/"}}
    # Another team: the run does not exist for them; nobody anonymous gets in.
    assert api("mallory").post(bulk, body, format="json").status_code == 404
    one = reverse("api:run-finding-triage", args=[world.pk, _env(world).pk])
    assert api("mallory").post(one, {"action": "fixed"}, format="json").status_code == 404
    assert api("mallory").get(reverse("api:run-finding", args=[world.pk, _env(world).pk])).status_code == 404
    assert api(None).post(bulk, body, format="json").status_code in (401, 403)
    assert api("alice").post(one, {"action": "assign", "assignee": "mallory"}, format="json").status_code == 400
    assert not Mark.objects.exists()
    result = api("bob").post(bulk, body, format="json")
    # six device findings, all marked: .cuda()/.cpu() the converter removes are converted, not unresolved
    assert result.status_code == 200 and result.json() == {"changed": 6, "unchanged": 0, "skipped": 0}
    marks = api("bob").get(reverse("api:project-marks", args=[world.project_id])).json()
    assert marks["count"] == 6 and {m["state"] for m in marks["results"]} == {"accepted"}


def test_api_gate_policy_counts_marked_findings(world):
    gate_url = reverse("api:project-gate", args=[world.project_id])
    assert api("alice").put(gate_url, {"max_new_errors": 0}, format="json").status_code == 200
    errors = reverse("api:run-findings-triage", args=[world.pk])
    assert api("bob").post(errors, {"action": "fixed", "filter": {"severity": "error"}}, format="json").json()[
        "changed"] == 1  # DataParallel: converted uses are info, never errors
    from porting_site.gates.services import gate_evaluate

    assert gate_evaluate(run=world, force=True).status == "passed"
    assert api("alice").put(gate_url, {"count_fixed": True}, format="json").json()["count_fixed"] is True
    assert gate_evaluate(run=world, force=True).status == "failed"


def test_pages_show_progress_and_mark_findings(client, world):
    client.login(username="bob", password=factories.PASSWORD)
    run_page = client.get(reverse("projects:run", args=[world.pk])).content.decode()
    base = reverse("projects:findings", args=[world.pk])
    assert f'href="{base}?status=unresolved" data-figure="unresolved">1 unresolved' in run_page
    assert f'href="{base}?path=scripts/&amp;done=no">' in run_page or f'href="{base}?path=scripts/&done=no">' in run_page
    listing = client.get(base, {"status": "unresolved"}).content.decode()
    assert listing.count('name="ids"') == 1
    env = _env(world)
    file_page = client.get(reverse("projects:file", args=[world.pk, env.file_id])).content.decode()
    assert f'data-mark-url="{base}{env.pk}/mark/"' in file_page and 'id="triage-dialog"' in file_page
    mark_url = reverse("projects:finding-mark", args=[world.pk, env.pk])
    client.post(mark_url, {"action": "false_positive", "reason": "set by the launcher"})
    env.refresh_from_db()
    assert env.triage == "false_positive"
    detail = client.get(reverse("projects:finding", args=[world.pk, env.pk])).content.decode()
    assert "set by the launcher" in detail and "bob" in detail and 'id="audit"' in detail
    # A finding marked false positive is done: off the default view, closed on its line under "all uses".
    file_page = client.get(reverse("projects:file", args=[world.pk, env.file_id])).content.decode()
    assert f'id="F{env.pk}"' not in file_page
    file_page = client.get(reverse("projects:file", args=[world.pk, env.file_id]), {"show": "all"}).content.decode()
    assert 'data-mark="false_positive"' in file_page and "1 done here (1 false positive)" in file_page
    # Bulk from the list: every MS-DEVICE-* in scripts/ with one reason.
    client.post(reverse("projects:findings-triage", args=[world.pk]),
                {"rule": "MS-DEVICE-*", "path": "scripts/", "scope": "all", "action": "accept", "reason": "CPU port"})
    # An explicit bulk action also replaces the earlier mark (the trail keeps it).
    assert Finding.objects.filter(run=world, triage="accepted").count() == 6
    assert list(MarkEvent.objects.filter(mark=env.mark).values_list("new_state", flat=True)) == [
        "false_positive", "accepted"]
    project_page = client.get(reverse("projects:detail", args=[world.project.team.slug, world.project.slug]))
    assert 'data-figure="accepted">6 accepted' in project_page.content.decode()
    # Another team cannot see or mark it.
    client.logout()
    client.login(username="mallory", password=factories.PASSWORD)
    assert client.post(mark_url, {"action": "fixed"}).status_code == 404
    assert client.get(reverse("projects:finding", args=[world.pk, env.pk])).status_code == 404
    assert MarkEvent.objects.filter(user__username="mallory").count() == 0


def test_knowledge_base_recheck_separates_kb_changes_from_code_changes(client, world):
    # Make run 1 look analysed by an older knowledge base: one finding it did not know,
    # one it classified differently. The snapshot on disk is unchanged.
    Run.objects.filter(pk=world.pk).update(kb_version="2025.06.0")
    world.refresh_from_db()
    gone = Finding.objects.get(run=world, rule_id="MS-DEVICE-DATAPARALLEL")
    gone.delete()
    Finding.objects.filter(run=world, rule_id="MS-DEVICE-ENV").update(status="review")
    out = io.StringIO()
    call_command("kb_recheck", str(world.pk), stdout=out)
    assert "1 added, 0 removed, 1 changed" in out.getvalue()
    recheck = KbRecheck.objects.get(run=world)
    kinds = {(c["kind"], c["rule_id"]) for c in recheck.changes}
    assert kinds == {("added", "MS-DEVICE-DATAPARALLEL"), ("changed", "MS-DEVICE-ENV")}
    # Run 2 with the current knowledge base and edited code (DataParallel line removed).
    run2 = repo.analysed_run(world.project, world.created_by, repo.files_v2())
    from porting_site.projects.kb import kb_split

    split = kb_split(older=world, newer=run2)
    assert split["kb"]["new"] == [{"path": "scripts/train.py", "rule_id": "MS-DEVICE-DATAPARALLEL",
                                   "torch_api": "torch.nn.DataParallel", "severity": "error", "n": 1}]
    assert split["kb"]["gone_total"] == 0
    assert {r["rule_id"] for r in split["code"]["gone"]} == {"MS-DEVICE-DATAPARALLEL"}
    client.login(username="alice", password=factories.PASSWORD)
    page = client.get(reverse("projects:compare", args=[world.project.team.slug, world.project.slug]),
                      {"a": 1, "b": 2}).content.decode()
    assert 'id="kb-new">1<' in page and 'id="code-gone">' in page
    recheck_api = api("alice").get(reverse("api:run-kb-recheck", args=[world.pk])).json()
    assert recheck_api["kb_version"] == "2025.06.0"
    assert recheck_api["recheck"]["counts"] == {"added": 1, "removed": 0, "changed": 1, "unchanged": 49}
    assert api("mallory").post(reverse("api:run-kb-recheck", args=[world.pk])).status_code == 404


def test_cli_json_carries_status_and_fingerprint_of_each_use():
    from analysis.cli.analyze import run

    out = io.StringIO()
    assert run({"path": str(REPO_ROOT / "samples" / "pytorch_sample"), "format": "json", "jobs": 1}, out) == 0
    report = json.loads(out.getvalue())
    uses = [f for file in report["files"] for f in file["findings"]]
    assert uses and all(f["status"] in ("converted", "review", "manual", "unresolved") for f in uses)
    assert all(f["fingerprint"] for f in uses)
    assert sum(report["summary"]["by_status"].values()) == len(uses)
