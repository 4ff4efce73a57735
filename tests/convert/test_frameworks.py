"""Conversions checked by running both frameworks (slow: each run imports torch and MindSpore)."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest

from analysis.convert import convert_tree
from tests.conftest import REPO_ROOT, SAMPLE_REPO
from tests.convert.harness import load_corpus, pass_rates, run_corpus

pytestmark = pytest.mark.slow

# Builds each sample model in both frameworks, copies the PyTorch weights and running
# statistics into the converted cell by the layer map's attribute paths, compares eval outputs.
PARITY = textwrap.dedent(
    r'''
    import importlib, json, sys
    import numpy as np
    original, converted = sys.argv[1], sys.argv[2]
    layer_map = json.load(open(converted + "/.porting/layer_map.json"))
    BN_NAMES = {"weight": "gamma", "bias": "beta", "running_mean": "moving_mean", "running_var": "moving_variance"}

    def load(root, name):
        sys.path.insert(0, root)
        try:
            for key in [k for k in sys.modules if k == "models" or k.startswith("models.")]:
                del sys.modules[key]
            return importlib.import_module("models")
        finally:
            sys.path.remove(root)

    import torch
    torch.manual_seed(0)
    torch_models = load(original, "models")
    import mindspore
    ms_models = load(converted, "models")
    kinds = {r["attribute"]: r["torch_api"] for m in layer_map.values() for rs in m.values() for r in rs}
    results = {}
    for cls, shape in (("LeNet", (3, 1, 32, 32)), ("MLP", (5, 20))):
        tm = getattr(torch_models, cls)()
        # move BatchNorm statistics away from their defaults so the eval output depends on them
        tm.train()
        with torch.no_grad():
            tm(torch.randn(*shape) * 2 + 1)
        tm.eval()
        mm = getattr(ms_models, cls)()
        mm.set_train(False)
        params = {p.name: p for p in mm.get_parameters()}
        copied = 0
        for key, value in tm.state_dict().items():
            owner, _, leaf = key.rpartition(".")
            if leaf == "num_batches_tracked":
                continue
            if "BatchNorm" in kinds.get(owner, ""):
                leaf = BN_NAMES[leaf]
            params[f"{owner}.{leaf}"].set_data(mindspore.Tensor(value.numpy()))
            copied += 1
        x = np.cos(np.arange(np.prod(shape)) * 0.01).astype(np.float32).reshape(shape)
        expected = tm(torch.from_numpy(x)).detach().numpy()
        got = mm(mindspore.Tensor(x)).asnumpy()
        results[cls] = {"copied": copied, "params": len(params), "max_diff": float(np.abs(expected - got).max())}
    print(json.dumps(results))
    '''
)


def test_sample_models_compute_the_same_with_copied_weights(tmp_path):
    out = tmp_path / "converted"
    convert_tree(SAMPLE_REPO, out)
    proc = subprocess.run([sys.executable, "-c", PARITY, str(SAMPLE_REPO), str(out)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    for cls, r in results.items():
        assert r["copied"] == r["params"], (cls, r)  # every MindSpore parameter received a PyTorch value
        assert r["max_diff"] < 1e-4, (cls, r)


def test_converted_sample_training_script_runs_and_its_loss_decreases(tmp_path):
    out = tmp_path / "converted"
    convert_tree(SAMPLE_REPO, out)
    proc = subprocess.run([sys.executable, "train.py"], cwd=out, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    losses = [float(v) for v in re.findall(r"step \d+ loss ([0-9.]+)", proc.stdout)]
    assert len(losses) == 20
    assert sum(losses[-5:]) / 5 < 0.6 * sum(losses[:5]) / 5


def test_snippet_corpus_computes_the_same_under_both_frameworks():
    snippets = load_corpus()
    verdicts = run_corpus(snippets)
    semantic = {k: v for k, v in verdicts.items() if k.startswith("semantic/")}
    assert semantic and not any(semantic.values()), {k: v for k, v in semantic.items() if v}
    rates = pass_rates(snippets, verdicts)
    assert rates["total"]["apis"] >= 300
    assert rates["total"]["rate"] >= 0.85, rates["total"]
