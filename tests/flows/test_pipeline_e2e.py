"""End to end: log in, upload the sample repository through the browser form,
and let a real Celery worker (real Redis broker, PostgreSQL database) run the
whole pipeline; then check what it stored."""
from __future__ import annotations

import time

import pytest
from django.urls import reverse

from porting_site.projects.models import ConvertedFile, Finding, ParityResult, Run, Stage
from tests import factories
from tests.conftest import SAMPLE_REPO

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def wait_for_run(run_id: int, timeout: float = 420) -> Run:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = Run.objects.get(pk=run_id)
        if run.is_finished:
            return run
        time.sleep(1)
    raise AssertionError(f"run {run_id} did not finish in {timeout} s: {Run.objects.get(pk=run_id).status}")


def test_uploaded_sample_repo_is_analysed_converted_and_checked(client, live_worker, settings):
    team, member = factories.team_with_member("Vision", "alice")
    project = factories.project(team, "Sample")
    assert client.login(username="alice", password=factories.PASSWORD)

    archive = factories.upload("sample.tar.gz", factories.tar_gz_of(SAMPLE_REPO, "pytorch_sample"))
    response = client.post(
        reverse("projects:detail", args=[team.slug, project.slug]),
        {"archive": archive, "target": "classic", "ms_version": "2.4", "device": "cpu"},
    )
    assert response.status_code == 302, response.content[:2000]
    run = Run.objects.get(project=project)
    assert response["Location"] == reverse("projects:run", args=[run.pk])

    run = wait_for_run(run.pk)
    assert run.status == Run.Status.DONE, run.error
    assert list(run.stages.values_list("status", flat=True)) == [Stage.Status.DONE] * 5
    analyze = run.stages.get(name=Stage.Name.ANALYZE)
    assert analyze.done == analyze.total == run.files.count() == 4

    # Analysis: resolved through `import torch.nn as nn` and `from torch import nn`.
    lenet = run.files.get(path="models/lenet.py")
    dropout = Finding.objects.get(file=lenet, torch_api="torch.nn.Dropout", line=17)
    assert dropout.mindspore_api == "mindspore.nn.Dropout"
    # both Conv2d calls mapped (converted once verification by execution agrees, else a difference to review)
    assert Finding.objects.filter(file=lenet, torch_api="torch.nn.Conv2d",
                                  rule_id__in=("MS-API-MAPPED", "MS-API-DIFF")).count() == 2
    momentum = Finding.objects.get(file=lenet, rule_id="MS-BN-MOMENTUM")
    # the converter wrote MindSpore's 1 - m: a converted use is info, no longer an error (issue 27)
    assert (momentum.line, momentum.severity, momentum.status) == (12, "info", "converted")
    mlp = run.files.get(path="models/mlp.py")
    assert Finding.objects.filter(file=mlp, torch_api="torch.nn.BatchNorm1d").exists()

    # Conversion: Module -> Cell, forward -> construct, Linear -> Dense.
    converted = ConvertedFile.objects.get(file=lenet)
    assert "nn.Cell" in converted.text and "def construct(self, x)" in converted.text
    assert "nn.Dense(" in converted.text and "nn.Linear(" not in converted.text
    assert converted.diff.startswith("---")

    # Parity: both models check out against their converted cells.
    results = {r.name: r for r in ParityResult.objects.filter(run=run)}
    for name in ("LeNet", "MLP"):
        assert results[name].status == ParityResult.Status.PASS, (name, results[name].reason)
        assert results[name].metrics["max_abs"] < 1e-4

    # The transferred weights come back as a MindSpore checkpoint.
    download = client.get(reverse("projects:parity-checkpoint", args=[run.pk, results["LeNet"].pk]))
    assert download.status_code == 200 and len(b"".join(download.streaming_content)) > 10_000

    page = client.get(reverse("projects:file", args=[run.pk, lenet.pk]) + "?show=all")  # converted uses too
    assert page.status_code == 200
    assert b'id="L17"' in page.content and b"torch.nn.Dropout" in page.content


def test_broken_archive_leaves_the_run_failed_with_the_reason(client, live_worker):
    team, member = factories.team_with_member("Audio", "bob")
    project = factories.project(team, "Broken")
    assert client.login(username="bob", password=factories.PASSWORD)
    response = client.post(
        reverse("projects:detail", args=[team.slug, project.slug]),
        {"archive": factories.upload("repo.tar.gz", b"\x1f\x8b\x08 definitely not gzip"), "target": "classic",
         "ms_version": "2.4", "device": "cpu"},
    )
    assert response.status_code == 302
    run = wait_for_run(Run.objects.get(project=project).pk, timeout=120)
    assert run.status == Run.Status.FAILED
    assert "unpack failed" in run.error and "archive" in run.error
    assert run.stages.get(name=Stage.Name.UNPACK).status == Stage.Status.FAILED


def test_hand_edited_converted_tree_is_checked_instead_of_ours(client, live_worker, tmp_path):
    """The convert, edit, check-again workflow: the team uploads its own MindSpore
    tree next to the original; parity checks that tree and names the layer the
    edit broke (BatchNorm momentum left at PyTorch's value)."""
    from analysis.archive import pack_tree
    from analysis.convert import convert_tree

    team, member = factories.team_with_member("Edits", "dora")
    project = factories.project(team, "Edited")
    assert client.login(username="dora", password=factories.PASSWORD)
    ours = tmp_path / "converted" / "pytorch_sample"
    convert_tree(SAMPLE_REPO, ours, jobs=1)
    lenet = ours / "models" / "lenet.py"
    text = lenet.read_text()
    assert "momentum=0.9" in text
    lenet.write_text(text.replace("momentum=0.9", "momentum=0.1"))  # the hand edit that breaks parity

    response = client.post(
        reverse("projects:detail", args=[team.slug, project.slug]),
        {"archive": factories.upload("sample.tar.gz", factories.tar_gz_of(SAMPLE_REPO, "pytorch_sample")),
         "converted_archive": factories.upload("edited.tar.gz", pack_tree(ours, "pytorch_sample")),
         "target": "classic", "ms_version": "2.4", "device": "cpu"},
    )
    assert response.status_code == 302, response.content[:2000]
    run = wait_for_run(Run.objects.get(project=project).pk)
    assert run.status == Run.Status.DONE, run.error
    assert "your converted tree" in run.stages.get(name=Stage.Name.CONVERT).detail

    stored = ConvertedFile.objects.get(file__path="models/lenet.py", run=run)
    assert "momentum=0.1" in stored.text and "+++ b/models/lenet.py" in stored.diff
    results = {r.name: r for r in ParityResult.objects.filter(run=run)}
    assert results["MLP"].status == ParityResult.Status.PASS
    assert results["LeNet"].status == ParityResult.Status.FAIL
    assert results["LeNet"].first_diverging_layer == "bn1", results["LeNet"].reason
