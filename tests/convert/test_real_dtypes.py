"""Integer, boolean, float16 and float64 inputs of PyTorch's OpInfo samples that converted silently wrong
(issue 29): kernels refusing a dtype (Mvlgamma, IRFFT/RFFT2, Lerp, Histogram, SearchSorted, Gcd), TopK of a
0-d tensor, integer addbmm/baddbmm with float scalars, the mean of an empty input, float16 norms, and the
kernel dtype bridge's new casts (gcd, real, round, diagonal_scatter). Each case runs in both
frameworks; every value must equal PyTorch's, in PyTorch's exact dtype (the harness compares dtype classes
only, and int8 against int64 is one class). Each failed (raised, crashed or differed) before this change."""
from __future__ import annotations

import textwrap

import pytest

from analysis.convert import convert_source

from .harness import block_value_problems

HEADER = "import torch\n"

CASES = [
    ("Hermitian FFTs of int8, uint8 and bool tensors read them as float32", """
        i8 = torch.tensor([[3, -1, 4, 1], [-5, 9, 2, -6]], dtype=torch.int8)
        u8 = torch.tensor([[3, 1, 4, 1], [5, 9, 2, 6]], dtype=torch.uint8)
        b = torch.tensor([[True, False, True], [False, False, True]])
        a = torch.fft.hfft(i8)
        c = torch.fft.hfft2(u8, norm="ortho")
        d = torch.fft.hfftn(b)
        e = torch.fft.ihfft2(i8) * 2  # a product: PyTorch's ihfft results are conjugate views
        f = torch.fft.ihfftn(b, dim=(0, 1)) * 2
        g = torch.fft.ihfft(u8) * 2
        """),
    ("mvlgamma of integers (float32 in PyTorch) and float16 (through float32), function and method", """
        n = torch.tensor([3, 4, 7], dtype=torch.int16)
        h = torch.tensor([2.5, 3.25, 6.0], dtype=torch.float16)
        a = torch.mvlgamma(n, 2)
        c = n.to(torch.uint8).mvlgamma(p=3)
        d = torch.mvlgamma(input=h, p=1)
        e = h.mvlgamma(2)
        """),
    ("topk of a 0-d tensor, function and method, with int64 indices", """
        x = torch.tensor(2.5)
        a = torch.topk(x, 1)
        c = x.topk(1, -1, True, True)
        d = torch.topk(input=torch.tensor(7, dtype=torch.int32), k=1, dim=-1, largest=False)
        """),
    ("addbmm/baddbmm of integers: float scalars cut to ints, products wrapped in the input's dtype", """
        s = torch.tensor([[[100, -3], [7, 90]], [[-80, 5], [60, 2]]], dtype=torch.int8)
        t = torch.tensor([[[3, 2], [-1, 4]], [[2, 2], [5, -3]]], dtype=torch.int8)
        m = torch.tensor([[1, 2], [3, 4]], dtype=torch.int8)
        a = torch.addbmm(m, s, t)
        c = torch.addbmm(m, s, t, beta=0.6, alpha=0.2)
        d = m.addbmm(s, t, beta=2, alpha=3)
        e = torch.baddbmm(s, s, t, beta=0.2, alpha=1.6)
        f = s.to(torch.uint8).baddbmm(t.to(torch.uint8), t.to(torch.uint8), alpha=3)
        """),
    ("addbmm of float16 adds the products one batch at a time, as PyTorch does", """
        m = (torch.arange(20.).reshape(4, 5) * 2.13 % 37).half()
        s = (torch.arange(72.).reshape(6, 4, 3) * 1.37 % 19).half()
        t = (torch.arange(90.).reshape(6, 3, 5) * 0.91 % 23).half()
        a = torch.addbmm(m, s, t, beta=0.6, alpha=0.2)
        c = m.addbmm(s, t)
        """),
    ("searchsorted with a sorter, of float16 and uint8; bucketize of float16 and uint8", """
        seq = torch.tensor([5.0, 1.0, 3.0, 3.0, 9.0])
        order = torch.tensor([1, 2, 3, 0, 4])
        v = torch.tensor([[3.0, 0.5], [9.0, 4.0]])
        a = torch.searchsorted(seq, v, side='right', sorter=order)
        c = torch.searchsorted(seq.sort().values.half(), v.half(), out_int32=True)
        d = torch.searchsorted(torch.tensor([1, 3, 3, 200], dtype=torch.uint8), torch.tensor([3, 250], dtype=torch.uint8),
                               right=True)
        e = torch.bucketize(v.half(), torch.tensor([1.0, 3.0, 5.0]).half())
        f = torch.bucketize(torch.tensor([0, 3, 255], dtype=torch.uint8), torch.tensor([1, 3, 200], dtype=torch.uint8),
                            out_int32=True, right=True)
        """),
    ("lerp of float64 with PyTorch's formula (no float64 kernel)", """
        x = torch.tensor([1e-3, 2.5, -7.0, 1e10], dtype=torch.float64)
        y = torch.tensor([3.0, -1.0, 4.0, 1e-10], dtype=torch.float64)
        a = torch.lerp(x, y, 0.4)
        c = x.lerp(y, torch.tensor([0.1, 0.5, 0.9, 1.7], dtype=torch.float64))
        d = torch.lerp(input=x, end=y, weight=0.75)
        """),
    ("histc of float64: the data's range where min == max, the maximum in the last bin", """
        x = torch.tensor([8.949778844205799, 8.655036097972143, 3.339755720652505, -6.568262909596598, 0.45637780456306665,
                          -3.4156462399387983, 7.010781018282003, -1.9508579904930983], dtype=torch.float64)
        a = torch.histc(x, bins=10, min=0, max=0)
        c = x.histc(4, min=-2, max=8.655036097972143)
        d = torch.histc(torch.full((3,), 2.0, dtype=torch.float64), bins=5)
        """),
    ("norms of float16 summed in float32 (no overflow), vector_norm of a 0-d tensor over dim -1", """
        h = torch.tensor([[9.0, -7.5, 6.0], [3.0, 8.0, -9.5]], dtype=torch.float16)
        a = torch.linalg.vector_norm(h, ord=6)
        c = torch.dist(h, -h, 4)
        d = h.dist(h * 0.5, p=3)
        e = torch.linalg.vector_norm(torch.tensor(-2.5), ord=0.9, dim=-1, keepdim=False)
        """),
    ("the kernel bridge: gcd of int8/uint8, real of uint8, round of small ints, diagonal_scatter of bool", """
        i8 = torch.tensor([[12, -18, 7], [0, 9, -27]], dtype=torch.int8)
        u8 = torch.tensor([[12, 18, 250], [0, 9, 27]], dtype=torch.uint8)
        a = torch.gcd(i8, torch.tensor([[8, 12, 21], [5, 6, 9]], dtype=torch.int8))
        c = torch.gcd(u8, u8.flip(1))
        d = torch.real(u8)
        e = torch.round(i8.to(torch.int16))
        f = torch.round(input=u8)
        m = torch.zeros(3, 3, dtype=torch.bool)
        h = torch.diagonal_scatter(m, torch.tensor([True, False]), 1)
        """),
    ("pinv of an empty matrix (MindSpore's Svd refuses it)", """
        a = torch.linalg.pinv(torch.ones(1, 1, 0, 0), rtol=torch.tensor(0.1))
        c = torch.linalg.pinv(torch.ones(2, 3, 0, dtype=torch.float64))
        """),
    ("var_mean and std_mean of an empty axis give NaN means", """
        e = torch.ones(0, 5)
        a = torch.var_mean(e, dim=0)
        c = torch.std_mean(e, 0)
        d = torch.var_mean(torch.ones(0, 3, dtype=torch.float64), dim=0, keepdim=True)
        """),
]


def _source(block: str) -> str:
    return HEADER + textwrap.dedent(block).lstrip("\n")


@pytest.mark.slow
def test_real_dtype_cases_give_pytorchs_values_in_its_dtypes():
    problems = block_value_problems([(name, _source(block)) for name, block in CASES], exact_dtypes=True)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("call,expected", [
    ("torch.topk(x, 3)", "int64_indices(topk(x, 3))"),
    ("x.topk(1, -1, True, True)", "int64_indices(topk(x, 1, -1, True, True))"),
    ("torch.addbmm(m, a, b, beta=0.5)",
     "kernel_dtypes(addbmm, ((mindspore.complex128, (complex_kernel, 'product 1 2')), (mindspore.complex64, (complex_kernel, 'product 1 2'))), m, a, b, beta=0.5)"),
    ("m.baddbmm(a, b)",
     "kernel_dtypes(baddbmm, ((mindspore.complex128, (complex_kernel, 'product 1 2')), (mindspore.complex64, (complex_kernel, 'product 1 2'))), m, a, b)"),
    ("torch.searchsorted(s, v, sorter=o)", "searchsorted(s, v, sorter=o)"),
    ("x.lerp(y, 0.5)",
     "kernel_dtypes(lerp, ((mindspore.complex128, (complex_lerp,)), (mindspore.complex64, (complex_lerp,))), x, y, 0.5)"),
    ("torch.mvlgamma(x, p=2)", "mvlgamma(x, p=2)"),
    ("x.histc(10)", "histc(x, 10)"),
    ("torch.var_mean(x, dim=0)",
     "kernel_dtypes(empty_mean_nan, ((mindspore.complex128, (complex_kernel, 'variance')), (mindspore.complex64, (complex_kernel, 'variance'))), ops.var_mean, x, axis=0, ddof=1)"),
])
def test_real_dtype_forms_become_helpers(call, expected):
    text = convert_source(f"import torch\nout = {call}\n", path="example.py").text
    assert f"out = {expected}" in text and "MIGRATE" not in text, text
