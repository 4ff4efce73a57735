"""Inputs read from a call site keep the values a constant maker gives: the README's
`mask = torch.ones(1, 512).bool()` was fed as random booleans, which checked
perceiver-pytorch's PerceiverLM on another input than its authors show."""
from __future__ import annotations

import ast

import numpy as np
import pytest

from analysis.parity import frameworks as fw
from analysis.parity.callsites import tensor_spec


def _made(code: str):
    spec = tensor_spec(ast.parse(code, mode="eval").body, {"n": 6}, {}, {})
    return spec, fw.make_arrays([spec], seed=3)[0]


@pytest.mark.parametrize("code,dtype,value", [
    ("torch.ones(2, n).bool()", np.bool_, True),
    ("torch.zeros(2, n, dtype=torch.bool)", np.bool_, False),
    ("torch.ones(2, n)", np.float32, 1.0),
    ("torch.zeros((2, n)).long()", np.int64, 0),
    ("torch.full((2, n), 7)", np.float32, 7.0),
    ("torch.full((2, n), fill_value=0.5)", np.float32, 0.5),
    ("torch.randn(2, n).fill_(3)", np.float32, 3.0),
    ("torch.ones(2, n).zero_()", np.float32, 0.0),
])
def test_a_constant_maker_gives_that_constant(code, dtype, value):
    spec, array = _made(code)
    assert array.shape == (2, 6) and array.dtype == dtype
    assert (array == value).all(), (spec, array)


@pytest.mark.parametrize("code", ["torch.randn(2, n)", "torch.zeros(2, n).normal_(0, 1e-2)",
                                  "nn.Parameter(torch.ones(2, n).uniform_())"])
def test_random_makers_stay_random(code):
    spec, array = _made(code)
    assert "fill" not in spec and len(np.unique(array)) == 12


def test_a_manifest_input_may_give_a_constant():
    from analysis.parity.manifest import _input_spec

    _input_spec(0, {"shape": [1, 4], "dtype": "bool", "fill": 1})  # accepted as it is
    assert fw.make_arrays([{"shape": [1, 4], "dtype": "bool", "fill": 1}], 0)[0].all()
