"""The gate judges evidence, not its absence: parity errors and "nothing checked" fail a gate
that requires parity; every failed check links to exactly what it counted; uploads with
nothing to analyse are refused at once (form and API)."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from django.urls import reverse

from porting_site.gates.models import RunGate
from porting_site.gates.services import gate_evaluate, gate_policy_update, run_gate_set_baseline
from porting_site.projects.models import Finding, Run, Stage
from porting_site.projects.services import StageFailed, run_unpack
from porting_site.reports.builders import run_junit_xml
from tests import factories

from .conftest import FINDINGS_V1, NET_V1, PARITY_PASS, client_for, make_run

pytestmark = pytest.mark.django_db

ERRORED = [dict(name=f"Net{i}", module="pkg.net", status="error", reason="ImportError in the converted module")
           for i in range(3)]


def checks_of(gate: RunGate) -> dict[str, dict]:
    return {c["name"]: c for c in gate.checks}


def test_every_entry_errored_fails_a_gate_that_requires_parity(world):
    gate_policy_update(project=world.project, min_parity_pass_rate=0.0, max_new_errors=None)
    run = make_run(world.project, world.admin, {}, parity=[dict(e) for e in ERRORED])
    gate = gate_evaluate(run=run)
    check = checks_of(gate)["parity_pass_rate"]
    # Even a 0 % threshold: three errors are three failing checks, and the message says they errored.
    assert check["message"].startswith("parity pass rate 0/3 = 0%, 3 of them errored (counted as failing)")
    gate_policy_update(project=world.project, min_parity_pass_rate=0.5)
    assert gate_evaluate(run=run, force=True).status == RunGate.Status.FAILED


def test_a_failing_original_forward_counts_like_an_error(world, client):
    gate_policy_update(project=world.project, min_parity_pass_rate=0.5, max_new_errors=None)
    run = make_run(world.project, world.admin, {}, parity=[
        dict(name="Net", module="pkg.net", status="pass"),
        dict(name="Rnn", module="pkg.rnn", status="torch_fail", reason="the original PyTorch forward fails"),
        dict(name="Big", module="pkg.big", status="error", reason="over the memory ceiling")])
    gate = gate_evaluate(run=run)
    check = checks_of(gate)["parity_pass_rate"]
    assert check["message"].startswith("parity pass rate 1/3 = 33%, 1 of them errored and 1 whose original "
                                       "PyTorch code fails (counted as failing)")
    assert gate.status == RunGate.Status.FAILED
    suite = ET.fromstring(run_junit_xml(run=run)).find("testsuite[@name='parity']")
    assert (suite.get("tests"), suite.get("errors"), suite.get("skipped")) == ("3", "2", "0")
    error = suite.find("testcase[@name='pkg.rnn.Rnn']/error")
    assert error.get("message").startswith("original PyTorch code fails: ")
    assert "the original PyTorch forward fails" in error.text  # the reason, as the check gave it
    # The run page: checked and not passing (1 / 3 pass), in words, the badge styled as an error is.
    client.login(username="alice", password=factories.PASSWORD)
    html = client.get(reverse("projects:run", args=[run.pk])).content.decode()
    assert '<span class="badge st-torch_fail" title="the repository&#x27;s own PyTorch code fails' in html
    assert '>original PyTorch code fails</span>' in html and ">torch_fail<" not in html
    assert '<span data-figure="parity_pass">1</span> / <span data-figure="parity_total">3</span> pass' in html
    # The entry's own page: the words, what they mean, and the reason.
    from porting_site.projects.models import ParityResult
    rnn = ParityResult.objects.get(run=run, name="Rnn")
    page = client.get(reverse("projects:parity", args=[run.pk, rnn.pk])).content.decode()
    assert ">torch_fail<" not in page and ">original PyTorch code fails</span></h1>" in page
    assert "nothing about the conversion is known.</strong><br>the original PyTorch forward fails" in page


def test_parity_not_required_tells_a_failing_original_in_words(world):
    gate_policy_update(project=world.project, max_new_errors=None, no_parity_regression=False)
    run = make_run(world.project, world.admin, {}, parity=[
        dict(name="Net", module="pkg.net", status="pass"),
        dict(name="Rnn", module="pkg.rnn", status="torch_fail", reason="the original PyTorch forward fails")])
    said = checks_of(gate_evaluate(run=run))["parity_not_required"]["message"]
    assert said == ("parity is not required by this gate (no minimum pass rate): 1 pass, "
                    "1 whose original PyTorch code fails")


def test_nothing_checked_fails_whatever_the_threshold(world):
    gate_policy_update(project=world.project, min_parity_pass_rate=0.0, max_new_errors=None)
    skipped_only = make_run(world.project, world.admin, {}, parity=[
        dict(name="Big", module="pkg.big", status="skipped", reason="needs a GPU")])
    gate = gate_evaluate(run=skipped_only)
    assert gate.status == RunGate.Status.FAILED
    assert checks_of(gate)["parity_pass_rate"]["passed"] is False
    assert "no entry point was checked for parity" in gate.reasons[0]
    # The parity stage could not run at all: its reason is part of the message.
    no_box = make_run(world.project, world.admin, {})
    Stage.objects.filter(run=no_box, name="parity").update(
        detail="0/0 entry points pass; parity could not run: bubblewrap is not installed")
    gate = gate_evaluate(run=no_box)
    assert gate.status == RunGate.Status.FAILED
    assert "(bubblewrap is not installed)" in gate.reasons[0]


def test_parity_not_required_is_said_and_junit_agrees(world):
    gate_policy_update(project=world.project, max_new_errors=None, no_parity_regression=False)
    run = make_run(world.project, world.admin, {}, parity=[dict(e) for e in ERRORED])
    gate = gate_evaluate(run=run)
    assert gate.status == RunGate.Status.PASSED
    said = checks_of(gate)["parity_not_required"]["message"]
    assert said == "parity is not required by this gate (no minimum pass rate): 3 error"
    root = ET.fromstring(run_junit_xml(run=run, gate=gate))
    parity = root.find("testsuite[@name='parity']")
    gate_case = root.find("testsuite[@name='quality-gate']/testcase")
    assert parity.get("errors") == "3"
    # The gate case passes and says why the three parity errors do not fail it.
    assert gate_case.find("failure") is None and said in gate_case.find("system-out").text
    # Requiring parity turns the same run's verdict (and the JUnit gate case) into a failure.
    gate_policy_update(project=world.project, min_parity_pass_rate=0.5)
    gate = gate_evaluate(run=run, force=True)
    root = ET.fromstring(run_junit_xml(run=run, gate=gate))
    assert root.find("testsuite[@name='quality-gate']/testcase/failure") is not None


def _ids_on_page(client, url: str) -> set[int]:
    response = client.get(url)
    assert response.status_code == 200
    import re

    return {int(i) for i in re.findall(r'name="ids" value="(\d+)"', response.content.decode())}


def test_a_failed_check_links_to_exactly_the_findings_it_counted(world, client):
    """Run 2 adds two errors to run 1's code; one is converted, one marked fixed: the gate counts
    the remaining new one, and its link lists that one finding and no other."""
    extra = [dict(line=12, rule_id="MS-DEVICE-CUDA", severity="error", torch_api="torch.Tensor.cuda"),
             dict(line=12, rule_id="MS-API-UNMAPPED", severity="error", torch_api="torch.Tensor.cuda",
                  status="converted"),
             dict(line=11, rule_id="MS-DEVICE-CUDA", severity="error", torch_api="torch.Tensor.to", triage="fixed")]
    run2 = make_run(world.project, world.admin,
                    {"pkg/net.py": (NET_V1, [dict(f) for f in FINDINGS_V1] + extra)}, parity=[dict(p) for p in PARITY_PASS])
    gate = gate_evaluate(run=run2)
    check = checks_of(gate)["new_errors"]
    assert (check["passed"], check["value"]) == (False, 1)
    counted = Finding.objects.get(run=run2, line=12, rule_id="MS-DEVICE-CUDA")

    client.login(username="alice", password=factories.PASSWORD)
    html = client.get(reverse("projects:run", args=[run2.pk])).content.decode()
    url = reverse("projects:findings", args=[run2.pk]) + "?new=true&amp;severity=error&amp;gate=counted"
    assert f'<a class="small" href="{url}">show 1 finding</a>' in html
    assert _ids_on_page(client, url.replace("&amp;", "&")) == {counted.pk}
    # ?new=true alone lists every new error (the converted and the marked one too), not the old .cuda().
    new_errors = _ids_on_page(client, reverse("projects:findings", args=[run2.pk]) + "?new=true&severity=error")
    assert new_errors == set(Finding.objects.filter(run=run2, severity="error").exclude(line=13)
                             .values_list("pk", flat=True))
    assert len(new_errors) == 3
    # The API gives the same link and the same list.
    api = client_for(world, "alice")
    body = api.get(reverse("api:run-gate", args=[run2.pk])).json()
    link = next(c["url"] for c in body["checks"] if c["name"] == "new_errors")
    assert link == url.replace("&amp;", "&")
    listed = api.get(reverse("api:run-findings", args=[run2.pk]),
                     {"new": "true", "severity": "error", "gate": "counted"}).json()
    assert [f["id"] for f in listed["results"]] == [counted.pk]


def test_text_and_api_filters_on_the_page_and_the_api(world, client):
    run = world.run
    client.login(username="alice", password=factories.PASSWORD)
    base = reverse("projects:findings", args=[run.pk])
    cuda = Finding.objects.get(run=run, torch_api="torch.Tensor.cuda")
    dropout = Finding.objects.get(run=run, torch_api="torch.nn.Dropout")
    linear = Finding.objects.get(run=run, torch_api="torch.nn.Linear")
    assert _ids_on_page(client, base + "?api=torch.Tensor.cuda") == {cuda.pk}
    assert _ids_on_page(client, base + "?api=torch.nn.*") == {dropout.pk, linear.pk}
    assert _ids_on_page(client, base + "?q=DROPOUT") == {dropout.pk}  # any case, in the message
    api = client_for(world, "alice")
    listed = api.get(reverse("api:run-findings", args=[run.pk]), {"q": "cuda", "api": "torch.Tensor.*"}).json()
    assert [f["id"] for f in listed["results"]] == [cuda.pk]


def test_the_findings_page_has_a_select_all_box(world, client):
    client.login(username="alice", password=factories.PASSWORD)
    html = client.get(reverse("projects:findings", args=[world.run.pk])).content.decode()
    assert 'id="select-all"' in html and "js/select_all.js" in html


def _tar_gz(files: dict[str, bytes]) -> bytes:
    return factories.tar_gz_files(files)


@pytest.mark.parametrize("name, data, words", [
    ("empty.zip", factories.zip_of({}), "The archive is empty"),
    ("empty.tar.gz", _tar_gz({}), "The archive is empty"),
    ("docs.zip", factories.zip_of({"repo/README.md": b"# hi\n", "repo/data.csv": b"1,2\n"}),
     "holds 2 files but no Python file (.py) or notebook (.ipynb)"),
], ids=["empty.zip", "empty.tar.gz", "docs.zip"])  # a .tar.gz's bytes hold its time: xdist's workers must agree on ids
def test_an_upload_with_nothing_to_analyse_is_refused_by_form_and_api(world, client, name, data, words):
    before = Run.objects.count()
    client.login(username="alice", password=factories.PASSWORD)
    url = reverse("projects:detail", args=[world.team.slug, world.project.slug])
    response = client.post(url, {"archive": factories.upload(name, data), "target": "classic", "ms_version": "2.10",
                                 "device": "cpu"}, HTTP_X_REQUESTED_WITH="XMLHttpRequest")
    assert response.status_code == 400
    assert words.lower() in response.json()["errors"]["archive"][0].lower()
    api = client_for(world, "alice")
    response = api.post(reverse("api:project-runs", args=[world.project.pk]),
                        {"archive": factories.upload(name, data)}, format="multipart")
    assert response.status_code == 400 and words in response.json()["archive"][0]
    assert Run.objects.count() == before


def test_an_archive_bomb_is_refused_at_upload(world, client, settings):
    """Refused by the upload check itself (the web process stops inflating at the limit), with the
    message the worker would have given, and nothing stored."""
    settings.PORTING_MAX_UNPACKED_BYTES = 8 * 1024 * 1024
    files = {f"repo/zeros{i}.bin": bytes(4 * 1024 * 1024) for i in range(8)} | {"repo/model.py": b"import torch\n"}
    before = Run.objects.count()
    client.login(username="alice", password=factories.PASSWORD)
    url = reverse("projects:detail", args=[world.team.slug, world.project.slug])
    response = client.post(url, {"archive": factories.upload("bomb.tar.gz", _tar_gz(files)), "target": "classic",
                                 "ms_version": "2.10", "device": "cpu"}, HTTP_X_REQUESTED_WITH="XMLHttpRequest")
    assert response.status_code == 400
    assert "unpacks to more than 8 MiB" in response.json()["errors"]["archive"][0]
    assert Run.objects.count() == before


def test_a_run_without_python_fails_at_unpack_and_fails_the_gate(world):
    """A run created past the upload check (an older client, a direct service call) still fails clearly."""
    run = make_run(world.project, world.admin, {}, status=Run.Status.RUNNING)
    run.archive.save("docs.zip", factories.upload("docs.zip", factories.zip_of({"README.md": b"x\n"})))
    with pytest.raises(StageFailed, match="no Python file"):
        run_unpack(run_id=run.pk)
