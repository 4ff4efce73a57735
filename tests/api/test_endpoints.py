"""What each endpoint returns and does, with real rows and files."""
from __future__ import annotations

import io
import json
import zipfile
import xml.etree.ElementTree as ET

import jsonschema
import pytest
from django.core.management import call_command
from django.urls import reverse

from porting_site.api.models import ApiToken
from porting_site.gates.models import RunGate
from porting_site.projects.models import Finding, Project, Run
from tests import factories
from tests.conftest import REPO_ROOT, SAMPLE_REPO

from .conftest import FINDINGS_V1, NET_V1, PARITY_PASS, client_for, make_run

pytestmark = pytest.mark.django_db


# --- tokens -------------------------------------------------------------------------------


def test_tokens_are_created_listed_and_revoked_through_the_api(world):
    alice = client_for(world, "alice")
    created = alice.post(reverse("api:tokens"), {"name": "gitlab"}, format="json")
    assert created.status_code == 201
    key = created.json()["key"]
    assert key.startswith("pt_") and not ApiToken.objects.filter(key_hash=key).exists()  # only a hash is stored
    listed = alice.get(reverse("api:tokens")).json()
    assert {t["name"] for t in listed} == {"ci", "gitlab"} and all("key" not in t for t in listed)

    fresh = client_for(None, None)
    fresh.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert fresh.get(reverse("api:projects")).status_code == 200
    assert ApiToken.objects.get(pk=created.json()["id"]).last_used_at is not None

    # Another user cannot revoke it; its owner can, and it stops working at once.
    bob = client_for(world, "bob")
    assert bob.delete(reverse("api:token", args=[created.json()["id"]])).status_code == 404
    assert alice.delete(reverse("api:token", args=[created.json()["id"]])).status_code == 204
    assert fresh.get(reverse("api:projects")).status_code == 401


def test_token_management_command(world, capsys):
    call_command("api_token", "create", "bob", "--name", "jenkins")
    key = capsys.readouterr().out.strip()
    client = client_for(None, None)
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get(reverse("api:run", args=[world.run.pk])).status_code == 200
    call_command("api_token", "list", "bob")
    assert "jenkins" in capsys.readouterr().out
    call_command("api_token", "revoke", "bob", "--name", "jenkins")
    assert client.get(reverse("api:run", args=[world.run.pk])).status_code == 401
    assert ApiToken.objects.filter(user=world.member, name="ci").exists()  # the other token is untouched


def test_token_page_shows_a_new_key_once_and_revokes(world, client):
    client.login(username="bob", password=factories.PASSWORD)
    page = client.post(reverse("api:token-page"), {"name": "laptop"})
    assert page.status_code == 200
    key = page.context["new_key"]
    assert key.encode() in page.content
    token = ApiToken.objects.get(user=world.member, name="laptop")
    listing = client.get(reverse("api:token-page"))
    assert b"laptop" in listing.content and key.encode() not in listing.content
    client.post(reverse("api:token-page"), {"revoke": token.pk})
    assert not ApiToken.objects.filter(pk=token.pk).exists()
    client.logout()
    assert client.get(reverse("api:token-page")).status_code == 302


# --- projects ---------------------------------------------------------------------------------


def test_projects_list_filter_and_detail_with_history(world):
    client = client_for(world, "bob")
    make_run(world.project, world.admin, {"pkg/net.py": (NET_V1, [dict(FINDINGS_V1[0])])}, parity=[])
    listed = client.get(reverse("api:projects"), {"team": "team-a", "slug": "detector"}).json()
    assert listed["count"] == 1 and listed["results"][0]["id"] == world.project.pk
    assert client.get(reverse("api:projects"), {"slug": "nothing"}).json()["count"] == 0
    detail = client.get(reverse("api:project", args=[world.project.pk])).json()
    history = detail["history"]
    assert [h["number"] for h in history] == [1, 2]
    assert (history[0]["errors"], history[0]["warnings"], history[0]["parity_passed"]) == (1, 1, 2)
    assert (history[1]["errors"], history[1]["warnings"], history[1]["parity_checked"]) == (0, 1, 0)


def test_only_team_admins_create_projects(world):
    body = {"team": "team-a", "name": "Speech", "target": "classic", "device": "cpu"}
    assert client_for(world, "bob").post(reverse("api:projects"), body, format="json").status_code == 403
    created = client_for(world, "alice").post(reverse("api:projects"), body, format="json")
    assert created.status_code == 201 and created.json()["slug"] == "speech"
    assert Project.objects.filter(team=world.team, slug="speech").exists()
    again = client_for(world, "alice").post(reverse("api:projects"), body, format="json")
    assert again.status_code == 400 and "name" in again.json()
    bad = client_for(world, "alice").post(reverse("api:projects"), {**body, "name": "X2", "device": "tpu"},
                                          format="json")
    assert bad.status_code == 400 and "device" in bad.json()


def test_gate_policy_read_by_members_changed_by_admins(world):
    url = reverse("api:project-gate", args=[world.project.pk])
    assert client_for(world, "bob").get(url).json() == {
        "max_new_errors": 0, "max_new_warnings": None, "min_parity_pass_rate": None, "no_parity_regression": True,
        "count_accepted": False, "count_false_positive": False, "count_fixed": False}
    assert client_for(world, "bob").put(url, {"max_new_errors": 3}, format="json").status_code == 403
    changed = client_for(world, "alice").put(url, {"max_new_errors": 3, "min_parity_pass_rate": 0.9}, format="json")
    assert changed.status_code == 200 and changed.json()["min_parity_pass_rate"] == 0.9
    assert client_for(world, "alice").put(url, {"min_parity_pass_rate": 1.5}, format="json").status_code == 400


# --- runs ---------------------------------------------------------------------------------------


def test_run_upload_multipart_and_raw_body(world, django_capture_on_commit_callbacks):
    client = client_for(world, "bob")
    url = reverse("api:project-runs", args=[world.project.pk])
    data = factories.tar_gz_of(SAMPLE_REPO, "pytorch_sample")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        multipart = client.post(url, {"archive": factories.upload("repo.tar.gz", data), "target": "classic",
                                      "ms_version": "2.5", "device": "cpu", "baseline": "none"}, format="multipart")
    assert multipart.status_code == 201, multipart.content
    assert len(callbacks) == 1  # the pipeline is queued once the upload is committed
    run = Run.objects.get(pk=multipart.json()["id"])
    assert (run.number, run.ms_version, run.status, run.created_by) == (2, "2.5", "queued", world.member)
    assert RunGate.objects.get(run=run).baseline is None

    raw = client.post(f"{url}?device=gpu&filename=ci.tar.gz", data=data, content_type="application/gzip")
    assert raw.status_code == 201, raw.content
    run = Run.objects.get(pk=raw.json()["id"])
    assert (run.device, run.archive_name, run.archive.size) == ("gpu", "ci.tar.gz", len(data))
    assert RunGate.objects.get(run=run).baseline == world.run  # auto: the latest completed run

    listed = client.get(url).json()
    assert [r["number"] for r in listed["results"]] == [3, 2, 1]


def test_run_upload_rejects_bad_input(world):
    client = client_for(world, "bob")
    url = reverse("api:project-runs", args=[world.project.pk])
    garbage = client.post(url, data=b"not an archive at all", content_type="application/gzip")
    assert garbage.status_code == 400 and "archive" in garbage.json()
    missing = client.post(url, {"target": "classic"}, format="multipart")
    assert missing.status_code == 400 and "archive" in missing.json()
    other_project = factories.project(world.team, "Other")
    other_run = make_run(other_project, world.admin, {})
    foreign_baseline = client.post(url, {"archive": factories.upload("r.zip", factories.zip_of({"a.py": b"1"})),
                                         "baseline": str(other_run.pk)}, format="multipart")
    assert foreign_baseline.status_code == 400 and "baseline" in foreign_baseline.json()
    assert Run.objects.filter(project=world.project).count() == 1


def test_run_status_with_stage_progress_counts_and_gate(world):
    data = client_for(world, "bob").get(reverse("api:run", args=[world.run.pk])).json()
    assert data["status"] == "done" and data["finished"] is True
    assert [s["name"] for s in data["stages"]] == ["unpack", "analyze", "convert", "parity", "finalize"]
    assert all(s["percent"] == 100 for s in data["stages"])
    assert data["counts"] == {"error": 1, "warning": 1, "info": 1, "files": 2}
    assert data["parity"]["pass"] == 2
    # First run, no baseline: its error finding is new, so the default gate (0 new errors) fails.
    assert data["gate"]["status"] == "failed"
    assert any("1 new error" in reason for reason in data["gate"]["reasons"])


def test_cancel_a_queued_run(world):
    client = client_for(world, "bob")
    run = client.post(reverse("api:project-runs", args=[world.project.pk]),
                      {"archive": factories.upload("r.zip", factories.zip_of({"a.py": b"1"}))}, format="multipart")
    run_id = run.json()["id"]
    cancelled = client.post(reverse("api:run-cancel", args=[run_id]))
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert Run.objects.get(pk=run_id).finished_at is not None
    assert client.post(reverse("api:run-cancel", args=[run_id])).status_code == 400
    gate = client.get(reverse("api:run-gate", args=[run_id])).json()
    assert gate["status"] == "failed" and "did not complete" in gate["reasons"][0]


# --- findings, files, parity ---------------------------------------------------------------------


def test_findings_are_paginated_and_filtered(world):
    client = client_for(world, "bob")
    url = reverse("api:run-findings", args=[world.run.pk])
    everything = client.get(url, {"page_size": 2}).json()
    assert everything["count"] == 3 and len(everything["results"]) == 2 and everything["next"]
    assert client.get(url, {"severity": "error"}).json()["results"][0]["rule_id"] == "MS-DEVICE-CUDA"
    assert client.get(url, {"rule": "MS-D*"}).json()["count"] == 2
    assert client.get(url, {"file": "pkg/net.py", "rule": "MS-API-MAPPED"}).json()["count"] == 1
    assert client.get(url, {"file": "pkg/clean.py"}).json()["count"] == 0
    net = world.run.files.get(path="pkg/net.py")
    first = client.get(url, {"file_id": net.pk}).json()["results"][0]
    assert (first["path"], first["line"], first["torch_api"]) == ("pkg/net.py", 9, "torch.nn.Dropout")
    assert client.get(url, {"severity": "fatal"}).status_code == 400


def test_new_since_baseline_ignores_moved_lines(world):
    # The second upload inserts lines above the old findings and adds one new error.
    moved = "# a header comment\n\n" + NET_V1 + "\n\ndef helper(t):\n    return t.cuda()\n"
    shift = [dict(f, line=f["line"] + 2) for f in FINDINGS_V1]
    extra = dict(line=len(moved.splitlines()), rule_id="MS-DEVICE-CUDA", severity="error",
                 torch_api="torch.Tensor.cuda")
    run2 = make_run(world.project, world.admin, {"pkg/net.py": (moved, shift + [extra])},
                    parity=[dict(p) for p in PARITY_PASS])
    client = client_for(world, "bob")
    url = reverse("api:run-findings", args=[run2.pk])
    new = client.get(url, {"new": "true"}).json()
    assert [(f["line"], f["rule_id"]) for f in new["results"]] == [(extra["line"], "MS-DEVICE-CUDA")]
    assert client.get(url, {"new": "false"}).json()["count"] == 3
    gate = client.get(reverse("api:run-gate", args=[run2.pk])).json()
    assert gate["baseline"] == world.run.pk and gate["status"] == "failed"
    assert "1 new error finding(s) left for a person versus run #1" in gate["reasons"][0]


def test_files_converted_text_diff_and_zip(world):
    client = client_for(world, "bob")
    files = client.get(reverse("api:run-files", args=[world.run.pk])).json()
    assert [(f["path"], f["errors"], f["converted"]) for f in files["results"]] == [
        ("pkg/clean.py", 0, True), ("pkg/net.py", 1, True)]
    assert client.get(reverse("api:run-files", args=[world.run.pk]), {"path": "pkg/n"}).json()["count"] == 1
    net = world.run.files.get(path="pkg/net.py")
    detail = client.get(reverse("api:run-file", args=[world.run.pk, net.pk])).json()
    assert "class Net(nn.Cell)" in detail["converted_text"] and detail["diff"].startswith("--- a/pkg/net.py")
    other_run = make_run(world.project, world.admin, {"pkg/x.py": ("x = 2\n", [])})
    other_file = other_run.files.get()
    assert client.get(reverse("api:run-file", args=[world.run.pk, other_file.pk])).status_code == 404

    response = client.get(reverse("api:run-converted-zip", args=[world.run.pk]))
    assert response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert sorted(archive.namelist()) == ["pkg/clean.py", "pkg/net.py"]
    assert "def construct(self, x)" in archive.read("pkg/net.py").decode()


def test_parity_results_with_metrics_and_loss_curve(world):
    results = client_for(world, "bob").get(reverse("api:run-parity", args=[world.run.pk])).json()
    by_name = {r["name"]: r for r in results}
    assert by_name["Net"]["metrics"]["max_abs"] == 1e-7
    assert by_name["Net"]["loss_curve"] == {"torch": [1.0, 0.8, 0.6], "mindspore": [1.0, 0.8, 0.61]}
    assert by_name["Head"]["loss_curve"] is None


# --- reports --------------------------------------------------------------------------------------


def test_sarif_report_is_valid_sarif_2_1_0(world):
    response = client_for(world, "bob").get(reverse("api:run-sarif", args=[world.run.pk]))
    assert response["Content-Type"] == "application/sarif+json"
    sarif = json.loads(response.content)
    schema = json.loads((REPO_ROOT / "tests" / "analysis" / "data" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validate(sarif, schema)
    results = sarif["runs"][0]["results"]
    assert {(r["ruleId"], r["level"]) for r in results} >= {("MS-DEVICE-CUDA", "error"), ("MS-DROPOUT-P", "warning")}
    location = next(r for r in results if r["ruleId"] == "MS-DEVICE-CUDA")["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].endswith("pkg/net.py") and location["region"]["startLine"] == 13


def test_junit_report_has_a_case_per_parity_check_and_per_file_with_errors(world):
    broken = dict(name="Broken", module="pkg.broken", status="fail", reason="outputs differ",
                            first_diverging_layer="fc", metrics={"max_abs": 0.5})
    run = make_run(world.project, world.admin, {"pkg/net.py": (NET_V1, [dict(f) for f in FINDINGS_V1]),
                                                "pkg/clean.py": ("x = 1\n", [])},
                   parity=[dict(p) for p in PARITY_PASS] + [broken])
    response = client_for(world, "bob").get(reverse("api:run-junit", args=[run.pk]))
    root = ET.fromstring(response.content)
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    parity = suites["parity"]
    assert (parity.get("tests"), parity.get("failures")) == ("3", "1")
    failure = parity.find("testcase[@name='pkg.broken.Broken']/failure")
    assert failure is not None and "fc" in failure.text
    analysis = suites["analysis"]
    assert [c.get("name") for c in analysis.findall("testcase")] == ["pkg/net.py"]  # clean.py has no errors
    assert "pkg/net.py:13:5: MS-DEVICE-CUDA" in analysis.find("testcase/failure").text
    # Versus run #1 nothing is new and nothing that passed regressed: the default gate passes.
    gate_suite = suites["quality-gate"]
    assert gate_suite.get("failures") == "0" and gate_suite.find("testcase/failure") is None


def test_report_json(world):
    report = client_for(world, "bob").get(reverse("api:run-report", args=[world.run.pk])).json()
    assert report["run"]["id"] == world.run.pk and report["summary"]["findings"]["error"] == 1
    assert [f["path"] for f in report["files"]] == ["pkg/clean.py", "pkg/net.py"]
    assert report["files"][1]["findings"][0]["rule_id"] == "MS-DROPOUT-P"
    assert report["gate"]["status"] == "failed" and report["parity"][0]["status"] == "pass"


def test_sarif_leaves_converted_uses_out_and_reports_marks_as_suppressions(world):
    """Code scanning shows what a person must do: converted uses only on request, marks as suppressions."""
    from porting_site.triage.services import finding_triage

    run = make_run(world.project, world.admin, {"pkg/net.py": (NET_V1, [
        dict(f, status=status) for f, status in zip(FINDINGS_V1, ("review", "converted", "manual"))])})
    dropout = Finding.objects.get(run=run, rule_id="MS-DROPOUT-P")
    finding_triage(finding=dropout, user=world.admin, action="accept", reason="p is set by the config")
    schema = json.loads((REPO_ROOT / "tests" / "analysis" / "data" / "sarif-schema-2.1.0.json").read_text())
    url = reverse("api:run-sarif", args=[run.pk])
    sarif = json.loads(client_for(world, "bob").get(url).content)
    jsonschema.validate(sarif, schema)
    results = {r["ruleId"]: r for r in sarif["runs"][0]["results"]}
    assert set(results) == {"MS-DROPOUT-P", "MS-DEVICE-CUDA"}  # the converted Linear is not a result
    assert results["MS-DROPOUT-P"]["suppressions"] == [
        {"kind": "external", "status": "accepted", "justification": "marked accepted: p is set by the config"}]
    assert "suppressions" not in results["MS-DEVICE-CUDA"]
    everything = json.loads(client_for(world, "bob").get(url, {"converted": "true"}).content)
    jsonschema.validate(everything, schema)
    assert {r["ruleId"] for r in everything["runs"][0]["results"]} == {"MS-DROPOUT-P", "MS-DEVICE-CUDA",
                                                                       "MS-API-MAPPED"}
