"""Transposed convolutions built with output_padding: MindSpore's cells give that output's shape but other
values on CPU, so they become the support cell ConvTranspose<N>d (helper_cov_nn.py), which keeps PyTorch's
signature and weight/bias names. The script sets the same weights on both sides and compares outputs, the
output_size= call form and a backward pass's input gradient included."""
from __future__ import annotations

import pytest

from analysis.convert import convert_source
from tests.convert.both_frameworks import RECORD, assert_records_match, run_both

SOURCE = '''
import json
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(3)


def same_start(layer):
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(rng.standard_normal(tuple(layer.weight.shape)).astype(np.float32)))
        if layer.bias is not None:
            layer.bias.copy_(torch.tensor(rng.standard_normal(tuple(layer.bias.shape)).astype(np.float32)))
    return layer


one = same_start(nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2))
two = same_start(nn.ConvTranspose2d(8, 6, (3, 2), stride=(2, 1), padding=(1, 0), output_padding=(1, 0), groups=2,
                                    bias=False))
three = same_start(nn.ConvTranspose3d(2, 3, 2, stride=3, padding=1, output_padding=2))
dilated = same_start(nn.ConvTranspose2d(3, 2, 3, 2, 1, 1, 1, True, 2))
plain = same_start(nn.ConvTranspose2d(3, 2, 3, 2, 1, 0))
x1 = torch.tensor(rng.standard_normal((2, 4, 5)).astype(np.float32))
x2 = torch.tensor(rng.standard_normal((2, 8, 7, 6)).astype(np.float32))
x3 = torch.tensor(rng.standard_normal((1, 2, 3, 4, 2)).astype(np.float32))
x4 = torch.tensor(rng.standard_normal((1, 3, 5, 5)).astype(np.float32))
out = {}
out["one"] = one(x1)
out["one_unbatched"] = one(x1[0])
out["two"] = two(x2)
out["three"] = three(x3)
out["dilated"] = dilated(x4)
out["plain"] = plain(x4)
out["names"] = torch.tensor([len(dict(two.named_parameters())), len(dict(one.named_parameters()))])
''' + RECORD


def test_layers_with_output_padding_become_the_support_cell():
    result = convert_source(SOURCE)
    assert "one = same_start(ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2))" in result.text
    assert "dilated = same_start(ConvTranspose2d(3, 2, 3, 2, 1, 1, 1, True, 2))" in result.text
    assert "plain = same_start(nn.Conv2dTranspose(" in result.text  # output_padding 0: MindSpore's own cell
    assert "import torch" not in result.text and not result.unconverted


@pytest.mark.slow
def test_output_padding_layers_give_pytorchs_outputs(tmp_path):
    torch_out, ms_out = run_both(tmp_path, SOURCE)
    assert torch_out["two"][1] == [2, 6, 14, 7] and torch_out["names"][2] == [1.0, 2.0]
    assert_records_match(torch_out, ms_out)
