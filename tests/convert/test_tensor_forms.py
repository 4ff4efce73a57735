"""Tensor methods in the forms real code writes them (tensors/tensor_forms.py, helper_tensor_forms.py,
classic_supplement/tensor_forms.json): x.new_ones(2, 3), x.new_zeros(n, requires_grad=False), x.new_full(...)
(Ascend only in MindSpore), x.type() / x.type(d, non_blocking) / x.type('torch.DoubleTensor'),
x.min(other=y), torch.max(x, other=y), x.numpy(force=True), and torch.bernoulli / x.bernoulli in every form
(no BernoulliExt kernel on CPU). Before this, each was left as written and failed in MindSpore."""
from __future__ import annotations

import pytest

from analysis.convert import convert_source
from tests.convert.both_frameworks import assert_records_match, run_both

HEAD = "import torch\nx = torch.ones(2, 3)\ny = torch.full((2, 3), 2.0)\n"


def _converted(line: str):
    result = convert_source(HEAD + f"r = {line}\n")
    return next(l for l in result.text.splitlines() if l.startswith("r = ")), result


def test_a_factory_asking_for_a_gradient_is_left_to_a_person():
    # requires_grad=True: MindSpore takes gradients from value_and_grad; the marker says so (target_args)
    line, result = _converted("x.new_zeros((2, 3), requires_grad=True)")
    assert "requires_grad=" in " ".join(u.action for u in result.unconverted)


@pytest.mark.parametrize("line, expected", [
    ("x.new_ones(2, 3)", "r = new_filled(x, (2, 3), 1)"),
    ("x.new_empty(2, 3)", "r = new_filled(x, (2, 3), 0)"),
    ("x.new_ones(*x.shape)", "r = new_filled(x, (*x.shape,), 1)"),
    ("x.new_zeros((2, 3), requires_grad=False)", "r = new_filled(x, (2, 3), 0)"),
    ("x.new_zeros(3, layout=torch.strided, pin_memory=False)", "r = new_filled(x, 3, 0)"),
    ("x.new_full((2, 3), 5)", "r = new_filled(x, (2, 3), 5)"),
    ("x.new_full(size=[2], fill_value=1.5, dtype=torch.int32)", "r = new_filled(x, [2], 1.5, dtype=mindspore.int32)"),
    ("x.type()", "r = tensor_type(x)"),
    ("x.type(torch.float64, True)", "r = tensor_type(x, mindspore.float64)"),
    ("x.type(torch.float64, non_blocking=True)", "r = tensor_type(x, mindspore.float64)"),
    ("x.type('torch.DoubleTensor')", "r = tensor_type(x, 'torch.DoubleTensor')"),
    ("x.min(other=y)", "r = minimum(x, y)"),
    ("x.max(other=y)", "r = maximum(x, y)"),
    ("torch.max(x, other=y)", "r = maximum(x, y)"),
    ("torch.min(x, other=y)", "r = minimum(x, y)"),
    ("x.numpy(force=True)", "r = x.asnumpy()"),
    ("x.argmax(keepdim=True)", 'r = whole_reduction(x, "argmax", True)'),
    ("x.argmin(None, True)", 'r = whole_reduction(x, "argmin", True)'),
    ("x.any(dim=None, keepdim=True)", 'r = whole_reduction(x, "any", True)'),
    ("torch.argmax(x, keepdim=True)", 'r = whole_reduction(x, "argmax", True)'),
    ("torch.argmin(x, None, True)", 'r = whole_reduction(x, "argmin", True)'),
    ("x.any(1)", "r = any_along(x, 1)"),
    ("x.any(dim=(0, 1), keepdim=True)", "r = any_along(x, (0, 1), True)"),
    ("torch.any(x, 1)", "r = any_along(x, 1)"),
    ("x.bernoulli()", "r = bernoulli_draw(x)"),
    ("x.bernoulli(0.3)", "r = bernoulli_draw(x, 0.3)"),
    ("x.bernoulli(p=0.3)", "r = bernoulli_draw(x, p=0.3)"),
    ("torch.bernoulli(x, 0.3)", "r = bernoulli_draw(x, 0.3)"),
    ("torch.bernoulli(x, out=y)", "r = y.assign_value(bernoulli_draw(x))"),
])
def test_forms_mindspore_lacks_are_rewritten(line, expected):
    text, result = _converted(line)
    assert text == expected
    assert not result.unconverted


@pytest.mark.parametrize("line, expected", [
    ("x.new_zeros((2, 3), dtype=torch.float16)", "r = x.new_zeros((2, 3), dtype=mindspore.float16)"),
    ("x.new_ones(size=(2, 3))", "r = x.new_ones(size=(2, 3))"),
    ("x.type(torch.int32)", "r = x.type(mindspore.int32)"),
    ("x.type(dtype=torch.int32)", "r = x.type(dtype=mindspore.int32)"),
    ("x.type(torch.cuda.LongTensor)", "r = x.type(mindspore.int64)"),
    ("x.argmax(1, keepdim=True)", "r = x.argmax(1, keepdim=True)"),
    ("torch.argmax(x, dim=1, keepdim=True)", "r = ops.argmax(x, dim=1, keepdim=True)"),
])
def test_forms_mindspore_takes_stay(line, expected):
    assert _converted(line)[0] == expected


def test_a_generator_is_marked_not_dropped():
    # MindSpore has no generator objects: a seeded draw cannot be reproduced, so it says so
    _, result = _converted("torch.bernoulli(x, generator=torch.Generator())")
    assert [u.torch_api for u in result.unconverted] == ["torch.bernoulli"]


def test_an_in_place_draw_with_the_global_generator_is_converted():
    text, result = _converted("x.random_(0, 10, generator=None)")
    assert text == "r = x.assign_value(random_fill(x, 0, 10))" and not result.unconverted
    assert _converted("x.exponential_(generator=g)")[1].unconverted  # a generator of its own: marked


def test_other_objects_methods_are_left_alone():
    text = convert_source("import torch\nclass A:\n    def f(self):\n        return self.type(), self.min(other=3)\n"
                          "def g(node):\n    return node.new_full(key=1)\n").text
    assert "self.type(), self.min(other=3)" in text and "node.new_full(key=1)" in text


VALUES = '''
import json
import torch

out = {}
for name, dtype in (("f32", torch.float32), ("f64", torch.float64), ("i64", torch.int64), ("f16", torch.float16),
                    ("b", torch.bool)):
    x = torch.ones(2, 3, dtype=dtype)
    out[name + "_ones"] = x.new_ones(2, 3)
    out[name + "_zeros"] = x.new_zeros(3, requires_grad=False, device="cpu")
    out[name + "_empty"] = x.new_empty(2, 4).shape
    out[name + "_full"] = x.new_full((2, 2), 7)
    out[name + "_full_i"] = x.new_full([3], 2.5, dtype=torch.int32, requires_grad=False)
    out[name + "_star"] = x.new_zeros(*x.shape)
    out[name + "_type"] = x.type()
    out[name + "_to64"] = x.type(torch.float64, True)
    out[name + "_tostr"] = x.type("torch.IntTensor")
    out[name + "_nb"] = x.type(torch.int64, non_blocking=True)
a = torch.tensor([1.0, float("nan"), -2.0, 5.0])
c = torch.tensor([0.0, 1.0, float("nan"), 6.0])
out["min_other"] = a.min(other=c)
out["max_other"] = a.max(other=c)
out["max_fn"] = torch.max(a, other=c)
out["numpy"] = torch.tensor(a.numpy(force=True))
m = torch.tensor([[3.0, -1.0, 7.0], [0.5, 9.0, -4.0]])
out["argmax_kept"] = m.argmax(keepdim=True)
out["argmin_kept"] = m.argmin(None, True)
out["argmax_flat"] = m.argmax(keepdim=False)
out["argmax_fn"] = torch.argmax(m, keepdim=True)
out["argmin_fn"] = torch.argmin(m, dim=None, keepdim=True)
out["any_kept"] = (m > 8).any(keepdim=True)
out["any_none"] = (m > 10).any(dim=None, keepdim=True)
out["any_u8_kept"] = (m > 8).to(torch.uint8).any(keepdim=True)
sparse = torch.tensor([[0.0, 0.3, 0.0], [0.0, 0.0, 0.0], [-0.2, 0.0, 0.0], [float("nan"), 0.0, 0.0]])
for name, dtype in (("f32", torch.float32), ("f64", torch.float64), ("i32", torch.int32), ("u8", torch.uint8),
                    ("b", torch.bool)):
    s = sparse.nan_to_num(7.0).abs().mul(10).to(dtype) if name in ("i32", "u8") else sparse.to(dtype)
    out["any1_" + name] = s.any(1)
    out["any0_kept_" + name] = s.any(dim=0, keepdim=True)
    out["any_fn_" + name] = torch.any(s, 1)
    out["any_dims_" + name] = s.any(dim=(0, 1))


def record(v):
    if isinstance(v, str) or not hasattr(v, "dtype"):
        return ["str" if isinstance(v, str) else "shape", [], v if isinstance(v, str) else list(v)]
    arr = v.numpy() if hasattr(v, "numpy") and not hasattr(v, "asnumpy") else v.asnumpy()
    return [str(arr.dtype), list(arr.shape), [None if f != f else f for f in arr.astype("float64").ravel().tolist()]]


print("RESULT " + json.dumps({k: record(v) for k, v in out.items()}))
'''


@pytest.mark.slow
def test_values_match_in_both_frameworks(tmp_path):
    torch_out, ms_out = run_both(tmp_path, VALUES)
    assert torch_out["f32_type"][2] == "torch.FloatTensor" and torch_out["max_other"][2][1] is None
    assert_records_match(torch_out, ms_out, tolerance=lambda key, dtype: None)


DRAWS = '''
import json
import torch

torch.manual_seed(0)
N = (400, 250)
probs = torch.rand(N)
out = {
    "method": torch.full(N, 0.3).bernoulli(),
    "method_p": torch.empty(N).bernoulli(0.7),
    "method_kw": torch.empty(N, dtype=torch.float64).bernoulli(p=0.2),
    "fn": torch.bernoulli(torch.full(N, 0.4, dtype=torch.float16)),
    "fn_p": torch.bernoulli(torch.empty(N), 0.1),
    "fn_kw": torch.bernoulli(torch.empty(N), p=0.9),
    "varying": torch.bernoulli(probs) - probs,
}
buf = torch.empty(N)
back = torch.bernoulli(torch.full(N, 0.5), out=buf)
out["out"] = buf
same = back is buf


def record(v):
    a = v.numpy() if hasattr(v, "numpy") and not hasattr(v, "asnumpy") else v.asnumpy()
    f = a.astype("float64")
    return [str(a.dtype), list(a.shape), [float(f.mean()), sorted(set(f.ravel().tolist()))[:3] if f.min() >= 0 else []]]


print("RESULT " + json.dumps({**{k: record(v) for k, v in out.items()}, "same": ["bool", [], [same]]}))
'''


@pytest.mark.slow
def test_bernoulli_draws_have_pytorchs_distribution(tmp_path):
    """Values cannot match (other generators): the same dtype and shape, values in {0, 1}, and each mean
    within 4 standard errors of p (100,000 draws: 0.006 at p = 0.5); bernoulli(probs) - probs averages 0."""
    torch_out, ms_out = run_both(tmp_path, DRAWS)
    expected = {"method": 0.3, "method_p": 0.7, "method_kw": 0.2, "fn": 0.4, "fn_p": 0.1,
                "fn_kw": 0.9, "out": 0.5, "varying": 0.0}
    n = 400 * 250
    for out in (torch_out, ms_out):
        assert out["same"][2] == [True]
        for key, p in expected.items():
            dtype, shape, (mean, distinct) = out[key]
            assert (dtype, shape) == tuple(torch_out[key][:2]), key
            spread = (max(p, 0.25) * (1 - min(p, 0.75)) / n) ** 0.5
            assert abs(mean - p) < 4 * spread, (key, mean)
            if key != "varying":
                assert distinct == [0.0, 1.0], key
