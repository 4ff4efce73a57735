"""x.fill_(v) and x.zero_(): MindSpore 2.10 has the methods but no CPU kernel for them
(InplaceFillScalar / InplaceZero), so they are written as assign_value of a filled copy. The fast
test reads the converted text; the slow one runs the original with PyTorch and the conversion with
MindSpore."""
from __future__ import annotations

import pytest

from analysis.convert import convert_source
from tests.convert.both_frameworks import run_script as _run

SOURCE = '''
import json
import numpy as np
import torch
import torch.nn as nn

x = torch.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
y = x.fill_(2.5)
counts = torch.tensor(np.arange(3, dtype=np.int32))
counts.fill_(value=7.9)
z = torch.tensor(np.ones(4, dtype=np.float32))
z.zero_()
layer = nn.Linear(3, 2)
layer.bias.data.fill_(0.25)
layer.weight.data.zero_()
out = layer(torch.tensor(np.ones((1, 3), dtype=np.float32)))
v = torch.tensor(np.float32(-1.5))
w = torch.tensor(np.zeros(2, dtype=np.float32))
w.fill_(v)


def values(t):
    return t.detach().numpy().tolist() if hasattr(t, "detach") else t.asnumpy().tolist()


print("RESULT " + json.dumps({"x": values(x), "y": values(y), "counts": values(counts), "z": values(z),
                              "out": values(out), "w": values(w)}))
'''


def test_fill_and_zero_become_assign_value():
    result = convert_source(SOURCE)
    text = result.text
    assert "y = x.assign_value(ops.full_like(x, 2.5))" in text
    assert "counts.assign_value(ops.full_like(counts, 7.9))" in text
    assert "z.assign_value(ops.zeros_like(z))" in text
    # .data is a copy in MindSpore: the parameter itself is filled
    assert "layer.bias.assign_value(ops.full_like(layer.bias, 0.25))" in text
    assert "layer.weight.assign_value(ops.zeros_like(layer.weight))" in text
    assert "fill_(" not in text and "zero_(" not in text
    assert not result.unconverted


def test_fill_of_part_of_a_tensor_is_marked():
    result = convert_source("import torch\nx = torch.zeros(3)\nx[1:].fill_(1)\nmake().zero_()\n")
    assert [u.line for u in result.unconverted] == [3, 4]
    assert "x[1:].fill_(1)" in result.text and "x[index] = value" in result.unconverted[0].action


@pytest.mark.slow
def test_filled_values_match_pytorch(tmp_path):
    torch_out = _run(tmp_path / "torch", SOURCE)
    ms_out = _run(tmp_path / "ms", convert_source(SOURCE).text)
    assert ms_out == torch_out
    assert torch_out["counts"] == [7, 7, 7] and torch_out["out"] == [[0.25, 0.25]]


def test_every_in_place_method_follows_the_same_receiver_rules():
    # one mechanism (inplace.py): .data dropped, a view or part of a tensor marked, a new tensor's value returned
    result = convert_source("import torch\nimport torch.nn as nn\nx = torch.ones(3)\nlayer = nn.Linear(2, 2)\n"
                            "layer.weight.data.mul_(2)\nx.view(-1).add_(1)\ny = torch.zeros(2).add_(1)\n"
                            "x[0].clamp_(0, 1)\n")
    assert "layer.weight.assign_value(layer.weight.mul(2))" in result.text
    assert "y = ops.zeros(2).add(1)" in result.text
    assert [u.line for u in result.unconverted] == [6, 8]
    assert all("x[index] = value" in u.action for u in result.unconverted)
