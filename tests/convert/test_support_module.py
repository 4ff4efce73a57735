"""Helpers written once per converted tree: a support module the converted files import from, placed
where Python finds it for a script, a notebook, a plain folder's module and a package's module; no
helper definition inside a user's file; the converted scripts run under MindSpore and give PyTorch's
numbers."""
from __future__ import annotations

import ast
import io
import json
import os
import subprocess
import sys

import numpy as np
import torch

from analysis.cli import convert as cli
from analysis.convert import convert_source, convert_tree
from analysis.convert.support import helpers
from tests.conftest import REPO_ROOT

ATTENTION = """import torch
import torch.nn.functional as F


def attend(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)
"""
NORM = '''"""Normalisation."""
from __future__ import annotations

import torch.nn.functional as F


def norm(x):
    return F.layer_norm(x, (4,))
'''
# a script in a folder of its own, run from anywhere: sys.path[0] is its folder
SCRIPT = """import numpy as np
import torch
import torch.nn.functional as F

x = torch.tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7)
print(F.layer_norm(x, (4,)).sum(-1).tolist())
"""
# the root script: imports a package's module (relative import inside) and a plain folder's module
MAIN = """import numpy as np
import torch

from pkg.sub.attention import attend
from lib.norms import norm

x = torch.tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7)
print(attend(x, x, x).flatten().tolist())
print(norm(x).flatten().tolist())
"""
NOTEBOOK = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                       "source": ["import torch\n", "import torch.nn.functional as F\n",
                                  "y = F.layer_norm(torch.ones(2, 4), (4,))\n"]}],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _tree(root, files):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text if isinstance(text, str) else json.dumps(text))
    return root


def _defined(text: str) -> set[str]:
    return {n.name for n in ast.parse(text).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


def _run(args, cwd):
    env = {**os.environ, "PYTHONPATH": ""}  # the converted tree alone: no product, no test code
    done = subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("[")]


def test_a_tree_imports_its_helpers_from_one_support_module_text(tmp_path):
    src = _tree(tmp_path / "src", {
        "main.py": MAIN, "pkg/__init__.py": "", "pkg/sub/__init__.py": "", "pkg/sub/attention.py": ATTENTION,
        "lib/norms.py": NORM, "tools/stats.py": SCRIPT, "notes/try.ipynb": NOTEBOOK, "plain.py": "import torch\n"})
    report = convert_tree(src, tmp_path / "out", jobs=1)
    out = tmp_path / "out"
    assert report.support == ["lib/ms_support.py", "ms_support.py", "notes/ms_support.py", "pkg/ms_support.py",
                              "tools/ms_support.py"]
    texts = {rel: (out / rel).read_text() for rel in report.support}
    assert len(set(texts.values())) == 1  # one text, written where each file can find it
    support = texts["ms_support.py"]
    assert support.startswith('"""MindSpore helpers of this converted tree, written by porting-dashboard ')
    assert helpers.support_names(support) == ["scaled_dot_product_attention", "layer_norm"]  # what the tree uses
    # the package's module imports relatively, the others by name, with the user's imports
    attention = (out / "pkg/sub/attention.py").read_text()
    assert "from ..ms_support import scaled_dot_product_attention\n" in attention
    norms = (out / "lib/norms.py").read_text()
    assert norms.startswith('"""Normalisation."""\nfrom __future__ import annotations\nfrom ms_support import layer_norm\n')
    notebook = json.loads((out / "notes/try.ipynb").read_text())
    assert "from ms_support import layer_norm\n" in notebook["cells"][0]["source"]
    assert (out / "plain.py").read_text().count("ms_support") == 0  # no helper used, nothing imported
    for result in report.files:  # no helper definition inside a user's file
        text = (out / result.path).read_text()
        assert not _defined(text if not result.path.endswith(".ipynb") else "") & set(helpers.definitions())
    assert json.loads((out / ".porting/report.json").read_text())["support"] == report.support

    # run with MindSpore: the root script (a package's and a plain folder's module), the script in
    # its folder called from the root; PyTorch's numbers from the originals
    sys.path.insert(0, str(src))
    try:
        from lib.norms import norm as torch_norm
        from pkg.sub.attention import attend as torch_attend
    finally:
        sys.path.remove(str(src))
        for name in [n for n in sys.modules if n.split(".")[0] in ("pkg", "lib")]:
            del sys.modules[name]
    x = torch.tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7)
    attended, normed = _run(["main.py"], out)
    np.testing.assert_allclose(attended, torch_attend(x, x, x).flatten().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(normed, torch_norm(x).flatten().numpy(), rtol=1e-5, atol=1e-5)
    (sums,) = _run(["tools/stats.py"], out)
    np.testing.assert_allclose(sums, torch.nn.functional.layer_norm(x, (4,)).sum(-1).numpy(), atol=1e-5)


def test_a_tree_that_has_an_ms_support_of_its_own_gets_another_name(tmp_path):
    src = _tree(tmp_path / "src", {"ms_support.py": "VALUE = 1\n", "norms.py": NORM})
    report = convert_tree(src, tmp_path / "out", jobs=1)
    assert report.support == ["ms_support_2.py"]
    assert (tmp_path / "out/ms_support.py").read_text() == "VALUE = 1\n"
    assert "from ms_support_2 import layer_norm\n" in (tmp_path / "out/norms.py").read_text()


def test_a_helper_name_the_file_uses_is_imported_under_another(tmp_path):
    text = NORM + "\nlayer_norm = 3\n"
    result = convert_source(text, support="ms_support")
    assert "from ms_support import layer_norm as ms_layer_norm\n" in result.text
    assert "return ms_layer_norm(x, (4,))" in result.text and result.support_names == ["layer_norm"]


def test_without_a_support_module_the_text_stands_alone():
    result = convert_source(NORM)
    assert "def layer_norm(" in result.text and "ms_support" not in result.text and result.support_names == []


def test_the_support_module_holds_the_helpers_its_helpers_call():
    used = "load_state_dict_into"
    callees = set(helpers.definitions()[used][1])
    assert callees  # it calls others: they must come along
    assert set(helpers.support_names(helpers.support_module([used]))) == {used, *callees}


def test_cli_files_converted_into_one_folder_share_and_keep_its_support_module(tmp_path):
    (tmp_path / "a.py").write_text(ATTENTION)
    (tmp_path / "b.py").write_text(NORM)
    (tmp_path / "nb.ipynb").write_text(json.dumps(NOTEBOOK))
    out = tmp_path / "out"
    out.mkdir()
    for name in ("a.py", "b.py", "nb.ipynb"):
        assert cli.run({"src": str(tmp_path / name), "out": str(out)}, io.StringIO()) == 0
    assert set(helpers.support_names((out / "ms_support.py").read_text())) == {"scaled_dot_product_attention",
                                                                                "layer_norm"}
    assert "from ms_support import scaled_dot_product_attention\n" in (out / "a.py").read_text()
    # a file of the user's named so beside the source: the support module steps aside
    (tmp_path / "ms_support.py").write_text("VALUE = 1\n")
    other = tmp_path / "other"
    other.mkdir()
    assert cli.run({"src": str(tmp_path / "b.py"), "out": str(other)}, io.StringIO()) == 0
    assert "from ms_support_2 import layer_norm\n" in (other / "b.py").read_text()
    assert (other / "ms_support_2.py").is_file() and not (other / "ms_support.py").exists()


def test_the_product_is_not_needed_to_run_a_support_module():
    """The text imports MindSpore and nothing of this repository."""
    tree = ast.parse(helpers.support_module(["einsum", "save_image", "func_grad"]))
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert imported <= {"mindspore", "numpy", "PIL", "math", "itertools", "functools"}, imported
    assert not (REPO_ROOT / "ms_support.py").exists()


def test_change_records_say_where_the_helper_lives():
    """One helper call (support.helpers.call) for the composed, exact-form, composition, functional and
    torch.func rewrites: its record names the support module when there is one."""
    source = ("import torch\nimport torch.nn.functional as F\nfrom torch.func import jacrev\n\n"
              "def f(x, y):\n    a = torch.max(x)\n    b = F.layer_norm(x, (4,))\n"
              "    c = torch.einsum('ij,jk->ik', x, y)\n    d = jacrev(torch.sin)(x)\n    return a, b, c, d\n")
    inline = convert_source(source)
    shared = convert_source(source, support="..ms_support")
    helped = {c.mindspore_api for c in shared.changes if "imported from ms_support" in c.description}
    # torch.max also goes through the kernel dtype bridge (its CPU kernel refuses bool)
    assert helped == {"max_all", "layer_norm", "einsum", "func_jacrev", "kernel_dtypes"}
    assert set(shared.support_names) == helped
    assert {c.mindspore_api for c in inline.changes if "written into this file" in c.description} == helped
    assert [c.line for c in inline.changes] == [c.line for c in shared.changes]


def test_an_einops_file_gets_the_backend_by_importing_the_support_module(tmp_path):
    """The backend class registers itself with einops when its class statement runs: importing it
    from the support module runs it, before the file's einops calls."""
    import pytest

    pytest.importorskip("einops")
    source = ("import numpy as np\nimport torch\nfrom einops import rearrange, reduce\n"
              "from einops.layers.torch import Rearrange\n\n"
              "x = torch.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))\n"
              "print([list(rearrange(x, 'b c -> c b').shape), reduce(x, 'b c -> b', 'sum').tolist(),"
              " list(Rearrange('b c -> c b')(x).shape)])\n")
    src = _tree(tmp_path / "src", {"m.py": source})
    report = convert_tree(src, tmp_path / "out", jobs=1)
    assert report.support == ["ms_support.py"]
    assert "from ms_support import MindSporeEinopsBackend, Rearrange\n" in (tmp_path / "out/m.py").read_text()
    assert _run(["m.py"], tmp_path / "out") == [[[3, 2], [3.0, 12.0], [3, 2]]]
