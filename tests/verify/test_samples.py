"""PyTorch's OpInfo/ModuleInfo samples written as source in each call form (analysis/verify/samples.py):
every form is a real PyTorch call that gives the same values as the sample itself."""
from __future__ import annotations

import pytest

pytest.importorskip("expecttest")

import torch  # noqa: E402

from analysis.verify.samples import module_samples, opinfo_samples  # noqa: E402
from analysis.verify.workers import _fill, execute  # noqa: E402


def _by_form(samples):
    out = {}
    for s in samples:
        out.setdefault(s.form, []).append(s)
    return out


def test_view_samples_come_in_every_size_form_and_agree_in_pytorch():
    samples = [s for s in opinfo_samples({"torch.Tensor.view"}, per_dtype=2, only={"torch.Tensor.view"})
               if s.dtype == "float32"]
    forms = _by_form(samples)
    assert {"method", "ints", "list"} <= set(forms)
    assert any(".view(25, 5)" in s.source for s in forms["ints"])
    results = {}
    for s in samples:
        ok, value = execute("torch", s.source, {}, None, only=s.arrays)
        assert ok, (s.source, value)
        results.setdefault(s.origin, []).append(value)
    for values in results.values():  # each form of one sample computes the same thing
        assert all((v == values[0]).all() for v in values)


def test_keyword_form_uses_pytorchs_parameter_names():
    samples = list(opinfo_samples({"torch.nn.functional.conv2d"}, per_dtype=1, only={"torch.nn.functional.conv2d"}))
    keyword = [s for s in samples if s.form == "keyword"]
    assert keyword and all("conv2d(input=t0, weight=t1" in s.source for s in keyword)
    ok, _ = execute("torch", keyword[0].source, {}, None, only=keyword[0].arrays)
    assert ok


def test_varargs_form_unpacks_a_list_of_tensors():
    samples = list(opinfo_samples({"torch.atleast_1d"}, per_dtype=2, only={"torch.atleast_1d"}))
    varargs = [s for s in samples if s.form == "varargs"]
    assert varargs and all("atleast_1d(t0, t1" in s.source for s in varargs)


def test_every_cpu_dtype_pytorch_lists_is_sampled():
    dtypes = {s.dtype for s in opinfo_samples({"torch.log2"}, per_dtype=1, only={"torch.log2"})}
    assert {"bool", "int64", "uint8", "float16", "float32", "float64"} <= dtypes


def test_module_samples_build_the_layer_with_its_test_arguments_and_cast_it():
    samples = list(module_samples({"torch.nn.ELU"}, per_dtype=3, only={"torch.nn.ELU"}))
    assert any("nn.ELU(alpha=2.0)" in s.source for s in samples)
    f64 = [s for s in samples if s.dtype == "float64"]
    assert f64 and "layer.to(torch.float64)" in f64[0].source
    ok, value = execute("torch", f64[0].source, {}, _fill("torch"), only=f64[0].arrays)
    assert ok and value.dtype.name == "float64"
    assert torch.get_default_dtype() == torch.float32
