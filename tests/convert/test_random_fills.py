"""In-place random fills (w.uniform_(-s, s), nn.Parameter(torch.zeros(n).normal_(0, s))...): MindSpore
2.10 has no CPU kernel for them, so they were marked and a model initialised this way could not be built
(siren-pytorch's Siren). They become x.assign_value(<helper>(x, ...)), a fresh draw of x's shape and dtype.
Values cannot match PyTorch's (other generators): the slow test compares shape, dtype, support and the
first two moments of large draws in both frameworks."""
from __future__ import annotations

import math

import pytest

from analysis.convert import convert_source
from tests.convert.both_frameworks import run_script as _run

SOURCE = '''
import json
import numpy as np
import torch
import torch.nn as nn

N = (200, 100)
w = torch.zeros(N)
back = w.uniform_(-0.5, 1.5)
layer = nn.Linear(100, 200)
with torch.no_grad():
    layer.weight.normal_(0.5, 2.0)
layer.bias.data.uniform_(-3, -2)
b = torch.zeros(N, dtype=torch.float64)
b.bernoulli_(0.3)
e = torch.empty(N).exponential_(2.0)
g = torch.zeros(N).geometric_(0.25)
r = torch.zeros(N, dtype=torch.int64)
r.random_(3, 9)
ln = torch.zeros(N).log_normal_(0.0, 0.5)
h = torch.zeros(N, dtype=torch.float16).normal_()
latent = nn.Parameter(torch.zeros(20000).normal_(0, 1e-2))
u = w.clone().uniform_(to=4.0)
iw = nn.Parameter(torch.zeros(N))
nn.init.normal_(iw.data, 1.0, 0.5)  # init through .data: a copy in MindSpore
it = torch.zeros(N)
nn.init.uniform_(it.data, 0, 2)


def stats(t):
    a = (t.detach().numpy() if hasattr(t, "detach") else t.asnumpy())
    f = a.astype(np.float64)
    return {"shape": list(a.shape), "dtype": str(a.dtype), "min": float(f.min()), "max": float(f.max()),
            "mean": float(f.mean()), "std": float(f.std()), "distinct": sorted(set(f.ravel().tolist()))[:12]}


print("RESULT " + json.dumps({"back_is_w": back is w, **{k: stats(v) for k, v in {
    "w": w, "weight": layer.weight, "bias": layer.bias, "b": b, "e": e, "g": g, "r": r, "ln": ln, "h": h,
    "latent": latent, "u": u, "iw": iw, "it": it}.items()}}))
'''


def test_random_fills_become_draws_written_back():
    result = convert_source(SOURCE)
    text = result.text
    assert "back = w.assign_value(uniform_fill(w, -0.5, 1.5))" in text
    assert "layer.weight.assign_value(normal_fill(layer.weight, 0.5, 2.0))" in text
    assert "layer.bias.assign_value(uniform_fill(layer.bias, -3, -2))" in text  # .data: the Parameter itself
    assert "b.assign_value(bernoulli_fill(b, 0.3))" in text
    assert "r.assign_value(random_fill(r, 3, 9))" in text
    # a tensor just built: the draw is the value
    assert "latent = mindspore.Parameter(normal_fill(ops.zeros(20000), 0, 1e-2))" in text
    assert "u = uniform_fill(w.copy(), high=4.0)" in text
    assert "def uniform_fill(" in text and "def unit_draw(" in text
    assert "iw.assign_value(init.initializer(init.Normal(mean=1.0, sigma=0.5), iw.shape" in text
    assert "it.assign_value(((init.initializer(" in text
    assert not result.unconverted


def test_init_of_part_of_a_tensor_is_marked():
    # w[0] is a copy in MindSpore: assign_value on it left w as it was, silently
    result = convert_source("import torch\nimport torch.nn as nn\nw = nn.Parameter(torch.zeros(3, 3))\n"
                            "nn.init.uniform_(w[0], -1, 1)\nnn.init.normal_(w.view(-1))\n")
    assert [u.line for u in result.unconverted] == [4, 5]
    assert "w[index] = " in result.unconverted[0].action


def test_random_fill_with_a_generator_or_on_part_of_a_tensor_is_marked():
    result = convert_source("import torch\nx = torch.zeros(3)\ngen = torch.Generator()\n"
                            "x.uniform_(0, 1, generator=gen)\nx[1:].normal_()\n")
    assert [u.line for u in result.unconverted] == [4, 5]
    assert "set_seed" in result.unconverted[0].action
    assert "def uniform_fill(" not in result.text


def _close(torch_stats, ms_stats, name, spread):
    """Means within 6 standard errors of each other (n draws each), spreads within 5 % or, for a small
    draw (the 200 biases), within the sample spread's own noise (about spread / sqrt(n) for these
    distributions; a fixed 5 % failed one run in three at n = 200)."""
    n = math.prod(torch_stats["shape"])
    assert abs(torch_stats["mean"] - ms_stats["mean"]) < 6 * spread * math.sqrt(2 / n), name
    assert abs(torch_stats["std"] - ms_stats["std"]) < max(0.05, 5 / math.sqrt(n)) * spread, name


@pytest.mark.slow
def test_draws_have_pytorch_distribution(tmp_path):
    ref = _run(tmp_path / "torch", SOURCE)
    got = _run(tmp_path / "ms", convert_source(SOURCE).text)
    assert ref["back_is_w"] is True and got["back_is_w"] is True  # the receiver itself comes back
    for name in ("w", "weight", "bias", "b", "e", "g", "r", "ln", "h", "latent", "u", "iw", "it"):
        t, m = ref[name], got[name]
        assert (m["shape"], m["dtype"]) == (t["shape"], t["dtype"]), name
        _close(t, m, name, t["std"])
    # supports: bounded draws stay in their bounds, discrete ones take PyTorch's values
    assert -0.5 <= got["w"]["min"] and got["w"]["max"] < 1.5 and got["w"]["max"] > 1.4
    assert -3 <= got["bias"]["min"] and got["bias"]["max"] < -2
    assert 0 <= got["u"]["min"] and got["u"]["max"] < 4
    assert 0 <= got["it"]["min"] and got["it"]["max"] <= 2 and got["it"]["std"] > 0.5
    assert got["b"]["distinct"] == ref["b"]["distinct"] == [0.0, 1.0]
    assert got["r"]["distinct"] == ref["r"]["distinct"] == [3, 4, 5, 6, 7, 8]
    assert got["g"]["min"] == ref["g"]["min"] == 1 and got["g"]["distinct"][:5] == [1, 2, 3, 4, 5]
    assert got["e"]["min"] >= 0 and got["ln"]["min"] > 0
    assert abs(got["latent"]["std"] - 1e-2) < 5e-4 and abs(got["weight"]["mean"] - 0.5) < 0.1
