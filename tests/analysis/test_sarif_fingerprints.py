"""SARIF for code scanning: a stable partialFingerprints on every result, and notebook results
located at the .ipynb line that holds the finding's code (real analyzer, official schema)."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from analysis.cli import analyze as analyze_cli
from analysis.report.notebook_lines import cell_line_map
from analysis.report.sarif import FINGERPRINT_KEY

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())

SCRIPT = """import torch
import torch.nn as nn

model = nn.Dropout(0.3)
x = torch.randn(2, 3).cuda()
"""

NOTEBOOK = {
    "nbformat": 4, "nbformat_minor": 5, "metadata": {},
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# A notebook\n", "\n", "with words\n"]},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
         "source": ["import torch\n", "import torch.nn as nn\n"]},
        {"cell_type": "markdown", "metadata": {}, "source": "More words"},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
         "source": ["model = nn.Linear(4, 2)\n", "x = torch.randn(3, 4)\n", "y = model(x).cuda()\n"]},
    ],
}


def _sarif(root: Path) -> dict:
    out = root.parent / f"{root.name}.sarif"
    assert analyze_cli.run({"path": str(root), "format": "sarif", "output": str(out)}, stdout=open("/dev/null", "w")) == 0
    sarif = json.loads(out.read_text())
    jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.FormatChecker()).validate(sarif)
    return sarif


def _results(sarif: dict, uri: str) -> list[dict]:
    return [r for r in sarif["runs"][0]["results"]
            if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == uri]


def test_every_result_has_a_fingerprint_that_survives_moved_lines(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "train.py").write_text(SCRIPT)
    before = _results(_sarif(repo), "train.py")
    assert before and all(r["partialFingerprints"][FINGERPRINT_KEY] for r in before)
    assert all("primaryLocationLineHash" not in r["partialFingerprints"] for r in before)  # GitHub's own key
    (repo / "train.py").write_text("# a comment\n\n\n" + SCRIPT)
    after = _results(_sarif(repo), "train.py")
    key = lambda r: (r["ruleId"], r["partialFingerprints"][FINGERPRINT_KEY])
    assert sorted(map(key, before)) == sorted(map(key, after))
    lines = lambda rs: sorted(r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in rs)
    assert lines(after) == [n + 3 for n in lines(before)]
    assert len({r["partialFingerprints"][FINGERPRINT_KEY] for r in after}) == len(after)


def test_notebook_results_point_at_the_ipynb_line_holding_the_code(tmp_path):
    repo = tmp_path / "nb"
    repo.mkdir()
    text = json.dumps(NOTEBOOK, indent=1)  # how Jupyter writes notebooks: one source line per file line
    (repo / "train.ipynb").write_text(text)
    results = _results(_sarif(repo), "train.ipynb")
    cuda = next(r for r in results if r["properties"]["torchApi"] == "torch.Tensor.cuda")
    region = cuda["locations"][0]["physicalLocation"]["region"]
    file_lines = text.splitlines()
    assert file_lines[region["startLine"] - 1].strip() == '"y = model(x).cuda()\\n"'
    assert "startColumn" not in region  # the JSON string's quoting shifts columns: the line is what counts
    assert (cuda["properties"]["cell"], cuda["properties"]["cellLine"]) == (3, 3)
    assert cuda["message"]["text"].endswith("[notebook cell 3, line 3]")
    assert all(r["partialFingerprints"][FINGERPRINT_KEY] for r in results)


def test_cell_line_map_reads_every_source_form():
    text = json.dumps({"cells": [
        {"cell_type": "code", "source": "a = 1\nb = 2"},  # one string: every line on the file line of that string
        {"cell_type": "markdown", "source": []},
        {"cell_type": "code", "source": ["c = 3\nd = 4\n", "e = 5"]},  # an element holding two lines
    ]}, indent=1)
    lines = text.splitlines()
    mapped = cell_line_map(text)
    one = next(i for i, l in enumerate(lines, 1) if '"a = 1' in l)
    two = next(i for i, l in enumerate(lines, 1) if '"c = 3' in l)
    three = next(i for i, l in enumerate(lines, 1) if '"e = 5' in l)
    assert mapped == {0: [one, one], 1: [], 2: [two, two, three]}
    assert cell_line_map("not json") == {} and cell_line_map('{"cells": 3}') == {}
