"""torch.* APIs the mapping tables lacked (API coverage, issue 29), converted and run in both frameworks:
aliases of mapped APIs (concat/concatenate, det, conv1d/2d, cosine_similarity, pixel_shuffle, the *_copy view
ops...), MindSpore ops the tables missed (argwhere, nanmean, dsplit, adjoint, bilinear) and the helpers of
support/helper_cov_torch.py (triu of complex input, fmin, signbit, kthvalue, take_along_dim, unflatten,
trapezoid, unique, mode, nanquantile, scatter_reduce, index_copy, as_strided...), in several dtypes, by
position and keyword, as functions and methods. The script runs with PyTorch, its conversion with
MindSpore; every result compares by dtype, shape and value."""
from __future__ import annotations

import pytest

from analysis.convert import convert_source
from tests.convert.both_frameworks import RECORD, assert_records_match, run_both

SOURCE = '''
import json
import numpy as np
import torch

rng = np.random.default_rng(5)
x = torch.tensor((rng.standard_normal((3, 4)) * 3).astype(np.float32))
d = torch.tensor(rng.standard_normal((3, 4)))
h = x.half()
i = torch.tensor(rng.integers(-5, 5, (3, 4)))
b = i > 0
c = torch.complex(x, x.flip(0))
cube = torch.tensor(rng.standard_normal((2, 3, 4)).astype(np.float32))
sq = torch.tensor(rng.standard_normal((2, 3, 3)))
nan = torch.tensor([[1.0, float("nan"), -0.0], [float("nan"), 2.0, 0.0]])
out = {}
out["triu"] = torch.triu(x)
out["triu_kw"] = torch.triu(input=d, diagonal=1)
out["triu_int"] = torch.triu(i, -1)
out["triu_bool"] = torch.triu(b)
out["triu_c"] = torch.triu(c, 1)
out["concat"] = torch.concat((x, x * 2), 1)
out["concat_kw"] = torch.concat(tensors=[i, i], dim=0)
out["concatenate"] = torch.concatenate([d, d], axis=-1)
out["det"] = torch.det(sq)
out["det_kw"] = torch.det(input=sq[0].float())
out["fmin"] = torch.fmin(nan, torch.tensor([0.5, 3.0, float("nan")]))
out["fmin_int"] = torch.fmin(i, i.flip(1))
out["fmin_mixed"] = torch.fmin(i, x)
out["fmin_half"] = torch.fmin(input=h, other=h.flip(0))
out["signbit"] = torch.signbit(nan)
out["signbit_int"] = torch.signbit(i)
out["signbit_half"] = torch.signbit(h)
out["kth_values"], out["kth_indices"] = torch.kthvalue(x, 2)
kv = torch.kthvalue(d, 3, 0, True)
out["kth_kw"] = torch.kthvalue(input=i, k=1, dim=1).values
out["kth_keep"] = kv.values
out["kth_keep_i"] = kv.indices
idx = torch.tensor([[0, 2, 1, -1], [3, 3, 0, 1], [1, 0, 2, 2]])
out["tad"] = torch.take_along_dim(x, idx, 1)
out["tad_method"] = x.take_along_dim(torch.tensor([[2, 0, 1, 1]]), dim=0)
out["tad_flat"] = torch.take_along_dim(i, torch.tensor([0, 5, 11]))
out["tad_bc"] = torch.take_along_dim(cube, torch.tensor([[[2], [0], [1]]]), dim=2)
out["unflatten"] = torch.unflatten(cube, 2, (2, 2))
out["unflatten_m"] = cube.unflatten(-1, (-1, 1))
out["unflatten_kw"] = i.unflatten(dim=0, sizes=(1, 3))
out["trapz"] = torch.trapezoid(x)
out["trapz_d"] = torch.trapezoid(d, dx=0.5, dim=0)
out["trapz_x"] = torch.trapezoid(x, torch.tensor([0.0, 1.0, 3.0, 6.0]))
out["trapz_int"] = torch.trapezoid(i)
out["ctrapz"] = torch.cumulative_trapezoid(d)
out["ctrapz_x"] = torch.cumulative_trapezoid(x, x=torch.tensor([0.0, 1.0, 3.0]), dim=0)
out["bshapes"] = torch.tensor(torch.broadcast_shapes((3, 1), (4,), 1))
bx, by = torch.broadcast_tensors(x[:, :1], i[0])
out["btensors"], out["btensors2"] = bx, by
out["adj"] = torch.adjoint(cube)
out["pixel"] = torch.pixel_shuffle(cube.reshape(1, 4, 3, 2), 2)
out["unpixel"] = torch.pixel_unshuffle(input=cube.reshape(1, 2, 3, 4)[:, :, :2], downscale_factor=2)
out["argwhere"] = torch.argwhere(b)
out["nanmean"] = torch.nanmean(nan)
out["nanmean_kw"] = torch.nanmean(nan, dim=1, keepdim=True)
out["positive"] = torch.positive(i)
out["dsplit0"], out["dsplit1"] = torch.dsplit(cube, 2)
out["select"] = torch.select(cube, 1, -1)
out["select_kw"] = torch.select_copy(cube, dim=2, index=0)
out["slice"] = torch.slice_copy(cube, 2, 1, None, 2)
out["unfold"] = torch.unfold_copy(cube, 2, 2, 1)
out["view_as_complex"] = torch.view_as_real(torch.view_as_complex(cube.reshape(3, 4, 2).double()))
out["hardshrink"] = torch.hardshrink(d, 1.0)
out["cos"] = torch.cosine_similarity(x, x.flip(0))
out["cos_kw"] = torch.cosine_similarity(x1=d, x2=d.flip(1), dim=0)
out["pdist"] = torch.pdist(x)
out["pdist_p"] = torch.pdist(d, p=1)
out["prelu"] = torch.prelu(cube, torch.tensor([0.25]))
out["index_add"] = torch.index_add(x, 0, torch.tensor([0, 2, 0]), torch.ones(3, 4))
out["index_add_kw"] = torch.index_add(i, 1, torch.tensor([1, 3]), i[:, :2], alpha=2)
out["as_strided"] = torch.as_strided(x, (2, 2), (1, 2), 1)
out["as_strided_m"] = cube.as_strided((3, 2), (4, 1))
out["as_strided_scatter"] = torch.as_strided_scatter(x, torch.zeros(2, 2), (2, 2), (1, 2))
out["nonzero_static"] = torch.nonzero_static(b, size=10)
out["nonzero_static_short"] = torch.nonzero_static(b, size=2, fill_value=7)
out["chain"] = torch.chain_matmul(sq[0], sq[1], sq[0])
out["asarray"] = torch.asarray([1.5, 2.0])
out["asarray_i"] = torch.asarray(np.arange(3), dtype=torch.float64)
out["unique"] = torch.unique(i)
u, inv, cnt = torch.unique(i, False, return_inverse=True, return_counts=True)
out["unique_v"], out["unique_inv"], out["unique_cnt"] = u, inv, cnt
out["unique_b"] = torch.unique(b)
rows = torch.tensor([[3, 1], [1, 2], [3, 1], [0, 5]])
out["unique_rows"] = torch.unique(rows, dim=0)
out["unique_cols"], out["unique_cols_inv"], out["unique_cols_cnt"] = rows.float().T.unique(
    sorted=True, return_inverse=True, return_counts=True, dim=1)
out["unique_dim_pos"], out["unique_dim_inv"] = rows.unique(True, True, dim=0)
out["corrcoef"] = torch.corrcoef(x)
out["corrcoef_m"] = d.corrcoef()
out["tsolve"], _ = torch.triangular_solve(sq[0, :, :2], sq[1], upper=False)
out["tsolve_t"] = torch.triangular_solve(sq[0], sq[1], True, True).solution
out["bilinear"] = torch.bilinear(x[:, :2], x[:, 2:], torch.ones(5, 2, 2), torch.arange(5.0))
out["chunk"] = torch.unsafe_chunk(x, 2, 1)[1]
out["split"] = torch.unsafe_split(x, 1)[2]
out["split_m"] = x.unsafe_split(3, 1)[1]
out["diag_copy"] = torch.diagonal_copy(cube, 1, 1, 2)
out["perm_copy"] = torch.permute_copy(cube, (2, 0, 1))
out["t_copy"] = torch.t_copy(x)
out["tr_copy"] = torch.transpose_copy(cube, 0, 2)
out["unbind_copy"] = torch.unbind_copy(x, 1)[3]
out["unsq_copy"] = torch.unsqueeze_copy(x, 1)
out["view_copy"] = torch.view_copy(x, (2, 6))
out["expand_copy"] = torch.expand_copy(x[:1], (2, 3, 4))
out["split_copy"] = torch.split_copy(x, 2)[1]
out["split_sizes_copy"] = torch.split_with_sizes_copy(x, [1, 3], 1)[1]
out["squeeze_copy"] = torch.squeeze_copy(x[:1], 0)
out["detach_copy"] = torch.detach_copy(x)
out["alias_copy"] = torch.alias_copy(i)
out["resolve"] = torch.resolve_conj(torch.resolve_neg(x))
out["conv1d"] = torch.conv1d(cube, torch.ones(2, 3, 2), padding=1)
out["conv2d"] = torch.conv2d(cube[None], torch.ones(1, 2, 2, 2), torch.tensor([0.5]), 1)
out["avg_pool1d"] = torch.avg_pool1d(cube, 2)
out["aap1d"] = torch.adaptive_avg_pool1d(cube, 3)
out["shuffle"] = torch.native_channel_shuffle(cube.reshape(1, 4, 3, 2), 2)
out["pairwise"] = torch.pairwise_distance(x, x.flip(1))
out["conv_tbc"] = torch.conv_tbc(cube.permute(2, 0, 1).contiguous(), torch.ones(2, 3, 5), torch.zeros(5), 1)
out["sel_scatter"] = torch.select_scatter(x, torch.ones(3), 1, 0)
out["sel_scatter_c"] = torch.select_scatter(c, torch.zeros(4, dtype=torch.complex64), dim=0, index=-1)
out["slice_scatter"] = torch.slice_scatter(i, torch.zeros(3, 2, dtype=torch.int64), 1, 0, None, 2)
out["slice_scatter_kw"] = torch.slice_scatter(input=d, src=torch.ones(1, 4, dtype=torch.float64), start=2)
out["index_copy"] = torch.index_copy(x, 1, torch.tensor([3, 0]), torch.ones(3, 2))
out["index_copy_m"] = i.index_copy(0, torch.tensor([2]), i[:1] * 10)
out["index_copy_b"] = b.index_copy(dim=1, index=torch.tensor([1]), source=torch.ones(3, 1, dtype=torch.bool))
mode_ints = torch.tensor([[1, 2, 2, 3, 3, 0], [5, 5, 4, 4, 4, 1], [0, 0, 0, 1, 1, 1]])
out["mode_v"], out["mode_i"] = torch.mode(mode_ints)
mv = mode_ints.double().mode(0, keepdim=True)
out["mode_keep_v"], out["mode_keep_i"] = mv.values, mv.indices
out["mode_b"] = torch.mode(b, dim=1).values
out["nanq"] = torch.nanquantile(nan, 0.5)
out["nanq_dim"] = torch.nanquantile(nan, torch.tensor([0.25, 0.75]), dim=1, keepdim=True)
out["nanq_lower"] = torch.nanquantile(d, 0.4, 0, interpolation="lower")
out["nanq_all_nan"] = torch.nanquantile(torch.tensor([[float("nan"), float("nan")], [1.0, 2.0]]), 0.5, dim=1)
si = torch.tensor([[0, 1, 0, 2], [2, 2, 1, 0]])
src = torch.tensor(rng.standard_normal((2, 4)).astype(np.float32))
out["sr_sum"] = torch.scatter_reduce(x, 0, si, src, "sum")
out["sr_mean"] = torch.scatter_reduce(x, 0, si, src, reduce="mean", include_self=False)
out["sr_amax"] = x.scatter_reduce(0, si, src, "amax")
out["sr_amin_int"] = i.scatter_reduce(dim=0, index=si, src=i[:2] * 3, reduce="amin", include_self=False)
out["sr_prod"] = torch.scatter_reduce(d, 1, si[:, :2], d[:2, :2], "prod")
out["sr_mean_int"] = torch.scatter_reduce(i, 0, si, i[:2] + 1, "mean")
out["sr_bool"] = torch.scatter_reduce(b, 0, si, b[:2], "sum", include_self=False)
with_nan = torch.tensor([1.0, float("nan"), 1.0, float("inf"), float("nan"), -float("inf"), 0.5])
out["unique_nan"], _, out["unique_nan_counts"] = torch.unique(with_nan, return_inverse=True,
                                                              return_counts=True)
out["kth_nan"] = torch.kthvalue(with_nan, 6).values
out["kth_nan_rows"] = torch.kthvalue(nan, 2, dim=1).values
ties = torch.tensor(rng.integers(0, 3, (3, 7, 5)))
out["kth_ties"] = torch.kthvalue(ties, 4, 1).indices
out["kth_ties_dim0"] = ties.float().kthvalue(2, dim=0, keepdim=True).indices
out["grad0"], out["grad1"] = torch.gradient(x)
out["grad_h"] = torch.gradient(d, spacing=0.5, dim=1, edge_order=2)[0]
out["grad_coords"] = torch.gradient(cube, spacing=[torch.tensor([0.0, 1.0, 3.0])], dim=1)[0]
coords = (torch.tensor([0.0, 0.5, 2.0]), torch.tensor([1.0, 2.0, 4.0, 7.0]))
out["grad_coords2"] = torch.gradient(d, spacing=coords, edge_order=2)[1]
out["grad_int"] = torch.gradient(i, dim=[0])[0]
out["ireduce"] = torch.index_reduce(x, 0, torch.tensor([0, 2, 0]), d[:3].float(), "prod")
out["ireduce_m"] = x.index_reduce(1, torch.tensor([3, 3]), x[:, :2], reduce="amax", include_self=False)
out["ireduce_mean"] = i.index_reduce(dim=1, index=torch.tensor([0, 1, 0]), source=i[:, :3], reduce="mean")
out["conv3d"] = torch.conv3d(cube[None, None], torch.ones(2, 1, 1, 2, 2), stride=1, padding=1, groups=1)
out["var_copy"] = torch.view_as_real_copy(c)
out["vac_copy"] = torch.view_as_complex_copy(d.reshape(2, 3, 2))
raw = bytearray(np.arange(6, dtype=np.int32).tobytes())
out["frombuffer"] = torch.frombuffer(raw, dtype=torch.int32, count=4, offset=4)
out["erfinv"] = torch.erfinv(torch.tensor([0.0, 0.5, -0.9, 0.999, 0.999999, 1.0]))
out["erfinv_m"] = torch.tensor([0.993, -0.5, 0.25], dtype=torch.float64).erfinv()
out["matrix_exp"] = torch.matrix_exp(sq / 3)
out["matrix_exp_m"] = (sq[0] / 2).float().matrix_exp()
out["conv_t1d"] = torch.conv_transpose1d(cube, torch.ones(3, 2, 2), stride=2)
out["conv_t2d"] = torch.conv_transpose2d(cube[None], torch.ones(2, 1, 2, 2), torch.tensor([0.5]), 1, 1)
out["conv_t3d"] = torch.conv_transpose3d(cube[None, None], torch.ones(1, 2, 2, 1, 2), padding=(0, 0, 1))
out["uchunk"] = x.unsafe_chunk(2, dim=1)[0]
out["usplit"] = x.unsafe_split(2)[1]
# nanmedian along a dim: (values, indices); the median values are not repeated within a row, so the
# indices are PyTorch's too
out["nanmedian_v"], out["nanmedian_i"] = torch.nanmedian(nan, 1)
out["nanmedian_kw"] = torch.nanmedian(input=d, dim=0, keepdim=True).values
out["nanmedian_int"] = torch.nanmedian(torch.tensor([[4, 1, 3], [0, 9, 7]]), dim=-1).values
''' + RECORD


def test_coverage_calls_convert_without_markers():
    result = convert_source(SOURCE)
    assert "import torch" not in result.text
    # matrix_exp keeps its conversion with a marker naming float16 (PyTorch's own float16 result overflows
    # on CPU; the helper computes it in float32): the calls here are float32/64 and run below
    marked = [u for u in result.unconverted if not (u.torch_api == "torch.matrix_exp" and "float16" in u.action)]
    assert not marked, [(u.torch_api, u.action) for u in marked]
    assert "kthvalue(x, 2)" in result.text and "take_along_dim(x, " in result.text
    assert "ops.argwhere(b)" in result.text


def test_unique_converts_with_dim_and_unsorted():
    # sorted=False converts: PyTorch 2.13's CPU kernel sorts all the same (measured on every dtype); dim= goes
    # to unique_slices() (its values are checked in test_converted_values_match_pytorch)
    result = convert_source("import torch\nx = torch.ones(3, 2)\ny = torch.unique(x, dim=0)\n"
                            "z = torch.unique(x, sorted=False)\nw = x.unique(dim=1)\n")
    assert result.unconverted == [] and "def unique_slices(" in result.text
    assert "y = unique(x, dim=0)" in result.text and "w = unique(x, dim=1)" in result.text


def test_settings_without_counterpart_say_what_to_write():
    result = convert_source("import torch\ntorch.set_num_threads(4)\n"
                            "torch.use_deterministic_algorithms(True)\n"
                            "torch.set_default_dtype(torch.float64)\n")
    actions = {u.torch_api: u.action for u in result.unconverted}
    assert "op_tuning.threads_num" in actions["torch.set_num_threads"]
    assert "mindspore.set_deterministic(True)" in actions["torch.use_deterministic_algorithms"]
    assert "dtype=" in actions["torch.set_default_dtype"]


def test_in_place_scatter_reduce_is_written_back():
    # the helper returns a new tensor: the in-place form writes it back into x (the out-of-place method's
    # helper passed every one of PyTorch's samples), never drops it
    result = convert_source("import torch\nx = torch.zeros(3)\nx.scatter_reduce_(0, torch.tensor([0, 0]), "
                            "torch.ones(2), 'sum')\n")
    assert "x.assign_value(scatter_reduce(x, 0, mindspore.tensor([0, 0]), ops.ones(2), 'sum'))" in result.text
    assert not result.unconverted


@pytest.mark.slow
def test_converted_values_match_pytorch(tmp_path):
    torch_out, ms_out = run_both(tmp_path, SOURCE)
    assert_records_match(torch_out, ms_out, lambda key, dtype: (1e-3, 1e-3))
    # the inputs reach the cases they are meant for: -0.0 and NaN rows, ties in mode, an all-NaN slice
    assert torch_out["signbit"][2] == [[False, False, True], [False, False, False]]
    assert torch_out["mode_v"][2] == [2, 4, 0] and torch_out["nanq_all_nan"][2][0] == 12345.0
