"""Notebooks and files that do not parse: reported, never raised."""
from __future__ import annotations

import json

import pytest

from analysis.scan import analyze_source


def _notebook(cells: list[tuple[str, str]]) -> bytes:
    return json.dumps({
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [{"cell_type": kind, "metadata": {}, "source": src.splitlines(keepends=True),
                   **({"outputs": [], "execution_count": None} if kind == "code" else {})} for kind, src in cells],
    }).encode()


def test_notebook_cells_and_lines():
    data = _notebook([
        ("markdown", "# Title"),
        ("code", "%matplotlib inline\nimport torch.nn as nn"),
        ("code", "x = 1\nd = nn.Dropout(0.3)"),
    ])
    report = analyze_source(data, "nb.ipynb")
    assert report.parse_error == ""
    dropout = next(f for f in report.findings if f.rule_id == "MS-DROPOUT-P")
    assert (dropout.cell, dropout.line, dropout.column) == (2, 2, 4)  # alias from an earlier cell resolved


def test_notebook_with_a_broken_cell_keeps_the_rest():
    data = _notebook([("code", "import torch"), ("code", "print 'old'"), ("code", "torch.manual_seed(1)")])
    report = analyze_source(data, "nb.ipynb")
    errors = [f for f in report.findings if f.rule_id == "MS-PARSE-ERROR"]
    assert len(errors) == 1 and errors[0].cell == 1
    seed = next(f for f in report.findings if f.rule_id == "MS-SEED")
    assert (seed.cell, seed.line) == (2, 1)


def test_notebook_that_is_not_json():
    report = analyze_source(b"{not json", "nb.ipynb")
    assert report.parse_error and [f.rule_id for f in report.findings] == ["MS-PARSE-ERROR"]


@pytest.mark.parametrize("data, words", [
    (b"import torch\ndef f(:\n    pass\n", "syntax error at line 2"),
    (b"import torch\nprint 'hello'\n", "Python 2"),
    (bytes(range(256)) * 4, "binary"),
    ("x = 'caf\u00e9'\n".encode("latin-1"), "UTF-8"),
    (b"\xef\xbb\xbfimport torch\nx = (\n", "syntax error"),
])
def test_unparsable_files_give_one_parse_error(data, words):
    report = analyze_source(data, "bad.py")
    assert words in report.parse_error
    assert [f.rule_id for f in report.findings] == ["MS-PARSE-ERROR"]
    assert report.findings[0].severity.value == "error"


def test_declared_latin1_is_python():
    data = "# -*- coding: latin-1 -*-\nimport torch\nname = 'caf\u00e9'\ntorch.manual_seed(0)\n".encode("latin-1")
    report = analyze_source(data, "ok.py")
    assert report.parse_error == "" and any(f.rule_id == "MS-SEED" for f in report.findings)


def test_deeply_nested_expression_does_not_crash():
    report = analyze_source("import torch\nx = " + "(" * 300 + "1" + ")" * 300 + "\n", "deep.py")
    assert report.parse_error == "" or report.findings[0].rule_id == "MS-PARSE-ERROR"
