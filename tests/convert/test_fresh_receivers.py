"""In-place calls on a tensor a call has just made (g-mlp's torch.ones(n, n).triu_(1), x.clone().clamp_(0, 1),
siren's grid.clone().detach().requires_grad_()): nothing else holds the tensor, so the out-of-place value is
the whole effect. They were marked (the receiver was "part of a tensor or a computed one"); triu_ was marked
on any receiver, its out-of-place form being named differently in the tables although the verification ran
x.triu(1) as it stands. The slow test runs the original with PyTorch and the conversion with MindSpore."""
from __future__ import annotations

import pytest

from analysis.convert import convert_source
from tests.convert.both_frameworks import run_script as _run

SOURCE = '''
import json
import numpy as np
import torch

x = torch.tensor(np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4))
mask = torch.ones(4, 4).triu_(1).bool()
low = torch.ones(x.shape[-2:]).tril_(-1)
clipped = x.clone().clamp_(-1, 1)
scaled = (x * 2).exp().mul_(0.5)
m = torch.ones(3, 3)
m.triu_(1)
filled = x.masked_fill(mask[:3], 0.0)


def values(t):
    a = t.detach().numpy() if hasattr(t, "detach") else t.asnumpy()
    return np.round(a.astype(np.float64), 4).tolist() + [str(a.dtype)]


print("RESULT " + json.dumps({k: values(v) for k, v in {
    "mask": mask, "low": low, "clipped": clipped, "scaled": scaled, "m": m, "filled": filled,
    "x": x}.items()}))
'''


def test_in_place_calls_on_a_fresh_tensor_become_its_value():
    result = convert_source(SOURCE)
    text = result.text
    assert "mask = triu(ops.ones((4, 4)), 1).bool()" in text  # triu's helper (no complex Triu kernel)
    assert ".tril(-1)" in text and "tril_" not in text
    assert "clipped = x.copy().clamp(-1, 1)" in text
    assert ".exp().mul(0.5)" in text and "mul_" not in text
    assert "m.assign_value(triu(m, 1))" in text
    assert not result.unconverted


def test_a_receiver_someone_may_hold_stays_marked():
    # a user's function may return a tensor it keeps; a view shares the caller's tensor
    result = convert_source("import torch\nx = torch.zeros(3, 3)\nmake(x).clamp_(0, 1)\nx.view(-1).triu_(1)\n"
                            "x.detach().clamp_(0, 1)\ntorch.add(x, 1, out=x).clamp_(0, 1)\n")
    assert sorted({u.line for u in result.unconverted}) == [3, 4, 5]
    assert sum("clamp_" in u.torch_api or "triu_" in u.torch_api for u in result.unconverted) == 3
    # out=x writes into x itself (tensors/out_writes.py), so the in-place call after it writes x again
    assert "x.assign_value(x.assign_value(ops.add(x, 1)).clamp(0, 1))" in result.text


@pytest.mark.slow
def test_fresh_tensor_values_match_pytorch(tmp_path):
    torch_out = _run(tmp_path / "torch", SOURCE)
    ms_out = _run(tmp_path / "ms", convert_source(SOURCE).text)
    assert ms_out == torch_out
    assert torch_out["m"][0] == [0.0, 1.0, 1.0] and torch_out["clipped"][0][0] == -1.0


def test_requires_grad_on_a_tensor_made_in_forward_is_its_value():
    # siren's SirenWrapper.forward: MindSpore's requires_grad_() returns None, so `coords` was None there;
    # outside forward the flag may mean "an optimizer trains this" (test_tensor_method_cases): still marked
    source = ("import torch\nimport torch.nn as nn\nclass W(nn.Module):\n    def forward(self, x):\n"
              "        coords = x.clone().detach().requires_grad_()\n        return coords * 2\n"
              "content = torch.zeros(3)\ntarget = content.clone().requires_grad_(True)\n")
    result = convert_source(source)
    assert "coords = ops.stop_gradient(x.copy())" in result.text
    assert [u.line for u in result.unconverted] == [8]
