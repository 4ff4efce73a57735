"""Calls the tables left unmapped (the converter wrote "no MindSpore counterpart" and kept torch) that
MindSpore 2.10 computes the same on CPU: F.huber_loss, torch.special.softmax/round,
torch.linalg.diagonal, torch.cov, torch.channel_shuffle; and through helpers F.adaptive_max_pool3d
(None in output_size, int64 indices), torch.linalg.det (0x0), torch.special.multigammaln (PyTorch's formula
below (p-1)/2), torch.quantile / x.quantile (no Quantile kernel on CPU: sorted and picked) and
torch.nextafter / x.nextafter / x.nextafter_ (one step of the bits; MindSpore's float32 kernel returns its input);
x.histogram goes to torch.histogram's helper; x.gcd and narrow_copy, which the tables lack, map to MindSpore's
gcd and narrow. The script runs with PyTorch, its conversion with MindSpore; every
result compares by shape, dtype and value. A form MindSpore cannot take (round's decimals) stays marked."""
from __future__ import annotations

import pytest

from analysis.convert import convert_source
from tests.convert.both_frameworks import assert_records_match, run_both

SOURCE = '''
import json
import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(11)
x = torch.tensor((rng.standard_normal((3, 4)) * 3).astype(np.float32))
t = torch.tensor(rng.standard_normal((3, 4)).astype(np.float32))
row = torch.tensor(rng.standard_normal(4).astype(np.float64))
cube = torch.tensor(rng.standard_normal((2, 3, 4)).astype(np.float64))
square = torch.tensor(rng.standard_normal((2, 3, 3)).astype(np.float32))
image = torch.tensor(rng.standard_normal((1, 2, 5, 6, 7)).astype(np.float32))
out = {}
out["huber"] = F.huber_loss(x, t)
out["huber_sum"] = F.huber_loss(x, t, reduction="sum", delta=0.5)
out["huber_none"] = F.huber_loss(input=x, target=t, reduction="none", delta=2.0)
out["huber_pos"] = F.huber_loss(x, t, "mean", 1.5)
out["softmax"] = torch.special.softmax(x, 0)
out["softmax_kw"] = torch.special.softmax(x, dim=1, dtype=torch.float64)
out["round"] = torch.special.round(x)
out["round_half"] = torch.special.round(torch.tensor([0.5, 1.5, 2.5, -0.5]))
out["diag"] = torch.linalg.diagonal(cube)
out["diag_kw"] = torch.linalg.diagonal(cube, offset=1, dim1=0, dim2=2)
out["diag_A"] = torch.linalg.diagonal(A=cube, dim1=-1, dim2=-2)
out["det"] = torch.linalg.det(square)
out["det_A"] = torch.linalg.det(A=square[0])
out["det_empty"] = torch.linalg.det(torch.zeros(2, 0, 0))
out["cov"] = torch.cov(x)
out["cov_kw"] = torch.cov(input=x.double(), correction=0)
out["cov_row"] = torch.cov(row)
out["shuffle"] = torch.channel_shuffle(image[0].reshape(1, 2, 5, 42).repeat(1, 2, 1, 1), 2)
out["mvlgamma"] = torch.special.multigammaln(x.abs() + 2, 2)
out["mvlgamma_kw"] = torch.special.multigammaln(input=x.abs() + 3, p=3)
out["mvlgamma_low"] = torch.special.multigammaln(torch.tensor([0.34, 1.5, 0.73, -0.3]), 2)
out["amp"] = F.adaptive_max_pool3d(image, 2)
out["amp_none"] = F.adaptive_max_pool3d(image, (None, 3, 2))
values, indices = F.adaptive_max_pool3d(image[0], (2, 3, 4), return_indices=True)
out["amp_values"] = values
out["amp_indices"] = indices
out["amp_kw"] = F.adaptive_max_pool3d(input=image, output_size=(5, 1, None))
out["quantile"] = torch.quantile(x, 0.3)
out["quantile_dim"] = x.quantile(torch.tensor([0.1, 0.5, 0.9]), 1, True)
out["quantile_kw"] = torch.quantile(cube, q=0.75, dim=-1, interpolation="midpoint")
out["quantile_nearest"] = cube.quantile(0.4, dim=0, interpolation="nearest")
out["quantile_all_kept"] = torch.quantile(input=cube, q=torch.tensor([0.5, 1.0], dtype=torch.float64), keepdim=True)
near = torch.tensor([1.0, -2.0, 0.0, -0.0, 5.0, 1e-45, -1e-45, 3.4028235e38, float("inf"), float("nan")])
toward = torch.tensor([0.0, -3.0, 1.0, -1.0, 5.0, -1.0, 1.0, float("inf"), 0.0, 1.0])
out["next"] = torch.nextafter(near, toward)
out["next_method"] = near.double().nextafter(toward.double())
out["next_half"] = torch.nextafter(near.half(), toward.half())
out["next_broadcast"] = torch.nextafter(torch.tensor([[1.0], [2.0]]), torch.tensor([0.0, 5.0]))
stepped = torch.tensor([1.0, -2.0, 0.0, -0.0, 5.0, 3.4028235e38])  # MindSpore's clone() flushes subnormals
stepped.nextafter_(torch.tensor([0.0, -3.0, 1.0, -1.0, 5.0, float("inf")]))
out["next_in_place"] = stepped
counts, edges = x.histogram(bins=4, range=(-3.0, 3.0))
out["hist"], out["hist_edges"] = counts, edges
weighted, _ = cube.reshape(-1).histogram(torch.tensor([-2.0, 0.0, 0.5, 2.5], dtype=torch.float64), weight=cube.reshape(-1).abs(),
                                         density=True)
out["hist_weighted"] = weighted
ints = torch.tensor(np.array([[12, 18, 7, 0], [5, 10, 15, 20]], dtype=np.int32))
out["gcd_method"] = ints.gcd(torch.tensor(np.array([[8, 6, 7, 5], [3, 4, 5, 6]], dtype=np.int32)))
out["gcd_kw"] = ints.long().gcd(other=torch.tensor(np.array([4, 4, 4, 4])))
grid = torch.arange(24.0).reshape(2, 3, 4)
out["narrow"] = grid.narrow_copy(1, 1, 2)
out["narrow_kw"] = grid.narrow_copy(dim=-1, start=torch.tensor(2), length=1)
out["narrow_fn"] = torch.narrow_copy(grid[0], 0, 0, 2)
out["narrow_back"] = grid.narrow_copy(-1, torch.tensor(-2), 1)
out["quantile_nan"] = torch.quantile(torch.tensor([[1.0, float("nan"), 3.0], [4.0, 5.0, 6.0]]), 0.5, dim=1,
                                     interpolation="lower")


def record(key, v):
    a = v.detach().numpy() if hasattr(v, "detach") else v.asnumpy()
    if key.startswith("next"):  # one step of the last bit: compared as the bits themselves
        return [str(a.dtype), list(a.shape), np.ascontiguousarray(a).tobytes().hex()]
    return [str(a.dtype), list(a.shape), a.astype(np.float64).round(5).tolist()]


print("RESULT " + json.dumps({k: record(k, v) for k, v in out.items()}))
'''


def test_unmapped_calls_are_converted():
    result = convert_source(SOURCE)
    assert "import torch" not in result.text
    assert not result.unconverted, [u.action for u in result.unconverted]
    assert "ops.huber_loss(" in result.text and "multigammaln(" in result.text and "linalg_det(" in result.text
    assert "quantile(x, 0.3)" in result.text and ".quantile(" not in result.text
    assert "stepped.assign_value(nextafter(stepped, " in result.text and ".histogram(" not in result.text


def test_round_with_decimals_stays_marked():
    result = convert_source("import torch\nx = torch.ones(3)\ny = torch.special.round(x, decimals=2)\n")
    assert [u.torch_api for u in result.unconverted] == ["torch.special.round"]
    assert "scale by 10**decimals" in result.unconverted[0].action


def test_huber_loss_with_a_weight_keeps_its_weight():
    # MindSpore's huber_loss has no weight=: the call goes to a helper that weighs the unreduced loss
    # (apis/weighted_losses.py, run in both frameworks by tests/convert/test_torch_forms.py), never dropping it
    result = convert_source("import torch\nimport torch.nn.functional as F\nx = torch.ones(3)\n"
                            "w = torch.ones(3)\ny = F.huber_loss(x, x, weight=w)\n")
    assert not result.unconverted
    assert "y = huber_loss_weighted(x, x, weight=w)" in result.text


@pytest.mark.slow
def test_converted_values_match_pytorch(tmp_path):
    torch_out, ms_out = run_both(tmp_path, SOURCE)
    # nextafter's steps are compared exactly, as bit patterns
    assert_records_match(torch_out, ms_out, lambda key, dtype: None if key.startswith("next") else (1e-4, 1e-5))
    assert torch_out["amp_indices"][0] == "int64" and torch_out["round_half"][2] == [0.0, 2.0, 2.0, -0.0]


def test_a_method_of_the_files_own_class_stays_a_method():
    # the helpers take a tensor first: a class of the file's own with a method of that name keeps its call
    source = ("import torch\nclass Window:\n    def quantile(self, q):\n        return q\n    def gcd(self, a, b):\n"
              "        return a\nwin = Window()\na = win.quantile(0.5)\nb = win.gcd(2, 3)\n"
              "x = torch.tensor([4, 6])\nc = x.gcd(torch.tensor([2, 4]))\nd = x.float().quantile(0.5)\n")
    text = convert_source(source).text
    assert "a = win.quantile(0.5)" in text and "b = win.gcd(2, 3)" in text
    assert "c = kernel_dtypes(\"gcd\"" in text and "quantile(x.float(), 0.5)" in text.replace("ms_quantile", "quantile")
