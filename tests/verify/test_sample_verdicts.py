"""Verdicts per (API, call form, dtype class) from PyTorch's own samples (analysis/verify/sample_verdicts.py)
and how the converter uses them: a converted call whose form differed for some dtype class on those inputs
keeps its conversion and gets a marker naming the form and the classes (strict mode; the dtype is unknown:
any class counts); a function none of whose converted samples ran for want of a CPU kernel is left
unconverted."""
from __future__ import annotations

import json

import pytest

from analysis.convert import convert_source
from analysis.verify import sample_verdicts


def _row(api, form, dtype, verdict, problem=""):
    dclass = "int" if dtype.startswith("int") else dtype
    return {"api": api, "form": form, "dtype": dtype, "dtype_class": dclass, "verdict": verdict, "problem": problem}


ROWS = [
    _row("torch.diff", "positional", "float32", "same"),
    _row("torch.diff", "positional", "int64", "silent", "RuntimeError: n must be 1"),
    _row("torch.diff", "keyword", "float32", "same"),
    _row("torch.Tensor.diff", "method", "int64", "silent", "RuntimeError: n must be 1"),
    _row("torch.Tensor.tile", "list", "float32", "silent", "TypeError: tile(List)"),
    _row("torch.Tensor.tile", "method", "float32", "same"),
    *[_row("torch.geqrf", "positional", d, "silent", "RuntimeError: Unsupported op [Geqrf] on CPU")
      for d in ("float32", "float64", "complex64")],
    *[_row("torch.logdet", "positional", d, "silent", "ValueError: row size must be >= 2, but got 0")
      for d in ("float32", "float64", "complex64")],
    _row("torch.abs", "positional", "float32", "marked", "converter's own marker"),
]


@pytest.fixture
def stored(tmp_path, monkeypatch):
    monkeypatch.delenv("PORTING_STRICT_DTYPES", raising=False)
    path = tmp_path / "sample_verdicts.json"
    monkeypatch.setattr(sample_verdicts, "PATH", path)
    sample_verdicts.load.cache_clear()
    sample_verdicts.write(ROWS, {"torch": "x", "mindspore": "y"})
    yield path
    sample_verdicts.load.cache_clear()


def test_build_counts_per_api_form_and_dtype_class_with_the_first_difference():
    data = sample_verdicts.build(ROWS)
    assert data["torch.diff"]["positional"]["float32"] == [1, 1, ""]
    assert data["torch.diff"]["positional"]["int"] == [0, 1, "int64: RuntimeError: n must be 1"]
    assert data["torch.abs"]["positional"]["float32"][0] == 1  # the converter marked it itself: no second marker


def test_unverified_names_the_failing_dtype_classes_of_the_forms_asked(stored):
    assert "int inputs" in sample_verdicts.unverified("torch.diff", ("positional",))
    assert sample_verdicts.unverified("torch.diff", ("positional",), "float32") is None
    assert sample_verdicts.unverified("torch.diff", ("keyword",)) is None
    assert sample_verdicts.unverified("torch.nothing", ("positional",)) is None


def test_a_partial_write_replaces_only_its_apis(stored):
    sample_verdicts.write([_row("torch.diff", "positional", "int64", "same")], {}, {"torch.diff"})
    data = json.loads(stored.read_text())["apis"]
    assert data["torch.diff"] == {"positional": {"int": [1, 1, ""]}}
    assert "torch.geqrf" in data


def test_the_converter_marks_the_form_the_samples_showed_wrong_and_keeps_the_rest(stored):
    text = convert_source("import torch\na = torch.diff(x)\nb = torch.diff(input=x)\n", path="e.py").text
    lines = text.splitlines()
    marker = next(i for i, line in enumerate(lines) if "MIGRATE" in line)
    assert "int inputs" in lines[marker] and lines[marker + 1] == "a = ops.diff(x)"
    assert sum("MIGRATE" in line for line in lines) == 1  # the keyword form passed
    tiles = convert_source("import torch\na = x.tile(2, 2)\nb = x.tile([2, 2])\n", path="e.py")
    assert len(tiles.unconverted) == 1 and tiles.unconverted[0].line == 3


def test_an_api_no_sample_of_which_passed_stays_unconverted(stored):
    result = convert_source("import torch\nq = torch.geqrf(a)\n", path="e.py")
    assert "torch.geqrf(a)" in result.text
    assert any("Geqrf" in u.action for u in result.unconverted)


def test_an_api_whose_samples_all_failed_otherwise_still_converts(stored):
    # edge values (0-d inputs) failing everywhere say little about the usual call: only a missing kernel counts
    assert sample_verdicts.never_passed("torch.logdet") is None
    assert "Geqrf" in sample_verdicts.never_passed("torch.Tensor.geqrf")  # the function's kernel is the method's


def test_lenient_mode_marks_no_call_for_its_dtype_class(stored, monkeypatch):
    monkeypatch.setenv("PORTING_STRICT_DTYPES", "0")
    assert sample_verdicts.unverified("torch.diff", ("positional",)) is None
    assert sample_verdicts.unverified("torch.diff", ("positional",), "int") is not None  # a cast layer's question
    assert not convert_source("import torch\na = torch.diff(x)\nb = torch.diff(torch.tensor([1, 2]))\n",
                              path="e.py").unconverted


def test_by_default_an_unknown_dtype_counts_as_any_class(stored):
    result = convert_source("import torch\na = torch.diff(x)\nb = x.float().diff()\nc = x.diff()\n", path="e.py")
    assert [u.line for u in result.unconverted] == [2, 4] and all("int inputs" in u.action for u in result.unconverted)


def test_the_dtype_the_code_states_narrows_the_marker(stored):
    # a literal tensor of floats is float32: the int samples' failure says nothing about it; ints are int
    floats = convert_source("import torch\na = torch.diff(torch.tensor([1.0, 2.5, 4.0]))\n", path="e.py")
    ints = convert_source("import torch\na = torch.diff(torch.tensor([1, 2, 4]))\n", path="e.py")
    typed = convert_source("import torch\na = torch.diff(torch.tensor(v, dtype=torch.float32))\n", path="e.py")
    assert not floats.unconverted and not typed.unconverted
    assert ints.unconverted and "int inputs" in ints.unconverted[0].action


def test_a_variable_every_assignment_of_which_states_the_dtype_narrows_the_marker(stored):
    def marked_lines(source):
        return [u.line for u in convert_source("import torch\n" + source, path="e.py").unconverted]

    assert marked_lines("x = torch.randn(5)\na = torch.diff(x)\nb = x.diff()\n") == []
    assert marked_lines("n = torch.tensor([3, 1])\na = torch.diff(n)\n") == [3]  # int: its samples failed
    assert marked_lines("x = torch.tensor([3, 1])\nx = x.float()\na = torch.diff(x)\n") == [4]  # int, then float
    assert marked_lines("x = torch.randn(5)\ndef f(x):\n    return torch.diff(x)\n") == [4]  # a parameter too
    assert marked_lines("x = torch.randn(5)\nx = model(x)\na = torch.diff(x)\n") == [4]  # any class
    assert marked_lines("x = torch.randn(5)\nfor x in batches:\n    a = torch.diff(x)\n") == [4]


def test_suspended_verdicts_say_nothing(stored):
    sample_verdicts.suspend()
    try:
        assert sample_verdicts.unverified("torch.diff", ("positional",)) is None
        assert sample_verdicts.never_passed("torch.geqrf") is None
    finally:
        sample_verdicts.suspend(False)
