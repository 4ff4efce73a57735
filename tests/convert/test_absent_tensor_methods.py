"""A method MindSpore's Tensor lacks, or takes none of a keyword of, called on a torch tensor is marked in
the converted text (analysis/convert/tensors/absent_methods.py). Before, the converter left such calls bare:
the analyzer reported them manual, but the converted file ran into AttributeError or TypeError with nothing
saying so (the held-out bench, bench/heldout_calls.py, found 40 such calls in 942). Each case runs in
PyTorch and, converted, in MindSpore."""
from __future__ import annotations

import textwrap

import pytest

from analysis.convert import convert_source
from analysis.verify.blocks import prepare
from analysis.verify.compare import difference

HEADER = "import torch\n"

# (name, PyTorch block, start of the marked statement, variable it assigns): the receiver is a bound name or a torch call
ABSENT = [
    ("bound_name", "grid = torch.linspace(0.0, 1.0, 7)\nmiddle = grid.is_distributed()\n",
     "middle = ", "middle"),
    ("torch_call_receiver", "picked = torch.arange(5.0).is_distributed()\n",
     "picked = ", "picked"),
    ("keyword_arguments", "w = torch.full((2, 2), -1.5)\nplain = w.resolve_neg()\nsame = w.is_same_size(other=w)\n",
     "same = ", "same"),
]

# blocks whose calls must stay unmarked and give PyTorch's values: MindSpore has the method, or the
# receiver is no torch tensor (a class of the file's own with a method of that name)
UNMARKED = [
    ("method_mindspore_has", "v = torch.tensor([3.0, 1.0])\nlisted = v.tolist()\n", ["listed"]),
    # MindSpore's namesake takes axis=/keepdims=; the converter now writes a helper with PyTorch's names
    ("keyword_the_namesake_lacks", "s = torch.tensor([[4.0, 1.0], [2.0, 8.0]])\nq = s.nanquantile(0.25, dim=0, keepdim=True)\n",
     ["q"]),
    ("keywords_the_namesake_takes", "u = torch.tensor([[0.5, 2.0], [1.0, -1.0]])\np = u.softmax(1, dtype=torch.float64)\n",
     ["p"]),
    ("own_class_method", """
        class Window:
            def narrow_copy(self, start, length):
                return list(range(start, start + length))
        win = Window()
        span = win.narrow_copy(2, 3)
        """, ["span"]),
]


def _source(block: str) -> str:
    return HEADER + textwrap.dedent(block).lstrip("\n")


@pytest.mark.parametrize("name,block,call,_", ABSENT, ids=[c[0] for c in ABSENT])
def test_the_call_is_marked(name, block, call, _):
    result = convert_source(_source(block), path="example.py")
    lines = result.text.splitlines()
    hits = [i for i, line in enumerate(lines) if call in line]
    assert hits, result.text
    assert lines[hits[0] - 1].lstrip().startswith("# MIGRATE(MS-API-UNMAPPED): MindSpore"), result.text
    assert any(u.torch_api.startswith("torch.Tensor.") and u.rule_id == "MS-API-UNMAPPED" for u in result.unconverted)
    assert "import torch" not in result.text  # the call's arguments are converted: no torch left behind


@pytest.mark.parametrize("name,block,_", UNMARKED, ids=[c[0] for c in UNMARKED])
def test_other_calls_stay_unmarked(name, block, _):
    assert "MIGRATE(" not in convert_source(_source(block), path="example.py").text


@pytest.mark.slow
def test_marked_calls_fail_in_mindspore_and_the_others_give_pytorchs_values():
    """The marker points at a real failure: PyTorch computes each marked call, the converted one raises
    AttributeError (no such method) or TypeError (a keyword MindSpore's namesake lacks) in MindSpore; the
    unmarked blocks give PyTorch's values."""
    from analysis.verify.workers import run_all

    blocks = [(block, [var]) for _, block, _, var in ABSENT] + [(block, names) for _, block, names in UNMARKED]
    prepared = [prepare(_source(block)) for block, _ in blocks]
    converted = [convert_source(p, path="example.py").text for p in prepared]
    torch_runs = run_all("torch", "chunks", prepared, workers=1, timeout=120)
    ms_runs = run_all("mindspore", "chunks", converted, workers=1, timeout=120)
    for i, ((block, names), (tok, tres), (mok, mres)) in enumerate(zip(blocks, torch_runs, ms_runs)):
        assert tok and mok, (block, tres, mres)
        expected = {k: v for ok, values in tres.values() if ok == "ok" for k, v in values.items()}
        actual = {k: v for ok, values in mres.values() if ok == "ok" for k, v in values.items()}
        assert all(name in expected for name in names), (block, tres)
        if i < len(ABSENT):
            errors = [text for ok, text in mres.values() if ok == "error"]
            assert any(text.startswith(("AttributeError", "TypeError")) for text in errors), (block, mres)
        else:
            for name in names:
                assert name in actual and not difference(expected[name], actual[name]), (block, mres)
