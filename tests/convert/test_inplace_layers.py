"""Layers built with inplace=True write their result into their input in PyTorch (MindSpore's do not): the
conversion binds the input's name to the result, so code reading that name later sees PyTorch's values."""
from __future__ import annotations

import pytest

from analysis.convert import convert_source
from tests.convert.both_frameworks import run_script

SOURCE = '''
import json
import numpy as np
import torch
import torch.nn as nn

x = torch.tensor(np.linspace(-2, 2, 8, dtype=np.float32).reshape(2, 4))
model = nn.SiLU(True)
result = model(x)                # x now holds the result too
celu = nn.CELU(0.5, True)
z = x * 2
celu(z)                          # the value dropped: z itself changed
plain = nn.ReLU()
w = x - 1
kept = plain(w)                  # not in place: w stays as it was


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.LeakyReLU(0.1, inplace=True)

    def forward(self, h):
        y = self.act(h)
        return h + y             # h was changed in place: twice the activation


out = Block()(x - 0.5)


def values(t):
    return np.round(t.detach().numpy() if hasattr(t, "detach") else t.asnumpy(), 5).tolist()


print("RESULT " + json.dumps({"x": values(x), "result": values(result), "z": values(z), "w": values(w),
                              "kept": values(kept), "out": values(out)}))
'''


def test_the_input_of_an_in_place_layer_is_bound_to_its_result():
    text = convert_source(SOURCE).text
    assert "result = x = model(x)" in text and "z = celu(z)" in text and "y = h = self.act(h)" in text
    assert "kept = plain(w)" in text


@pytest.mark.slow
def test_in_place_layers_leave_the_values_pytorch_leaves(tmp_path):
    torch_out = run_script(tmp_path / "torch", SOURCE)
    ms_out = run_script(tmp_path / "ms", convert_source(SOURCE).text)
    assert torch_out["x"] == torch_out["result"] and torch_out["w"] != torch_out["kept"]
    assert ms_out == torch_out
