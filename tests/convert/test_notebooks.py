"""Notebooks (issue 16, pattern 10): convert_tree converts a notebook's code cells as one program and
writes a notebook (outputs and execution counts cleared, magics kept, MIGRATE marks in the cells).
The slow test runs the original cells with torch and the converted cells with MindSpore."""
from __future__ import annotations

import ast
import json
import tempfile
from pathlib import Path

import pytest

from analysis.convert import convert_tree
from analysis.convert.notebook import convert_notebook
from tests.convert.harness import _run, _same


def _cell(kind: str, text: str, **extra) -> dict:
    cell = {"cell_type": kind, "metadata": {}, "source": text.splitlines(keepends=True)}
    if kind == "code":
        cell.update(execution_count=extra.get("count", 1), outputs=extra.get("outputs", []))
    return cell


OUTPUT = [{"output_type": "stream", "name": "stdout", "text": ["tensor(0.5)\n"]}]

NOTEBOOK = {
    "nbformat": 4, "nbformat_minor": 5,
    "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
    "cells": [
        _cell("markdown", "# Training a small regression\n"),
        _cell("code", "%matplotlib inline\nimport numpy as np\nimport torch\nimport torch.nn as nn\n", count=1),
        _cell("code", "x = torch.tensor(np.cos(np.arange(24) * 0.7).astype(np.float32).reshape(6, 4))\n"
                      "y = torch.tensor(np.sin(np.arange(12) * 0.3).astype(np.float32).reshape(6, 2))\n"
                      "model = fill(nn.Linear(4, 2))\n"
                      "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\nmodel", count=2,
              outputs=[{"output_type": "execute_result", "execution_count": 2, "metadata": {},
                        "data": {"text/plain": ["Linear(in_features=4, out_features=2, bias=True)"]}}]),
        _cell("code", "%%time\nlosses = []\nfor step in range(3):\n    out = model(x)\n"
                      "    loss = ((out - y) ** 2).mean()\n    optimizer.zero_grad()\n    loss.backward()\n"
                      "    optimizer.step()\n    losses.append(loss.item())\n", count=3, outputs=OUTPUT),
        _cell("code", "!echo done\nweight = model.weight.detach().numpy()\nprint(torch.cuda.is_available())\n",
              count=4, outputs=OUTPUT),
    ],
}


def _program(doc: dict) -> str:
    """The code cells as one script (magic lines left out), as a kernel would run them."""
    lines = []
    for cell in doc["cells"]:
        if cell["cell_type"] == "code":
            text = "".join(cell["source"])
            lines += [line for line in text.split("\n") if not line.lstrip().startswith(("%", "!"))]
    return "\n".join(lines) + "\n"


def _check_nbformat4(doc: dict) -> None:
    """The structure nbformat 4's schema asks for (nbformat itself is not installed here)."""
    assert set(doc) >= {"cells", "metadata", "nbformat", "nbformat_minor"} and doc["nbformat"] == 4
    for cell in doc["cells"]:
        assert cell["cell_type"] in ("code", "markdown", "raw")
        assert isinstance(cell["metadata"], dict)
        assert isinstance(cell["source"], (str, list)) and all(isinstance(s, str) for s in cell["source"])
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None


def test_tree_converts_a_notebook_into_a_valid_notebook():
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "src", Path(tmp) / "out"
        src.mkdir()
        (src / "train.ipynb").write_text(json.dumps(NOTEBOOK, indent=1))
        report = convert_tree(src, dst, jobs=1)
        doc = json.loads((dst / "train.ipynb").read_text())
    _check_nbformat4(doc)
    assert [c["cell_type"] for c in doc["cells"]] == [c["cell_type"] for c in NOTEBOOK["cells"]]
    assert doc["metadata"] == NOTEBOOK["metadata"] and doc["cells"][0] == NOTEBOOK["cells"][0]
    code = ["".join(c["source"]) for c in doc["cells"] if c["cell_type"] == "code"]
    assert "%matplotlib inline\nimport numpy as np\n" in code[0] and "import mindspore" in code[0]
    assert "nn.Dense(4, 2)" in code[1] and code[1].endswith("\nmodel")
    assert code[2].startswith("%%time\n") and "value_and_grad" in code[2]
    assert code[3].startswith("!echo done\n")
    assert "# MIGRATE(MS-DEVICE-CUDA)" in code[3]
    for text in code:
        ast.parse("\n".join(line for line in text.split("\n") if not line.lstrip().startswith(("%", "!"))))
    [result] = report.files
    [mark] = result.unconverted
    assert (mark.cell, mark.line, mark.rule_id) == (4, 3, "MS-DEVICE-CUDA")


def test_cells_that_do_not_parse_and_foreign_cell_magics_stay_as_they_were():
    doc = dict(NOTEBOOK, cells=[*NOTEBOOK["cells"], _cell("code", "print(torch.zeros(\n"),
                                _cell("code", "%%bash\necho torch\n")])
    result = convert_notebook(json.dumps(doc))
    out = json.loads(result.text)
    assert "".join(out["cells"][5]["source"]) == "print(torch.zeros(\n"
    assert "".join(out["cells"][6]["source"]) == "%%bash\necho torch\n"
    assert [(u.cell, u.rule_id) for u in result.unconverted][:2] == [(4, "MS-DEVICE-CUDA"), (5, "MS-PARSE-ERROR")]


def test_a_notebook_without_pytorch_is_left_as_it_is():
    doc = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
           "cells": [_cell("code", "import numpy as np\nnp.ones(3)", count=1, outputs=OUTPUT)]}
    text = json.dumps(doc)
    assert convert_notebook(text).text == text


@pytest.mark.slow
def test_converted_cells_train_like_the_original():
    converted = json.loads(convert_notebook(json.dumps(NOTEBOOK)).text)
    compare = ["losses", "weight"]
    with tempfile.TemporaryDirectory() as tmp:
        torch_side = _run("torch", [{"name": "nb", "source": _program(NOTEBOOK), "compare": compare}], Path(tmp), 300)
        ms_side = _run("mindspore", [{"name": "nb", "source": _program(converted), "compare": compare}],
                       Path(tmp), 300)
    assert "error" not in torch_side["nb"] and "error" not in ms_side["nb"], (torch_side, ms_side)
    for name in compare:
        assert _same(torch_side["nb"]["values"][name], ms_side["nb"]["values"][name], 1e-4) == ""


def test_cli_converts_one_notebook_and_names_the_cell(tmp_path):
    import io

    from analysis.cli import convert as cli

    src = tmp_path / "train.ipynb"
    src.write_text(json.dumps(NOTEBOOK))
    out = io.StringIO()
    assert cli.run({"src": str(src), "out": str(tmp_path / "out.ipynb")}, out) == 0
    _check_nbformat4(json.loads((tmp_path / "out.ipynb").read_text()))
    assert "train.ipynb:cell 4, line 3: MS-DEVICE-CUDA" in out.getvalue()


def test_a_step_split_over_cells_leaves_the_cells_and_marks_the_backward():
    doc = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        _cell("code", "import torch\nimport torch.nn as nn\nmodel = nn.Linear(2, 1)\n"
                      "opt = torch.optim.SGD(model.parameters(), lr=0.1)\nx = torch.ones(3, 2)\n"),
        _cell("code", "out = model(x)\nloss = out.sum()\n"),
        _cell("code", "opt.zero_grad()\nloss.backward()\nopt.step()\n")]}
    result = convert_notebook(json.dumps(doc))
    out = json.loads(result.text)
    assert ["".join(c["source"]) for c in out["cells"]] == ["".join(c["source"]) for c in doc["cells"]]
    assert [(u.cell, u.line, u.rule_id) for u in result.unconverted] == [(2, 2, "MS-TRAIN-LOOP")]
