"""Edge inputs and argument forms of PyTorch's OpInfo samples that converted silently wrong (issue 29):
0-d and empty tensors, operands that broadcast, argument forms MindSpore's signature lacks. Each case
runs in both frameworks and failed (raised or gave other values) before edge_forms.py / helper_edges.py."""
from __future__ import annotations

import textwrap

import pytest

from analysis.convert import convert_source
from .harness import block_value_problems

HEADER = "import torch\n"

SAME = [
    ("cross of operands that broadcast, function and method, dim given and not", """
        a = torch.tensor([[1.0, -2.0, 3.0]])
        b = torch.tensor([[4.0, 5.0, -6.0], [0.5, 2.0, 1.0], [-3.0, 1.0, 2.0]])
        c = torch.cross(a, b, dim=-1)
        d = a.cross(b, dim=1)
        e = torch.cross(input=b, other=b.flip(0))
        """),
    ("index_select of a 0-d input, and with a 0-d index", """
        x = torch.tensor(3.5)
        a = torch.index_select(x, 0, torch.tensor([0]))
        b = x.index_select(0, torch.tensor([0]))
        c = torch.index_select(torch.arange(12.).reshape(4, 3), 0, torch.tensor(2))
        d = torch.index_select(input=torch.arange(12.).reshape(4, 3), dim=-1, index=torch.tensor([2, 0]))
        """),
    ("squeeze with dim=() squeezes nothing", """
        x = torch.ones(1, 2, 1)
        a = torch.squeeze(x, ())
        b = x.squeeze(())
        c = torch.squeeze(input=x, dim=[])
        d = torch.squeeze(x, (0,))
        """),
    ("tensordot with PyTorch's pairing of axes, a size-1 axis, an int and the outer product", """
        a = torch.arange(6.).reshape(1, 2, 3)
        b = torch.arange(12.).reshape(3, 2, 2)
        c = torch.tensordot(a, b, dims=([1, 2], [1, 0]))
        d = torch.tensordot(torch.ones(1, 1, 1), torch.arange(4.).reshape(2, 1, 2), dims=([0, 1], [2, 0]))
        e = torch.tensordot(torch.arange(8.).reshape(2, 2, 2), torch.arange(8.).reshape(2, 2, 2), dims=2)
        f = torch.tensordot(torch.arange(2.), torch.arange(3.), dims=0)
        """),
    ("tensor_split and hsplit: indices as a tensor, sections as a 0-d tensor, a 1-D input", """
        x = torch.arange(24.).reshape(4, 6)
        a = torch.tensor_split(x, torch.tensor([1, 3]))
        b = x.tensor_split(torch.tensor(3), 1)
        c = torch.hsplit(torch.arange(6.), 2)
        d = torch.arange(6.).hsplit([1, 4])
        """),
    ("x.rot90() with PyTorch's defaults, x.any over a tuple of dims", """
        x = torch.arange(24.).reshape(2, 3, 4)
        a = x.rot90()
        b = x.rot90(3)
        c = (x > 20).any(dim=(1, 2))
        d = (x > 20).any(dim=(0, 2), keepdim=True)
        """),
    ("aminmax over a non-empty axis of an empty tensor, narrow of length 0, scatter of 0-d tensors", """
        e = torch.ones(5, 0, 4)
        lo, hi = torch.aminmax(e, dim=0)
        x = torch.arange(50.).reshape(10, 5)
        a = torch.narrow(x, 1, torch.tensor(5), 0)
        b = x.narrow(0, 3, 0)
        c = torch.scatter(torch.tensor(2.0), 0, torch.tensor(0), torch.tensor(5.0))
        d = torch.tensor(2.0).scatter(0, torch.tensor(0), torch.tensor(5.0), reduce='multiply')
        """),
    ("index_put with a boolean mask, values that broadcast, accumulate over repeated places", '''
        x = torch.arange(20.).reshape(4, 5)
        a = x.index_put((torch.tensor([1]),), torch.tensor([[9.0, 8.0, 7.0, 6.0, 5.0]]))
        b = x.index_put((torch.tensor([True, False, True, False]),), torch.tensor(-1.0), accumulate=True)
        c = torch.index_put(x, (torch.tensor([0, 0, -1]), torch.tensor([1, 1, 2])), torch.tensor([1.0, 2.0, 3.0]),
                            accumulate=True)
        d = torch.zeros(3, 2, dtype=torch.bool).index_put((torch.tensor([2, 2]),), torch.tensor(True), accumulate=True)
        e = x.index_put((torch.zeros(4, dtype=torch.bool),), torch.tensor(5.0))
        '''),
    ("logdet and cholesky of empty matrices", '''
        a = torch.logdet(torch.ones(0, 0))
        b = torch.ones(2, 0, 0, dtype=torch.float64).logdet()
        c = torch.linalg.cholesky(torch.ones(1, 1, 0, 0))
        d = torch.cholesky(torch.ones(0, 0, dtype=torch.float64), upper=True)
        '''),
    ("x.repeat_interleave with repeats given as a tensor, with and without output_size", '''
        x = torch.arange(6.).reshape(3, 2)
        a = x.repeat_interleave(torch.tensor([1, 2, 0]), dim=0)
        b = x.repeat_interleave(repeats=torch.tensor([2, 1]), dim=1, output_size=3)
        c = x.repeat_interleave(torch.tensor(2))
        '''),
]


def _source(block: str) -> str:
    return HEADER + textwrap.dedent(block).lstrip("\n")


@pytest.mark.slow
def test_edge_cases_give_pytorchs_values():
    problems = block_value_problems([(name, _source(block)) for name, block in SAME])
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("call,expected", [
    ("torch.cross(a, b, dim=-1)", "cross(a, b, dim=-1)"),
    ("a.cross(b)", "cross(a, b)"),
    ("torch.index_select(x, 0, i)", "index_select(x, 0, i)"),
    ("torch.squeeze(x, ())", "squeeze_dims(x, ())"),
    ("torch.tensordot(a, b, dims=([0], [1]))", "tensordot(a, b, dims=([0], [1]))"),
    ("x.rot90()", "rot90(x)"),
    ("torch.tensor_split(x, t, 1)", "tensor_split(x, t, 1)"),
    ("torch.hsplit(x, [1, 2])", "hsplit(x, [1, 2])"),
    ("x.any(dim=(1, 2))", "any_along(x, (1, 2))"),  # tensors/tensor_forms.py: cast to bool first
    ("x.index_put((i,), v)", "index_put(x, (i,), v)"),
    ("torch.logdet(a)", "logdet(a)"),
])
def test_edge_forms_become_helpers(call, expected):
    text = convert_source(f"import torch\nout = {call}\n", path="example.py").text
    assert f"out = {expected}" in text, text


@pytest.mark.parametrize("call", ["torch.squeeze(x, 1)", "x.squeeze()", "x.rot90(1, (0, 1))", "x.any()",
                                  "torch.tensor_split(x, (1, 6), dim=1)", "x.tensor_split(3)"])
def test_forms_mindspore_computes_alike_keep_their_mapping(call):
    text = convert_source(f"import torch\nout = {call}\n", path="example.py").text
    assert "def " not in text and "MIGRATE" not in text, text


def test_repeat_interleave_goes_to_the_helper_only_for_repeats_not_written_as_an_int():
    """Both forms also pass through the kernel dtype bridge (kernel_dtypes, for boolean input): the helper
    is what it calls for tensor repeats, MindSpore's method for an int."""
    by_tensor = convert_source("import torch\nout = x.repeat_interleave(r, dim=0)\n", path="example.py").text
    by_int = convert_source("import torch\nout = x.repeat_interleave(2, dim=0)\n", path="example.py").text
    assert "def repeat_interleave(" in by_tensor and "(repeat_interleave, " in by_tensor, by_tensor
    assert "def repeat_interleave(" not in by_int and '"repeat_interleave"' in by_int, by_int


def test_helper_names_are_unique_across_the_helper_files():
    """definitions() keys helpers by name: a second file defining the same name (helper_edges.py's cross,
    index_put, repeat_interleave...) would silently replace the first."""
    import ast

    from analysis.convert.support import helpers

    names = [node.name for source in (helpers.SOURCE, *helpers.MORE_SOURCES)
             for node in ast.parse(source.read_text(encoding="utf-8")).body
             if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})
