"""The hand-curated classic supplement: it is merged reproducibly, names APIs that exist in the
installed MindSpore, and drives the generic argument conversion (varargs sizes, keyword renames,
literal translations, primitives, methods MindSpore tensors lack). Values are compared by the
snippet corpus (tests/convert/corpus/semantic/*: factories_varargs, reductions_keywords, ...)."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.convert import convert_source
from analysis.knowledge import load_mapping
from analysis.knowledge.build import DATA_DIR, build, supplement_files
from tests.conftest import REPO_ROOT

SUPPLEMENT = {name: raw for path in supplement_files("classic")
              for name, raw in json.loads(path.read_text(encoding="utf-8")).get("apis", {}).items()}
REFERENCE = REPO_ROOT.parent / "shared" / "reference"


def convert(source: str):
    result = convert_source(source)
    ast.parse(result.text)
    return result


@pytest.mark.skipif(not REFERENCE.exists(), reason="the reference tables are not on this machine")
def test_build_regenerates_the_committed_tables(tmp_path):
    for path in build(REFERENCE, tmp_path):
        assert path.read_text(encoding="utf-8") == (DATA_DIR / path.name).read_text(encoding="utf-8"), path.name


@pytest.mark.skipif(not REFERENCE.exists(), reason="the reference tables are not on this machine")
def test_a_family_file_in_the_supplement_folder_is_merged_after_the_main_file(tmp_path, monkeypatch):
    from analysis.knowledge import build as build_module

    folder = tmp_path / "classic_supplement"
    folder.mkdir()
    entry = {"mindspore": ["mindspore.ops.inner"], "category": "consistent", "checked": "a test entry",
             "note": "from the family file"}
    (folder / "family.json").write_text(json.dumps({"apis": {"torch.dot": entry},
                                                    "manual": {"torch.some_api": {"action": "by hand"}}}))
    monkeypatch.setitem(build_module.SUPPLEMENT_DIRS, "classic", folder)
    assert build_module.supplement_files("classic")[-1] == folder / "family.json"
    out = tmp_path / "out"
    out.mkdir()
    build(REFERENCE, out)
    payload = json.loads((out / "api_mapping_classic.json").read_text(encoding="utf-8"))
    assert payload["apis"]["torch.dot"]["note"] == "from the family file"  # it replaced the main file's entry
    assert payload["manual"]["torch.some_api"] == "by hand"
    committed = json.loads((DATA_DIR / "api_mapping_classic.json").read_text(encoding="utf-8"))
    assert payload["source_digest"] != committed["source_digest"]  # the folder's files count in the digest


def test_supplement_entries_replace_the_tables_entries():
    classic = load_mapping("classic")
    for name, raw in SUPPLEMENT.items():
        entry = classic.get(name)
        assert entry is not None and list(entry.mindspore) == raw["mindspore"], name
        assert raw["checked"], name  # every entry says how it was verified
    assert classic.get("torch.nn.Hardswish").primary == "mindspore.nn.HSwish"  # the table's Hswish does not exist
    ddof = classic.get("torch.std").param("unbiased")
    assert ddof.mindspore == "ddof" and ddof.value_for("True") == "1" and ddof.value_for("flag") is None


def test_every_supplement_target_exists_in_the_installed_mindspore(tmp_path):
    names = sorted({target for raw in SUPPLEMENT.values() for target in raw["mindspore"]})
    probe = (
        "import importlib, sys\n"
        "missing = []\n"
        "for name in sys.argv[1:]:\n"
        "    module, _, attr = name.rpartition('.')\n"
        "    try:\n"
        "        obj = importlib.import_module(module)\n"
        "    except ImportError:\n"
        "        owner, _, cls = module.rpartition('.')\n"
        "        obj = getattr(importlib.import_module(owner), cls, None)\n"
        "    if getattr(obj, attr, None) is None:\n"
        "        missing.append(name)\n"
        "print(','.join(missing))\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe, *names], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1:] in ([], [""]), proc.stdout


def test_sizes_given_one_by_one_are_packed_not_flagged_as_out():
    result = convert("import torch\na = torch.ones(2, 3)\nb = torch.zeros(2, 3, dtype=torch.int64)\n"
                     "c = torch.randn(2, 3)\nd = torch.ones((4,))\ne = torch.zeros(n)\n")
    assert "a = ops.ones((2, 3))" in result.text
    assert "b = ops.zeros((2, 3), dtype=mindspore.int64)" in result.text
    assert "c = ops.randn(2, 3)" in result.text  # MindSpore's randn takes *size too
    assert "d = ops.ones((4,))" in result.text and "e = ops.zeros(n)" in result.text
    assert not result.unconverted


def test_out_is_still_refused():
    result = convert("import torch\ntorch.ones(2, 3, out=buf)\n")
    assert [u.rule_id for u in result.unconverted] == ["MS-API-DIFF"]
    assert "out=" in result.unconverted[0].action


def test_keywords_renamed_from_the_target_signature():
    result = convert("import torch\nm = torch.mean(x, dim=1, keepdim=True)\nc = torch.cumsum(x, dim=0)\n"
                     "n = torch.count_nonzero(x, dim=1)\ns = torch.softmax(x, dim=-1)\n")
    assert "m = ops.mean(x, axis=1, keep_dims=True)" in result.text
    assert "c = ops.cumsum(x, axis=0)" in result.text
    # count_nonzero also goes through the kernel dtype bridge (its CPU kernel refuses bool)
    assert "n = kernel_dtypes(ops.count_nonzero, ((mindspore.bool_, mindspore.uint8),), x, axis=1)" in result.text
    assert "s = ops.softmax(x, axis=-1)" in result.text
    assert not result.unconverted


def test_std_and_var_keep_pytorchs_unbiased_estimate():
    result = convert("import torch\na = torch.std(x, dim=1)\nb = torch.var(x, 1, False)\n"
                     "c = torch.var(x, dim=0, correction=0)\nd = torch.std(x, unbiased=flag)\n")
    # (through the kernel dtype bridge, for complex tensors)
    assert "a = kernel_dtypes(ops.std, " in result.text and ", x, axis=1, ddof=1)" in result.text
    assert "b = kernel_dtypes(ops.var, " in result.text and ", x, 1, 0)" in result.text
    assert "c = kernel_dtypes(ops.var, " in result.text and ", x, axis=0, ddof=0)" in result.text  # correction sets ddof: no second default
    assert [u.torch_api for u in result.unconverted] == ["torch.std"]  # a non-literal bool cannot become ddof


def test_literals_translated_and_defaults_written_out():
    result = convert("import torch\nimport torch.nn as nn\na = nn.GELU()\nb = nn.GELU(approximate='tanh')\n"
                     "c = nn.GELU(approximate=mode)\nd = torch.flatten(x)\n")
    assert "a = nn.GELU(approximate=False)" in result.text  # MindSpore defaults to the tanh approximation
    assert "b = nn.GELU(approximate=True)" in result.text
    assert "d = ops.flatten(x, start_dim=0)" in result.text
    assert [u.torch_api for u in result.unconverted] == ["torch.nn.GELU"]  # a variable: no literal to translate


def test_tensor_methods_missing_in_mindspore_become_functions_but_layers_on_self_do_not():
    result = convert("import torch\nclass Net(torch.nn.Module):\n    def forward(self, x, y):\n"
                     "        a = (x + 1).relu()\n        b = x.dist(y)\n        c = self.relu(x)\n"
                     "        return x.clone(), x.fix()\n")
    assert "a = ops.relu(x + 1)" in result.text
    assert "b = lp_distance(x, y)" in result.text  # a local function: ops.dist takes no float p or float64
    assert "c = self.relu(x)" in result.text
    assert "return x.copy(), trunc(x)" in result.text  # a local function: MindSpore's trunc refuses integers


def test_normalize_goes_to_the_local_function_whatever_p_and_eps():
    result = convert("import torch.nn.functional as F\na = F.normalize(x)\nb = F.normalize(x, p=2, dim=0)\n"
                     "c = F.normalize(x, p=1)\nd = F.normalize(input=x, eps=1e-4)\n")
    # L2Normalize is the 2-norm only and takes three values of eps (values checked in linalg_norms_grid.py and
    # test_layer_input_forms.py)
    # (through the kernel dtype bridge, for complex tensors)
    for line in ("a = kernel_dtypes(normalize, ", "'phase'))), x)\n", "'phase'))), x, p=2, dim=0)", "'phase'))), x, p=1)",
                 "'phase'))), input=x, eps=1e-4)"):
        assert line in result.text
    assert "def normalize(input, p=2.0, dim=1, eps=1e-12):" in result.text and "L2Normalize(" not in result.text
    assert result.unconverted == []


def test_tiny_encoder_fixture_converts_without_torch():
    source = (REPO_ROOT / "tests" / "parity" / "fixtures" / "torch_repo" / "models" / "encoder.py").read_text()
    result = convert(source)
    assert not result.unconverted
    assert "import torch" not in result.text and "from torch" not in result.text
    assert "nn.Embedding(vocab_size, dim)" in result.text and "ops.softmax(" in result.text



@pytest.mark.slow
def test_automatic_conversion_of_the_fixture_models_matches_pytorch(tmp_path):
    """TinyEncoder (nn.Embedding, torch.softmax) and LSTMTagger (nn.Embedding) used to stay torch."""
    import shutil

    from analysis.parity import check_parity

    # Only the models asserted below: every discovered entry point is a box of its own (13-15 s on CI),
    # and the ResNet file's three entries (the stack and its two blocks) were checked here, never asserted.
    repo = tmp_path / "torch_repo"
    shutil.copytree(REPO_ROOT / "tests" / "parity" / "fixtures" / "torch_repo", repo)
    (repo / "models" / "resnet.py").unlink()
    report = check_parity(repo, loss_steps=3, timeout_s=240)
    entries = {e["name"]: e for e in report["entry_points"]}
    assert set(entries) == {"TinyEncoder", "LSTMTagger", "LeNet", "MLP"}
    for name in ("TinyEncoder", "LSTMTagger", "LeNet", "MLP"):
        assert entries[name]["status"] == "pass", (name, entries[name]["reason"])
        assert entries[name]["metrics"]["max_abs"] < 1e-5, name
