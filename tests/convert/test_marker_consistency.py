"""Whatever the converter does not convert exactly is marked in the converted text
(analysis/convert/apis/target_args.py), and the report and the text agree (analysis/scan/marker_check.py)."""
from __future__ import annotations

import pytest

from analysis.convert import convert_source
from analysis.scan.marker_check import check_source
from tests.convert.both_frameworks import assert_records_match, run_both

RECORD = '''
def record(t):
    n = t.numpy()
    return [str(n.dtype), list(n.shape), n.tolist()]
'''


def _marks(source: str) -> dict[int, str]:
    return {u.line: u.action for u in convert_source(source).unconverted}


def test_a_keyword_mindspore_refuses_is_marked_not_passed_through():
    # MindSpore's Tensor.new_ones has no requires_grad: passed through, the call raised with no marker
    source = "import torch\nx = torch.ones(2, 3)\na = x.new_ones((2, 3), requires_grad=True)\n"
    assert "requires_grad=" in _marks(source).get(3, "")


def test_extra_positional_arguments_are_marked():
    # the mechanism: more positionals than MindSpore's method takes would raise (x.type(dtype, non_blocking),
    # which did, now goes to tensor_forms' helper and needs no marker)
    source = "import torch\nx = torch.ones(2, 3)\nd = x.masked_fill(x > 0, 1.0, 2.0)\ne = x.type(torch.float64, False)\n"
    marks = _marks(source)
    assert "positional" in marks.get(3, "") and 4 not in marks


def test_calls_mindspore_takes_get_no_marker():
    # precision: the same methods, called as MindSpore takes them, stay unmarked
    source = "import torch\nx = torch.ones(2, 3)\na = x.new_ones((2, 3), dtype=torch.float64)\n" \
             "b = x.type(torch.float64)\nc = x.new_zeros((2, 3), requires_grad=False)\n"
    assert _marks(source) == {}


def test_report_and_text_agree_on_passed_through_arguments():
    source = "import torch\nx = torch.ones(2, 3)\na = x.new_ones((2, 3), requires_grad=True)\n" \
             "b = x.new_empty((2, 3), layout=torch.strided, pin_memory=False)\nd = x.type(torch.float64, False)\n"
    gaps = check_source(source)
    assert [g for g in gaps if g.kind == "unmarked"] == []
    assert [g for g in gaps if g.kind == "unreported"] == []


def test_unmarked_use_left_for_a_person_is_listed():
    # the check itself: a rewrite the report leaves to review (no run verified the lazy layer's helper)
    # with no marker on its statement is a gap, named with its reason
    source = "import torch\nimport torch.nn as nn\nm = nn.LazyInstanceNorm3d()\n"
    gaps = [g for g in check_source(source) if g.api == "torch.nn.LazyInstanceNorm3d"]
    assert [(g.kind, g.reason) for g in gaps] == [("unmarked", "review: rewrite not verified by execution")]


def test_a_call_runs_showed_differing_is_marked_as_the_report_says():
    # the analyzer reads the verdict of calls like this one (torch.igamma gave other values in MindSpore);
    # the converter reads the same one (verdicts.call_verdict) and writes it above the call
    source = "import torch\nx = torch.tensor([1.0, 2.0])\nd = torch.igamma(x, x)\n"
    assert "running calls like this one" in _marks(source).get(3, "")
    assert [g for g in check_source(source) if g.kind == "unmarked"] == []


@pytest.mark.slow
def test_harmless_keywords_are_dropped_and_values_match(tmp_path):
    # pin_memory=False, layout=torch.strided, device=: no value depends on them; passed through, MindSpore raised
    source = "import json\nimport torch\n" + RECORD + \
        "x = torch.ones(2, 3)\na = x.new_zeros((2, 3), pin_memory=False, layout=torch.strided)\n" \
        "b = x.new_ones((3,), device='cpu', requires_grad=False)\n" \
        "print('RESULT ' + json.dumps({'a': record(a), 'b': record(b)}))\n"
    converted = convert_source(source)
    assert converted.unconverted == [] and "pin_memory" not in converted.text
    assert_records_match(*run_both(tmp_path, source))


@pytest.mark.slow
def test_marked_arguments_are_the_ones_mindspore_refuses(tmp_path):
    # each marked line raises in MindSpore as converted (so the marker is due), and runs in PyTorch
    # (x.type(dtype, non_blocking), which raised too, now converts exactly: tensor_forms)
    lines = ["x.new_ones((2, 3), requires_grad=True)"]
    source = "import json\nimport torch\nx = torch.ones(2, 3)\nran = []\n" + "".join(
        f"try:\n    {line}\n    ran.append(True)\nexcept TypeError:\n    ran.append(False)\n" for line in lines) + \
        "print('RESULT ' + json.dumps({'ran': ran}))\n"
    marked = {u.torch_api for u in convert_source(source).unconverted}
    assert marked == {"torch.Tensor.new_ones"}
    torch_out, ms_out = run_both(tmp_path, source)
    assert torch_out["ran"] == [True] and ms_out["ran"] == [False]


def test_an_unmapped_torch_name_used_as_a_value_is_marked():
    # torch.quint8 stays torch: the analyzer reports it unmapped, the text now says so on its line;
    # a placement value dropped with its keyword (layout=torch.strided) is not marked
    source = "import torch\nx = torch.ones(2, 3)\nq = torch.quint8\nb = x.new_empty((2, 3), layout=torch.strided)\n"
    marks = _marks(source)
    assert "torch.quint8 has no MindSpore counterpart" in marks.get(3, "")
    assert "torch.strided" not in marks.get(4, "")
    assert [g for g in check_source(source) if g.kind == "unmarked"] == []
