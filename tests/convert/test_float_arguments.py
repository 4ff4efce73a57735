"""Arguments MindSpore's method takes as a Python float only (methods.FLOAT_ARGUMENTS): an int literal or
name is written as a float. x.cauchy_(2, 3) converted to x.cauchy(2, 3) raised TypeError in MindSpore
(its Cauchy checks that median and sigma are floats; found by bench/heldout_calls.py). Run in both frameworks."""
from __future__ import annotations

import textwrap

from analysis.convert import convert_source
from analysis.verify.blocks import prepare
from analysis.verify.compare import difference

BLOCK = """
import torch
centre, spread = 2, 3
draws = torch.zeros(4000, dtype=torch.float64)
draws.cauchy_(centre, sigma=spread)
more = torch.zeros(4000)
more.cauchy_(median=-1)
"""


def test_int_arguments_are_written_as_floats():
    text = convert_source(textwrap.dedent(BLOCK), path="example.py").text
    assert "cauchy(float(centre), sigma=float(spread))" in text, text
    assert "cauchy(median=-1.0)" in text or "cauchy(median=float(-1))" in text, text


def test_the_conversion_draws_from_pytorchs_distribution():
    from analysis.verify.workers import run_all

    prepared = prepare(textwrap.dedent(BLOCK))
    converted = convert_source(prepared, path="example.py").text
    (tok, tres), = run_all("torch", "chunks", [prepared], workers=1, timeout=120)
    (mok, mres), = run_all("mindspore", "chunks", [converted], workers=1, timeout=120)
    assert tok and mok, (tres, mres)
    expected = {k: v for ok, values in tres.values() if ok == "ok" for k, v in values.items()}
    actual = {k: v for ok, values in mres.values() if ok == "ok" for k, v in values.items()}
    errors = [text for ok, text in mres.values() if ok == "error"]
    assert not errors, errors
    for name in ("_out3", "_out5"):  # what each cauchy_ call returned: 4000 draws
        assert name in expected and name in actual, (tres, mres)
        assert not difference(expected[name], actual[name], values=False, distribution=True), name
