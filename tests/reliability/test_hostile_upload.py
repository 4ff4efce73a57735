"""A hostile upload through a real worker (Redis broker, PostgreSQL): a parser-crashing expression, NUL
bytes, a file name that is not UTF-8 and malformed notebooks, all inside the one top-level folder that
zipping a folder gives. Each bad file gets a finding, the rest of the run completes, the worker lives,
nothing with a NUL is stored, and every file page renders."""
from __future__ import annotations

import io
import json
import tarfile

import pytest
from django.urls import reverse

from porting_site.projects.models import ConvertedFile, Finding, Run, SourceFile
from tests import factories
from tests.flows.test_pipeline_e2e import wait_for_run

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

GOOD = b"import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n    def __init__(self):\n" \
       b"        super().__init__()\n        self.fc = nn.Linear(4, 2)\n\n    def forward(self, x):\n" \
       b"        return torch.relu(self.fc(x))\n"
FILES = {
    "myrepo/net.py": GOOD,
    "myrepo/poison_parens.py": b"import torch\nx = " + b"(" * 10_000 + b"1" + b")" * 10_000 + b"\n",
    "myrepo/poison_minus.py": b"import torch\nx = " + b"-" * 10_000 + b"1\n",
    "myrepo/poison_lambda.py": b"import torch\nf = " + b"lambda: " * 10_000 + b"1\n",
    "myrepo/nul_late.py": b"import torch\n" + b"x = 1\n" * 3000 + b"y = '\x00'\n",
    "myrepo/nul_early.py": b"import torch\x00\nx = 1\n",
    b"myrepo/caf\xe9.py".decode("utf-8", "surrogateescape"): b"import torch\nx = torch.zeros(2)\n",
    "myrepo/nb_source_number.ipynb": json.dumps(
        {"cells": [{"cell_type": "code", "source": 42}, {"cell_type": "code", "source": ["import torch\n", "torch.manual_seed(0)\n"]}]}).encode(),
    "myrepo/nb_source_mixed.ipynb": json.dumps({"cells": [{"cell_type": "code", "source": ["x = 1\n", 7, None]}]}).encode(),
    "myrepo/nb_cells_dict.ipynb": json.dumps({"cells": {"cell_type": "code"}}).encode(),
    "myrepo/nb_not_json.ipynb": b"{\"cells\": [",
    "myrepo/nb_cell_nul.ipynb": json.dumps({"cells": [{"cell_type": "code", "source": "import torch\x00\n"}]}).encode(),
}


def _tar_gz(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.GNU_FORMAT, encoding="utf-8",
                      errors="surrogateescape") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_hostile_sources_become_findings_and_the_run_completes(client, live_worker):
    team, member = factories.team_with_member("Hostile", "mallory")
    project = factories.project(team, "Poison")
    assert client.login(username="mallory", password=factories.PASSWORD)
    response = client.post(reverse("projects:detail", args=[team.slug, project.slug]),
                           {"archive": factories.upload("myrepo.tar.gz", _tar_gz(FILES)), "target": "classic",
                            "ms_version": "2.10", "device": "cpu"})
    assert response.status_code == 302, response.content[:2000]
    run = wait_for_run(Run.objects.get(project=project).pk, timeout=400)
    assert run.status == Run.Status.DONE, (run.error, live_worker.log_tail())
    assert live_worker.process.poll() is None  # the worker is alive
    assert "exited prematurely" not in live_worker.log_tail(1_000_000)  # and no pool process died

    paths = set(SourceFile.objects.filter(run=run).values_list("path", flat=True))
    assert paths == {name.split("/", 1)[1] for name in ["myrepo/net.py", *(n for n in FILES if n.isascii())]} | {
        "café.py"}  # top folder stripped; the Latin-1 name read as Latin-1

    def parse_errors(path: str) -> list[str]:
        return list(Finding.objects.filter(run=run, file__path=path, rule_id="MS-PARSE-ERROR")
                    .values_list("message", flat=True))

    for poison in ("poison_parens.py", "poison_minus.py", "poison_lambda.py"):
        assert any("nested more than" in m for m in parse_errors(poison)), poison
    for nul in ("nul_late.py", "nul_early.py"):
        assert any("NUL" in m for m in parse_errors(nul)), nul
    assert any("not text" in m for m in parse_errors("nb_source_number.ipynb"))
    assert Finding.objects.filter(run=run, file__path="nb_source_number.ipynb").exclude(
        rule_id="MS-PARSE-ERROR").exists()  # the readable cell is still analysed
    assert any("not text" in m for m in parse_errors("nb_source_mixed.ipynb"))
    assert any("not a readable notebook" in m for m in parse_errors("nb_cells_dict.ipynb"))
    assert any("not a readable notebook" in m for m in parse_errors("nb_not_json.ipynb"))
    assert any("NUL" in m for m in parse_errors("nb_cell_nul.ipynb"))
    assert Finding.objects.filter(run=run, file__path="net.py").exclude(rule_id="MS-PARSE-ERROR").exists()
    assert not parse_errors("net.py")

    converted = {c.file.path: c for c in ConvertedFile.objects.filter(run=run).select_related("file")}
    assert "mindspore" in converted["net.py"].text
    assert all("\x00" not in c.text and "\x00" not in c.diff for c in converted.values())
    assert "\ufffd" in converted["nul_late.py"].text

    for source in SourceFile.objects.filter(run=run):
        page = client.get(reverse("projects:file", args=[run.pk, source.pk]))
        assert page.status_code == 200, source.path
