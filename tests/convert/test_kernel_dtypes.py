"""The kernel dtype bridge (issue 29): APIs whose MindSpore CPU kernel refuses dtypes PyTorch's takes (Sort
and Max no bool, Diag no int8, Median no float16, Lcm no int8...) are called through kernel_dtypes(), which
casts to a dtype the kernel takes only for a refused dtype (knowledge/data/kernel_dtypes.json) and casts the
outputs back. The slow tests run PyTorch and the conversion in MindSpore on int8, uint8, int16, float16 and
bool tensors and compare values and exact dtypes, and compile the helper under mindspore.jit; the fast ones
read the converted text."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from analysis.convert import convert_source

from .harness import block_value_problems
from analysis.convert.apis import kernel_dtypes

HEADER = "import torch\n"
BRIDGED_DTYPES = {"int8", "uint8", "int16", "float16", "bool"}

CASES = [
    ("orderings and selections of booleans", """
        m = torch.tensor([[True, False, True], [False, False, True]])
        a = torch.msort(m)
        b = m.repeat_interleave(2)
        c = torch.amax(m, 1)
        d = m.amin(0)
        e = torch.max(m)
        f = torch.min(m, 1)
        g = torch.cummax(m, 1)
        h = torch.count_nonzero(m, dim=0)
        k = torch.conj(m)
        """),
    ("small integer and float16 tensors through a wider kernel", """
        i8 = torch.tensor([[-3, 0, 2], [7, -1, 5]], dtype=torch.int8)
        u8 = torch.tensor([0, 3, 250, 17], dtype=torch.uint8)
        i16 = torch.tensor([4, -6, 9], dtype=torch.int16)
        f16 = torch.tensor([[1.5, -2.25, 3.0], [0.5, 8.0, -1.0]], dtype=torch.float16)
        a = torch.diagflat(i8)
        b = u8.diagflat(1)
        c = torch.median(i8)
        d = f16.median()
        e = torch.lcm(i8, torch.tensor([[2, 5, 3], [3, 4, 10]], dtype=torch.int8))
        f = torch.fmax(u8, torch.tensor([1, 2, 255, 0], dtype=torch.uint8))
        g = torch.addcmul(i16, i16, i16)
        h = torch.hypot(f16, f16)
        """),
]


def _source(block: str) -> str:
    return HEADER + textwrap.dedent(block).lstrip("\n")


@pytest.mark.slow
def test_bridged_calls_give_pytorchs_values_and_dtypes():
    problems = block_value_problems([(name, _source(block)) for name, block in CASES], exact_dtypes=BRIDGED_DTYPES)
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_the_helper_compiles_under_jit(tmp_path):
    """Graph mode: the dtype tests are static, a function and a method's name both compile; a float tensor
    takes the plain call."""
    script = textwrap.dedent("""
        import mindspore, numpy as np
        from mindspore import ops
        from analysis.convert.support.helper_kernels import kernel_dtypes
        CASTS = ((mindspore.bool_, mindspore.int32), (mindspore.int8, mindspore.int16))

        @mindspore.jit
        def ordered(x):
            return kernel_dtypes(ops.sort, CASTS, x, 0), kernel_dtypes("max", CASTS, x)

        (values, indices), top = ordered(mindspore.Tensor(np.array([True, False, True])))
        assert values.dtype == mindspore.bool_ and values.asnumpy().tolist() == [False, True, True], values
        assert top.dtype == mindspore.bool_ and bool(top.asnumpy()), top
        (values, _), top = ordered(mindspore.Tensor(np.array([2.5, -1.0], np.float32)))
        assert values.dtype == mindspore.float32 and values.asnumpy().tolist() == [-1.0, 2.5], values
        print("ok")
        """)
    import analysis
    root = str(__import__("pathlib").Path(analysis.__file__).resolve().parents[1])
    (tmp_path / "graph.py").write_text(script)  # jit reads the function's source from its file
    run = subprocess.run([sys.executable, "graph.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={"PYTHONPATH": root, "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), run.stderr[-2000:]


def _convert(body: str) -> str:
    return convert_source(_source(body), path="example.py").text


def test_a_function_of_a_bridged_api_goes_through_kernel_dtypes():
    text = _convert("a = torch.diagflat(x)\n")
    assert "a = kernel_dtypes(ops.diagflat, ((mindspore.bool_, " in text
    assert "(mindspore.int8, mindspore.int16)" in text and text.rstrip().endswith(", x)")


def test_a_method_goes_by_its_name_and_list_sort_is_left_alone():
    text = _convert("m = torch.tensor([True])\na = m.max()\nb = x.cummax(0)\nnames.sort()\n")
    assert 'a = kernel_dtypes("max", ((mindspore.bool_, mindspore.uint8),), m)' in text
    assert text.count("kernel_dtypes(") == 3  # its definition too
    assert 'b = kernel_dtypes("cummax", ' in text and "\nnames.sort()" in text


def test_an_api_with_no_bridge_keeps_its_plain_call():
    text = _convert("a = torch.exp2(x)\nb = torch.matmul(x, y)\n")
    assert "kernel_dtypes" not in text


def test_the_table_is_what_the_converter_reads(monkeypatch):
    monkeypatch.setattr(kernel_dtypes, "_override", {})
    assert "kernel_dtypes" not in _convert("a = torch.diagflat(x)\n")
    monkeypatch.setattr(kernel_dtypes, "_override", {"diagflat": {"float16": "float32"}})
    assert "((mindspore.float16, mindspore.float32),)" in _convert("a = torch.diagflat(x)\n")
