"""Factory keywords spread into layers and creation calls (apis/factory_spread.py): a name every assignment
binds to {'device': ..., 'dtype': ...} (or dict(device=..., dtype=...)) is handed to MindSpore through
factory_options(), which drops device and a None dtype; a spread of anything else stays marked. The slow test
builds the block in both frameworks and compares what the spread decides: parameter values and dtypes, the
output's dtype and shape (the weights are drawn on each side)."""
from __future__ import annotations

import pytest

from analysis.convert import convert_source
from tests.convert.both_frameworks import RECORD, run_both

LAYER = '''
import json
import numpy as np
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim, device=None, dtype=None):
        super().__init__()
        factory_kwargs = {'device': device, 'dtype': dtype}
        self.fc = nn.Linear(dim, dim, **factory_kwargs)
        self.norm = nn.LayerNorm(dim, eps=1e-6, **factory_kwargs)
        self.scale = nn.Parameter(torch.ones(dim, **factory_kwargs))
        dd = dict(device=device, dtype=dtype)
        self.conv = nn.Conv1d(dim, dim, 1, **dd)

    def forward(self, x):
        y = self.norm(self.fc(x)) * self.scale
        return self.conv(y.unsqueeze(-1)).squeeze(-1)


torch.manual_seed(0)
block = Block(4)
'''

RUN = '''
x = torch.tensor(np.arange(8, dtype=np.float32).reshape(2, 4) / 7)
out = {"y": block(x), "scale": block.scale}
'''


def test_factory_dicts_are_passed_through_factory_options_and_others_stay_marked():
    result = convert_source(LAYER + "def make(dim, opts):\n    return nn.Linear(dim, dim, **opts)\n")
    text = result.text
    assert "nn.Dense(dim, dim, **factory_options(factory_kwargs))" in text
    assert "**factory_options(dd))" in text and "def factory_options(" in text
    [mark] = [u for u in result.unconverted if "**opts" in u.action]  # a parameter: its keys are unknown
    assert "nn.Linear(dim, dim, **opts)" in text


@pytest.mark.slow
def test_a_block_built_with_factory_keywords_matches_pytorch(tmp_path):
    source = LAYER + RUN + RECORD
    torch_out, ms_out = run_both(tmp_path, source)
    assert set(torch_out) == {"y", "scale"}
    # the weights are drawn independently on each side: compare what the spread decides, dtypes and shapes
    assert torch_out["scale"] == ms_out["scale"]
    assert torch_out["y"][:2] == ms_out["y"][:2]
