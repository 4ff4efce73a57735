"""The verification harness judges an in-place method by the tensor it updates too: MindSpore 2.10's
x.add_(y) returns x + y and leaves x as it was, which compared by return value alone looked verified."""
from __future__ import annotations

import pytest

from analysis.convert import convert_source
from analysis.verify.compare import difference
from analysis.verify.generate import Builder
from analysis.verify.inputs import arrays
from analysis.verify.workers import execute


def _source(api: str, arglist: str) -> str:
    return Builder(api, [], False, True).source(arglist, "x", "")


def test_an_in_place_call_returns_its_receiver_too():
    assert _source("torch.Tensor.add_", "y").endswith("out = x.add_(y)\nout = (out, x)\n")
    assert _source("torch.Tensor.add", "y").endswith("out = x.add(y)\n")


@pytest.mark.slow
def test_a_method_that_only_returns_the_value_is_not_verified(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MindSpore writes rank_0/ here
    data = arrays()
    source = _source("torch.Tensor.add_", "y")
    ok, expected = execute("torch", source, data, None)
    assert ok
    ok, as_it_was = execute("mindspore", source, data, None)  # the call left unconverted
    assert ok and "values differ" in difference(expected, as_it_was)
    converted = convert_source(source).text
    assert "x.assign_value(x.add(y))" in converted
    ok, now = execute("mindspore", converted, data, None)
    assert ok and difference(expected, now) == ""
