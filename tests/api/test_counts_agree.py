"""One definition per count (issue #19): what is left for a person and how many
parity checks pass read the same on the run page, the file list, a file's diff,
the API, the CI client's summary, JUnit and SARIF.

The run mixes every analyzer status, a person's marks and a skipped parity
check, the cases on which the figures used to disagree.
"""
from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET

import pytest
from django.test import Client
from django.urls import reverse

from porting_site.projects.models import Finding, SourceFile
from porting_site.triage.services import finding_triage

from .conftest import client_for, make_run
from .test_ci_client import load_client

NET = "import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n" + "    x = 1\n" * 20

STATUSES = ("converted", "review", "manual", "unresolved")


def _findings(n: int, offset: int = 0) -> list[dict]:
    rows = []
    for i in range(n):
        status = STATUSES[(i + offset) % 4]
        rows.append(dict(line=6 + i, rule_id=("MS-DEVICE-CUDA", "MS-DROPOUT-P", "MS-API-MAPPED")[i % 3],
                         severity=("error", "warning", "info")[i % 3], status=status,
                         torch_api=f"torch.api{i}", fingerprint=f"fp{offset}-{i}"))
    return rows


@pytest.fixture
def mixed_run(world):
    run = make_run(world.project, world.admin, {"pkg/net.py": (NET, _findings(11)),
                                                "pkg/head.py": (NET, _findings(7, offset=1))},
                   parity=[dict(name="Net", module="pkg.net", status="pass", metrics={"max_abs": 1e-7}),
                           dict(name="Head", module="pkg.head", status="fail", reason="outputs differ"),
                           dict(name="Data", module="pkg.data", status="skipped", reason="needs a dataset"),
                           dict(name="Loss", module="pkg.loss", status="skipped", reason="no input spec")])
    open_ones = Finding.objects.filter(run=run).exclude(status="converted").order_by("id")
    finding_triage(finding=open_ones[0], user=world.admin, action="false_positive", reason="dead code")
    finding_triage(finding=open_ones[1], user=world.admin, action="fixed")
    reviewed = open_ones.filter(status="review").last()
    finding_triage(finding=reviewed, user=world.admin, action="accept", reason="checked")
    return run


def _figure(html: str, name: str, scope: str = "") -> list[str]:
    part = html[html.index(scope):] if scope else html
    return re.findall(rf'data-figure="{name}"[^>]*>\s*([0-9]+)', part)


def test_left_and_parity_agree_across_pages_api_ci_junit_and_sarif(world, mixed_run):
    run = mixed_run
    left_by_hand = sum(1 for f in Finding.objects.filter(run=run)
                       if not (f.status == "converted" or f.triage in ("false_positive", "fixed")
                               or (f.triage == "accepted" and f.status != "unresolved")))
    left_errors = sum(1 for f in Finding.objects.filter(run=run, severity="error")
                      if not (f.status == "converted" or f.triage))

    # API: the run's figures.
    data = client_for(world, "bob").get(reverse("api:run", args=[run.pk])).json()
    fig = data["progress"]
    assert fig["left"] == left_by_hand and fig["left_error"] == left_errors
    assert (fig["parity_pass"], fig["parity_total"], fig["parity_skipped"]) == (1, 2, 2)
    progress_api = client_for(world, "bob").get(reverse("api:run-progress", args=[run.pk])).json()
    assert (progress_api["left"], progress_api["parity_total"]) == (left_by_hand, 2)

    # Pages: the run page, the file list's column, each file's diff view.
    web = Client()
    web.force_login(world.member)
    page = web.get(reverse("projects:run", args=[run.pk])).content.decode()
    assert re.search(rf'data-figure="left">{left_by_hand} left<', page)
    assert _figure(page, "parity_pass") == ["1"] and _figure(page, "parity_total") == ["2"]
    assert _figure(page, "parity_skipped") == ["2"]
    files_page = web.get(reverse("projects:files", args=[run.pk])).content.decode()
    column = [int(n) for n in re.findall(r'<td class="num" data-figure="left">(?:<a [^>]*>)?([0-9]+)', files_page)]
    assert sum(column) == left_by_hand and len(column) == 2
    per_file = 0
    for source in SourceFile.objects.filter(run=run):
        diff = web.get(reverse("projects:file", args=[run.pk, source.pk]), {"view": "diff"}).content.decode()
        shown = _figure(diff, "left", 'id="diff-left"')
        per_file += int(shown[0]) if shown else 0
        if not shown:
            assert "Nothing is left for a person" in diff
    assert per_file == left_by_hand

    # The CI client prints what the API says, in the page's words.
    client = load_client()
    out = io.StringIO()
    client.print_summary(data, {"team": "team-a", "slug": "detector"}, "http://x", out)
    text = out.getvalue()
    assert f"{left_by_hand} left for a person ({left_errors} errors" in text
    assert "parity: 1/2 entry points pass, 2 skipped" in text

    # JUnit: one failing case per file with errors left; its lines are those errors.
    junit = ET.fromstring(client_for(world, "bob").get(reverse("api:run-junit", args=[run.pk])).content)
    analysis = next(s for s in junit.findall("testsuite") if s.get("name") == "analysis")
    lines = [line for case in analysis.findall("testcase") for line in case.find("failure").text.splitlines()]
    assert len(lines) == left_errors
    parity = next(s for s in junit.findall("testsuite") if s.get("name") == "parity")
    assert int(parity.get("tests")) - int(parity.get("skipped")) == 2

    # SARIF: the results nobody marked are exactly what is left.
    sarif = json.loads(client_for(world, "bob").get(reverse("api:run-sarif", args=[run.pk])).content)
    results = sarif["runs"][0]["results"]
    assert sum(1 for r in results if "suppressions" not in r) == left_by_hand
    assert sum(1 for r in results if r.get("suppressions")) == 3
