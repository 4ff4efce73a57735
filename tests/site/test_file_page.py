"""The file page: what is left for a person by default, done uses closed, and notebooks shown
cell by cell with their real indices (real unpack, analyzer and converter on a real notebook)."""
from __future__ import annotations

import itertools
import json
import re

import pytest
from django.urls import reverse

from porting_site.projects import progress
from porting_site.projects.models import Finding, SourceFile
from porting_site.projects.services import run_analyze_batch, run_analyze_finish, run_convert, run_create, run_unpack
from tests import factories
from tests.api.conftest import make_run
from tests.site import data

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice(settings, tmp_path):
    data.use_tmp_storage(settings, tmp_path)
    team, alice = factories.team_with_member("Vision", "alice")
    return factories.project(team, "Detector"), alice


def test_is_done_agrees_with_the_done_query(alice):
    project, user = alice
    combos = list(itertools.product(progress.STATUSES, ("", *progress.MARKS)))
    rows = [dict(line=i + 1, rule_id="MS-API-DIFF", severity="warning", torch_api="torch.cat", status=status,
                 triage=mark) for i, (status, mark) in enumerate(combos)]
    run = make_run(project, user, {"m.py": ("x = 1\n" * len(rows), rows)})
    in_query = set(Finding.objects.filter(run=run).filter(progress.DONE).values_list("pk", flat=True))
    by_python = {f.pk for f in Finding.objects.filter(run=run) if progress.is_done(f)}
    assert by_python == in_query and 0 < len(in_query) < len(rows)


def _big_file(project, user):
    """A 226-line file with 96 findings, 65 of them converted (the issue's file, in shape)."""
    text = "".join(f"y{i} = torch.zeros({i})\n" for i in range(226))
    rows = [dict(line=1 + i * 2, rule_id="MS-API-MAPPED", severity="info", torch_api="torch.zeros",
                 status="converted") for i in range(65)]
    rows += [dict(line=140 + i, rule_id="MS-API-DIFF", severity="warning", torch_api="torch.cat", status="review")
             for i in range(31)]
    run = make_run(project, user, {"train.py": (text, rows)})
    return run, run.files.get()


def test_the_file_page_shows_what_is_left_and_closes_done_uses(alice, client):
    project, user = alice
    run, source = _big_file(project, user)
    client.force_login(user)
    url = reverse("projects:file", args=[run.pk, source.pk])
    html = client.get(url).content.decode()
    assert len(re.findall(r'<div class="finding ', html)) == 31  # left for a person only
    assert 'id="show-done"' in html and "65 done hidden" in html
    assert '<option value="left" selected>' in html
    html = client.get(url + "?show=all").content.decode()
    # All 96 are there, the 65 converted ones inside one closed line each.
    assert len(re.findall(r'<div class="finding ', html)) == 96
    closed = re.findall(r'<details class="done-uses" data-line="(\d+)"><summary>1 done here \(1 converted\)', html)
    assert len(closed) == 65 and closed[0] == "1"


NOTEBOOK = {
    "nbformat": 4, "nbformat_minor": 5, "metadata": {},
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Training a small net\n", "\n", "Some words.\n"]},
        {"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [],
         "source": ["import torch\n", "import torch.nn as nn\n"]},
        {"cell_type": "markdown", "metadata": {}, "source": "Now the model:"},
        {"cell_type": "code", "metadata": {}, "execution_count": 2, "outputs": [
            {"output_type": "stream", "name": "stdout", "text": ["x\n"] * 400}],
         "source": ["model = nn.Linear(4, 2)\n", "x = torch.randn(3, 4)\n", "y = model(x).cuda()\n"]},
    ],
}


def _notebook_run(project, user):
    archive = factories.upload("nb.zip", factories.zip_of({"nb/train.ipynb": json.dumps(NOTEBOOK, indent=1).encode()}))
    run = run_create(project=project, archive=archive, user=user, enqueue=False)
    batches = run_unpack(run_id=run.pk)
    for batch in batches:
        run_analyze_batch(run_id=run.pk, paths=batch)
    run_analyze_finish(run_id=run.pk)
    run_convert(run_id=run.pk)
    return run, SourceFile.objects.get(run=run, path="train.ipynb")


def test_a_notebook_page_shows_every_cell_and_places_findings_under_their_cell(alice, client):
    project, user = alice
    run, source = _notebook_run(project, user)
    assert source.lines == 5  # the code cells' lines, not the JSON's (over 400 here)
    cuda = Finding.objects.get(file=source, torch_api="torch.Tensor.cuda")
    assert (cuda.cell, cuda.line) == (3, 3)  # notebook cell 3 (markdown cells count), its third line
    client.force_login(user)
    html = client.get(reverse("projects:file", args=[run.pk, source.pk]) + "?show=all").content.decode()
    assert "Notebook: 4 cells, 2 of code, 5 source lines" in html
    assert re.findall(r'<section class="nb-cell nb-(\w+)" id="cell-(\d)"', html) == [
        ("markdown", "0"), ("code", "1"), ("markdown", "2"), ("code", "3")]
    cell3 = html[html.index('id="cell-3"'):]
    line3 = cell3[cell3.index('id="c3L3"'):]
    assert line3.index(f'id="F{cuda.pk}"') < line3.index("</section>")  # under cell 3's line 3
    assert "Some words." in html  # markdown is shown
    # The converted notebook: linked from the page, and a notebook Jupyter opens (its code converted).
    assert 'id="converted-download"' in html and "Converted notebook" in html
    response = client.get(reverse("projects:file-converted", args=[run.pk, source.pk]))
    converted = json.loads(response.content)
    assert [c["cell_type"] for c in converted["cells"]] == ["markdown", "code", "markdown", "code"]
    assert "mindspore" in "".join(converted["cells"][1]["source"])
    diff = client.get(reverse("projects:file", args=[run.pk, source.pk]) + "?view=diff").content.decode()
    assert "# ---- cell 3 ----" in diff and '"cell_type"' not in diff  # code beside code, not JSON


def test_the_runs_sarif_locates_notebook_results_in_the_ipynb(alice, client):
    project, user = alice
    run, source = _notebook_run(project, user)
    client.force_login(user)
    sarif = client.get(reverse("api:run-sarif", args=[run.pk]), {"converted": "true"}).json()
    results = sarif["runs"][0]["results"]
    cuda = next(r for r in results if r["properties"]["torchApi"] == "torch.Tensor.cuda")
    raw = json.dumps(NOTEBOOK, indent=1).splitlines()
    line = cuda["locations"][0]["physicalLocation"]["region"]["startLine"]
    assert raw[line - 1].strip() == '"y = model(x).cuda()\\n"'
    assert all(r["partialFingerprints"]["portingFinding/v1"] for r in results)
