"""The CI client: its .gitignore handling (fast) and a real CI flow against a live
server with a real worker (slow): a first upload fails the gate, the next one
compared with it passes."""
from __future__ import annotations

import importlib.util
import io
import json
import shutil
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET

import pytest

from porting_site.api.tokens import token_create
from porting_site.gates.services import gate_policy_update
from porting_site.projects.models import Run
from tests import factories
from tests.conftest import REPO_ROOT, SAMPLE_REPO

CLIENT = REPO_ROOT / "tools" / "porting_ci.py"


def load_client():
    spec = importlib.util.spec_from_file_location("porting_ci", CLIENT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ignore_rules_follow_gitignore_semantics():
    rules = load_client().IgnoreRules([
        "# comment", "", "*.log", "/build/", "data/", "docs/**/*.png", "!keep.log", "secret?.txt", "nested/deep",
    ])
    cases = {
        ("app.log", False): True, ("sub/app.log", False): True, ("keep.log", False): False,
        ("build", True): True, ("src/build", True): False, ("build", False): False,
        ("data", True): True, ("src/data", True): True, ("data", False): False,
        ("docs/a/b/x.png", False): True, ("docs/x.png", False): True, ("img/x.png", False): False,
        ("secret1.txt", False): True, ("secret12.txt", False): False,
        ("nested/deep", True): True, ("x/nested/deep", True): False,
        ("model.py", False): False,
    }
    for (path, is_dir), expected in cases.items():
        assert rules.ignored(path, is_dir) is expected, (path, is_dir)


def test_archive_leaves_out_ignored_files_and_never_enters_ignored_dirs(tmp_path):
    repo = tmp_path / "repo"
    for rel in ("net.py", "pkg/util.py", "runs/out.py", "pkg/cache.tmp", "pkg/keep.tmp", ".git/config",
                "pkg/__pycache__/util.cpython-311.pyc", "extra/skip.py"):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text("x = 1\n")
    (repo / ".gitignore").write_text("runs/\n*.tmp\n!keep.tmp\n")
    data, count = load_client().build_archive(repo, ["extra/"])
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        names = sorted(tar.getnames())
    assert names == [".gitignore", "net.py", "pkg/keep.tmp", "pkg/util.py"] and count == 4


def test_the_dashboard_serves_the_client_without_login(client):
    from django.urls import reverse

    response = client.get(reverse("api:client-script"))
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == CLIENT.read_bytes()


def test_client_reports_usage_and_connection_problems_with_exit_2(tmp_path):
    client = [sys.executable, "-I", "-S", str(CLIENT)]
    missing = subprocess.run(client, capture_output=True, text=True, env={}, timeout=60)
    assert missing.returncode == 2 and "--server" in missing.stderr
    refused = subprocess.run(client + ["--server", "http://127.0.0.1:9", "--token", "x", "--project", "a/b",
                                       "--dir", str(tmp_path), "--retries", "0"], capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "failed" in refused.stderr


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_ci_client_fails_then_passes_the_gate_against_a_live_server(live_server, live_worker, tmp_path):
    team, alice = factories.team_with_member("Vision", "alice")
    project = factories.project(team, "Sample")
    # First upload: no baseline, so the sample's error findings all count as new.
    gate_policy_update(project=project, max_new_errors=0, min_parity_pass_rate=1.0, no_parity_regression=True)
    _, key = token_create(user=alice, name="ci")
    repo = tmp_path / "checkout"
    shutil.copytree(SAMPLE_REPO, repo, ignore=shutil.ignore_patterns("__pycache__"))
    # Something no converter can do for the team: an error finding left for a person (the sample's own
    # errors are all converted now, and converted uses are info).
    (repo / "models" / "parallel.py").write_text(
        "from torch import nn\n\n\ndef parallel(net: nn.Module) -> nn.Module:\n    return nn.DataParallel(net)\n")
    (repo / "scratch").mkdir()
    (repo / "scratch" / "notes.py").write_text("import torch\nx = torch.zeros(1).cuda()\n")
    (repo / ".gitignore").write_text("scratch/\n")

    def ci(tag: str) -> subprocess.CompletedProcess:
        # -I -S: no site-packages, so the client provably needs only the standard library.
        return subprocess.run(
            [sys.executable, "-I", "-S", str(CLIENT), "--server", live_server.url, "--project", "vision/sample",
             "--dir", str(repo), "--sarif", str(tmp_path / f"{tag}.sarif"), "--junit", str(tmp_path / f"{tag}.xml"),
             "--poll", "1", "--timeout", "400"],
            env={"PORTING_TOKEN": key}, capture_output=True, text=True, timeout=480,
        )

    first = ci("first")
    assert first.returncode == 1, first.stdout + first.stderr
    print(first.stdout)
    assert "quality gate: FAILED" in first.stdout
    run1 = Run.objects.get(project=project, number=1)
    # The gate counts errors left for a person: those the converter rewrote do not count.
    errors = run1.findings.filter(severity="error").exclude(status="converted").count()
    assert run1.status == Run.Status.DONE and errors > 0
    assert f"[FAIL] {errors} new error finding(s) left for a person versus no baseline run" in first.stdout
    # The failed check names the page listing exactly those findings.
    assert f"see {live_server.url}/runs/{run1.pk}/findings/?new=true&severity=error&gate=counted" in first.stdout
    assert not run1.files.filter(path__startswith="scratch/").exists()  # .gitignore honoured
    assert run1.files.filter(path="models/lenet.py").exists()  # paths are relative to the repository root
    sarif = json.loads((tmp_path / "first.sarif").read_text())
    assert any(r["level"] == "error" for r in sarif["runs"][0]["results"])
    junit = ET.parse(tmp_path / "first.xml").getroot()
    assert {c.get("name") for c in junit.iter("testcase") if c.get("classname") == "parity"} >= {
        "models.lenet.LeNet", "models.mlp.MLP"} or len(list(junit.iter("testcase"))) >= 3

    # Second upload of the same code, compared with the first (baseline auto): nothing new, parity holds.
    second = ci("second")
    assert second.returncode == 0, second.stdout + second.stderr
    assert "quality gate: PASSED" in second.stdout and "versus run #1" in second.stdout
    assert "parity pass rate 2/2 = 100%" in second.stdout
    junit = ET.parse(tmp_path / "second.xml").getroot()
    gate_suite = next(s for s in junit.iter("testsuite") if s.get("name") == "quality-gate")
    assert gate_suite.get("failures") == "0"
