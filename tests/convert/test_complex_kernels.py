"""Complex tensors through the kernel dtype bridge (issue 29): where MindSpore's CPU kernel has no complex dtype
(Tril, Trace, ReduceStd, Addcmul, Conv2D, IsInf, LogSumExp's ReduceMax...) or gives a complex result where
PyTorch's is real (abs, l1_loss), the converted call goes through kernel_dtypes(), which hands a complex64 or
complex128 input to complex_kernel() (support/helper_complex.py): real and imaginary parts apart, products
written out, or PyTorch's complex formula. The slow test runs PyTorch and the conversion in MindSpore on complex
tensors and compares values and exact dtypes (main's conversion raised or returned complex on every one); the
fast ones read the converted text and the table."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from analysis.convert import convert_source

from .harness import block_value_problems
from analysis.convert.apis import kernel_dtypes

HEADER = "import torch\n"
SETUP = """
    z = torch.tensor([[1 + 2j, -0.5 + 1j, 3 - 1j], [0.25 - 2j, 2 + 0.5j, -1 - 1j], [0.5j, 1.5, -2 + 3j]],
                     dtype=torch.complex128)
    w = torch.tensor([[0.5 - 1j, 2 + 1j, -1 + 0.25j], [1j, -1.5 + 2j, 0.75], [2 - 0.5j, 1 + 1j, -0.5j]],
                     dtype=torch.complex128)
    v = torch.tensor([1 - 1j, 0.5 + 2j, -2 + 0.5j], dtype=torch.complex128)
    z64 = z.to(torch.complex64)
    """
CASES = [
    ("rearrangements and scatters, part by part", """
        a = torch.tril(z)
        b = z.triu(1)
        c = torch.trace(z)
        d = torch.diag_embed(v)
        e = z.diag()
        f = torch.scatter(z, 0, torch.tensor([[2, 0, 1]]), w)
        g = torch.scatter_add(z, 1, torch.tensor([[0, 0, 2]]), w)
        h = torch.lerp(z, w, 0.25)
        m = z.lerp(w, 0.75 + 0.5j)
        k = torch.diagonal_scatter(z, v)
        """),
    ("real results of complex inputs", """
        a = torch.abs(z)
        b = z64.abs()
        c = torch.var(z)
        d = z.std(1, keepdim=True)
        e = torch.std_mean(z, 0)
        f = torch.var_mean(z64, 1)
        """),
    ("tests of complex values", """
        y = torch.tensor([complex(float('inf'), 1), complex(1, float('nan')), 1 + 1j], dtype=torch.complex128)
        a = torch.isinf(y)
        b = y.isnan()
        c = torch.isfinite(y)
        d = torch.isclose(z, z + w * 1e-9)
        e = z.isclose(w, atol=2.0)
        """),
    ("products written out", """
        a = torch.addcmul(z, w, v)
        b = torch.addmv(v, z, w[0])
        c = z.addr(v, w[1])
        d = torch.addmm(z, z, w, alpha=0.5)
        e = torch.addmm(z, z, w, beta=1 + 2j, alpha=2 - 1j)
        f = torch.baddbmm(z.unsqueeze(0), z.unsqueeze(0), w.unsqueeze(0))
        g = torch.nn.functional.conv1d(z64.unsqueeze(0), w.to(torch.complex64).unsqueeze(-1), v.to(torch.complex64))
        """),
    ("PyTorch's complex formulas", """
        a = torch.logsumexp(z, 1)
        b = torch.logaddexp(z, w)
        c = z.logcumsumexp(0)
        d = torch.nn.functional.normalize(z, p=1.0, dim=0)
        e = torch.nn.functional.softsign(z)
        """),
]


def _source(block: str, setup: str = SETUP) -> str:
    return HEADER + textwrap.dedent(setup).lstrip("\n") + textwrap.dedent(block).lstrip("\n")


@pytest.mark.slow
def test_complex_calls_give_pytorchs_values_and_dtypes():
    problems = block_value_problems([(name, _source(block)) for name, block in CASES], exact_dtypes=True)
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_complex_draws_are_complex_with_pytorchs_spread(tmp_path):
    """rand_like / randn_like of a complex tensor and randn(dtype=complex) converted and run: complex draws of
    that dtype (main's gave float32 or raised), each part uniform on [0, 1), or normal of variance 1/2 as
    PyTorch draws a complex normal, the two parts drawn apart."""
    body = _convert("z = torch.zeros(20000, dtype=torch.complex128)\nu = torch.rand_like(z)\nn = torch.randn_like(z)\n"
                    "m = torch.randn(20000, dtype=torch.complex64)\n")
    script = body + textwrap.dedent("""
        import numpy as np
        u, n, m = u.asnumpy(), n.asnumpy(), m.asnumpy()
        assert (u.dtype, n.dtype, m.dtype) == (np.complex128, np.complex128, np.complex64), (u.dtype, n.dtype, m.dtype)
        # one condition per assert, each naming its statistics (a CI run failed the three as one assert once),
        # so that a failure says which part of the draw was off
        assert 0 <= u.real.min() and 0 <= u.imag.min(), ("below 0", u.real.min(), u.imag.min())
        assert u.real.max() < 1 and u.imag.max() < 1, ("1 or above", u.real.max(), u.imag.max())
        assert abs(u.real.mean() - 0.5) < 0.02 and abs(u.imag.mean() - 0.5) < 0.02, ("means", u.real.mean(), u.imag.mean())
        for draw in (n, m):
            assert abs(draw.real.var() - 0.5) < 0.03 and abs(draw.imag.var() - 0.5) < 0.03, draw.var()
            assert abs(np.corrcoef(draw.real, draw.imag)[0, 1]) < 0.05
        print("ok")
        """)
    (tmp_path / "draws.py").write_text(script)
    run = subprocess.run([sys.executable, "draws.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={"PATH": "/usr/bin:/bin"})
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), run.stderr[-2000:]


def _convert(body: str) -> str:
    return convert_source(_source(body, ""), path="example.py").text


def test_a_complex_dtype_names_its_way_in_the_bridge():
    text = _convert("a = torch.tril(x)\nb = x.std()\nc = torch.addcmul(x, y, y)\n")
    assert "a = kernel_dtypes(ops.tril, ((mindspore.complex128, (complex_kernel, 'parts')), " \
        "(mindspore.complex64, (complex_kernel, 'parts'))), x)" in text
    assert "b = kernel_dtypes(\"std\", ((mindspore.complex128, (complex_kernel, 'deviation'))," in text
    assert "(mindspore.complex64, (complex_kernel, 'product 1 2'))" in text
    assert "(mindspore.int16, mindspore.int32)" in text
    assert "def complex_kernel(" in text and "def complex_product(" in text
    assert "def complex_isclose(" not in text  # compositions come only with the calls that use them
    text = _convert("a = torch.isclose(x, y)\n")
    assert "a = kernel_dtypes(ops.isclose, ((mindspore.complex128, (complex_isclose,)), " in text
    assert "def complex_isclose(" in text and "def complex_kernel(" not in text


def test_the_table_keeps_complex_ways_apart_from_casts(monkeypatch):
    monkeypatch.setattr(kernel_dtypes, "_override", {"tril": {"complex64": "parts", "int8": "int16"}})
    text = _convert("a = torch.tril(x)\n")
    assert "((mindspore.complex64, (complex_kernel, 'parts')), (mindspore.int8, mindspore.int16))" in text
    assert "def complex_kernel(" in text
    monkeypatch.setattr(kernel_dtypes, "_override", {"tril": {"int8": "int16"}})
    assert "def complex_kernel(" not in _convert("a = torch.tril(x)\n")
