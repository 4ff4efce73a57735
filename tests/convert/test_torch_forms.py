"""torch / linalg / fft / functional calls in the keyword and edge forms real code writes: the ATen
keyword names PyTorch's builtins take besides their documented ones (torch.linalg.cholesky(input=a),
apis/keyword_aliases.py), torch.vander's increasing= and N=0 (support/helper_torch_forms.py),
torch.linspace's 0-d tensor bounds, torch.histogramdd's tensor edges, torch.fft's out= buffers of another
precision than the result (PyTorch casts: tensors/out_cast.json), F.batch_norm on float64 or without
weight, bias or running statistics, and the loss family's keywords (weight= of l1_loss, mse_loss and
huber_loss: apis/weighted_losses.py), torch.ger as outer, fractional max pooling. The script runs with PyTorch, its conversion with MindSpore; every
result compares by dtype, shape and value."""
from __future__ import annotations

import pytest

from analysis.convert import convert_source
from analysis.convert.apis import keyword_aliases
from tests.convert.both_frameworks import RECORD, assert_records_match, run_both

LINALG = '''
import json
import numpy as np
import torch

rng = np.random.default_rng(3)
m = torch.tensor(rng.standard_normal((4, 4)))
spd = m @ m.T + 4 * torch.eye(4, dtype=torch.float64)
f = m.float()
batch = torch.tensor(rng.standard_normal((2, 3, 3)).astype(np.float32))
out = {}
out["chol_kw"] = torch.linalg.cholesky(input=spd, upper=True)
out["chol_kw_lower"] = torch.linalg.cholesky(input=spd.float())
out["pinv_kw"] = torch.linalg.pinv(input=m, atol=1e-5, rtol=1e-3, hermitian=False)
out["pinv_kw_h"] = torch.linalg.pinv(input=spd, hermitian=True)
out["pinv_f"] = torch.linalg.pinv(input=batch)
out["vnorm_kw"] = torch.linalg.vector_norm(input=f, ord=3, dim=1, keepdim=True)
out["mnorm_kw"] = torch.linalg.matrix_norm(input=batch, ord="fro")
out["norm_kw"] = torch.linalg.norm(input=m, ord=2)
out["power_kw"] = torch.linalg.matrix_power(input=f, n=3)
out["eigvalsh_kw"] = torch.linalg.eigvalsh(input=spd, UPLO="U")
out["rank_kw"] = torch.linalg.matrix_rank(input=m, hermitian=False)
out["exp_kw"] = torch.linalg.matrix_exp(input=batch)
out["cholinv_kw"] = torch.cholesky_inverse(input=torch.linalg.cholesky(spd))
out["onehot_kw"] = torch.nn.functional.one_hot(input=torch.tensor([0, 2, 1]), num_classes=4)
''' + RECORD

EDGES = '''
import json
import numpy as np
import torch

x = torch.tensor([1.5, -2.0, 3.0, 0.5])
out = {}
out["default"] = torch.vander(x)
out["kw"] = torch.vander(x, N=3, increasing=True)
out["pos"] = torch.vander(x.double(), 5, True)
out["dec"] = torch.vander(x=x, N=2, increasing=False)
out["n0"] = torch.vander(x, N=0)
out["n1"] = torch.vander(x, 1, True)
out["empty"] = torch.vander(torch.tensor([]))
out["int"] = torch.vander(torch.tensor([1, 2, 3], dtype=torch.int32), increasing=True)
out["int64"] = torch.vander(torch.tensor([1, -2, 3]), N=4)
out["bool"] = torch.vander(torch.tensor([True, False]), increasing=True)
out["half"] = torch.vander(x.half(), N=3)
out["complex"] = torch.vander(torch.complex(x, x.flip(0)), N=3, increasing=True)
# torch.linspace's 0-d tensor bounds with a dtype (MindSpore's LinSpace wants both bounds one tensor dtype)
out["linspace_t16"] = torch.linspace(-2.0, torch.tensor(1.5, dtype=torch.float16), 5, dtype=torch.float16)
out["linspace_t32"] = torch.linspace(start=torch.tensor(-1.0), end=3.0, steps=4, dtype=torch.float32)
# torch.histogramdd's edges given as tensors, decreasing or repeated ones too (NumPy's histogramdd refuses those)
pts = torch.tensor(np.random.default_rng(2).standard_normal((40, 2)) * 3)
wts = torch.tensor(np.random.default_rng(4).uniform(0, 2, 40))
decreasing = [torch.tensor([3.0, -3.0]).double(), torch.tensor([-3.0, 0.0, 3.0]).double()]
out["hdd_dec"] = torch.histogramdd(pts, decreasing).hist
out["hdd_dec_density"] = torch.histogramdd(pts.float(), [torch.tensor([3.0, -3.0]), torch.tensor([-3.0, 3.0])],
                                           density=True).hist
repeated = [torch.tensor([-3.0, -3.0, 1.0]).double(), torch.tensor([-3.0, 0.0, 0.0, 3.0]).double()]
hdd = torch.histogramdd(pts, bins=repeated, weight=wts)
out["hdd_dup"], out["hdd_dup_edges"] = hdd.hist, hdd.bin_edges[1]
out["hdd_density"] = torch.histogramdd(pts.float(), [torch.tensor([-4.0, 0.0, 4.0]), torch.tensor([-5.0, 5.0])],
                                       weight=wts.float(), density=True).hist
# torch.ger, PyTorch's old name of outer: MindSpore's ger takes floats of one dtype only, its outer promotes
iv, fv = torch.tensor([1, 2, 3]), torch.tensor([1.0, -2.0, 0.5, 4.0])
out["ger_int"] = torch.ger(iv, iv)
out["ger_mixed"] = iv.ger(fv)
out["ger_kw"] = fv.double().ger(vec2=fv.double())
# sizes unpacked from a sequence into PyTorch's *sizes (MindSpore takes one tuple there: passed on one by
# one they filled its dtype); an int +-1 target of hinge_embedding_loss (MindSpore's takes float targets only);
# the windows whose MindSpore primitive takes the length as a tensor
shape, reps = (2, 3), [2, 1]
out["ones_star"] = torch.ones(*shape)
out["zeros_star_dtype"] = torch.zeros(2, *shape, dtype=torch.float64)
out["repeat_star"] = fv.repeat(*reps)
out["repeat_mixed_star"] = fv.repeat(2, *reps)
# sizes in a variable: a list there makes MindSpore's tile raise; an int on a 1-D tensor is taken as it is
out["repeat_list_var"] = fv.reshape(2, 2).repeat(reps)
out["tile_list_var"] = torch.tile(fv, reps)
times = 3
out["repeat_int_var"] = fv.repeat(times)
out["hinge_int"] = torch.nn.functional.hinge_embedding_loss(fv, torch.tensor([1, -1, -1, 1]), 0.5)
# ATen's names of hsplit's two overloads, on a 1-D tensor (MindSpore's own hsplit refuses one)
out["hs_a"], out["hs_b"], out["hs_c"] = torch.hsplit(torch.arange(6.0), sections=3)
out["hsi_a"], out["hsi_b"], out["hsi_c"] = torch.arange(12.0).reshape(2, 6).hsplit(indices=[1, 4])
out["blackman"] = torch.blackman_window(6)
out["bartlett"] = torch.bartlett_window(5, periodic=False, dtype=torch.float64)
# the instance norms (MindSpore's kernel is not on CPU): statistics while training, the running ones after
inorm = torch.nn.InstanceNorm1d(3, affine=True, track_running_stats=True, momentum=0.3)
seq = torch.tensor(np.random.default_rng(7).standard_normal((2, 3, 6)).astype(np.float32))
out["inorm_train"] = inorm(seq)
out["inorm_var"] = inorm.running_var
inorm.eval()
out["inorm_eval"] = inorm(seq * 2)
out["inorm2d_default"] = torch.nn.InstanceNorm2d(3)(seq.reshape(2, 3, 2, 3))
# fractional max pooling: given the same _random_samples, both pick the same regions
fx = torch.tensor(np.random.default_rng(5).standard_normal((2, 3, 9, 7)).astype(np.float32))
fs = torch.tensor(np.random.default_rng(6).uniform(size=(2, 3, 2)).astype(np.float32))
out["fmp2"], out["fmp2_idx"] = torch.nn.functional.fractional_max_pool2d(fx, 2, output_size=(4, 3), return_indices=True,
                                                                        _random_samples=fs)
out["fmp2_ratio"] = torch.nn.functional.fractional_max_pool2d(fx, output_ratio=(0.7, 0.7), kernel_size=1,
                                                             _random_samples=fs)
out["fmp2_list"] = torch.nn.functional.fractional_max_pool2d(fx, [3, 2], output_size=[4, 3], _random_samples=fs)
vol = torch.tensor(np.random.default_rng(7).standard_normal((1, 2, 6, 7, 8)).astype(np.float32))
vs = torch.tensor(np.random.default_rng(8).uniform(size=(1, 2, 3)).astype(np.float32))
out["fmp3"] = torch.nn.FractionalMaxPool3d(2, output_size=(3, 4, 5), _random_samples=vs)(vol)
out["fmp3_shape"] = torch.tensor(torch.nn.functional.fractional_max_pool3d(vol, 2, output_ratio=(0.5, 0.5, 0.5)).shape)
''' + RECORD

FFT_OUT = '''
import json
import numpy as np
import torch

rng = np.random.default_rng(7)
x = torch.tensor(rng.standard_normal((4, 6)).astype(np.float32))
d = x.double()
c = torch.complex(x, x.flip(0))
out = {}
b0 = torch.empty(0, dtype=torch.complex64)
torch.fft.fftn(x, out=b0)
out["fftn_c64"] = b0
b1 = torch.empty(0, dtype=torch.complex128)
torch.fft.fftn(x, out=b1)
out["fftn_c128"] = b1
b2 = torch.empty(0, dtype=torch.complex64)
torch.fft.fftn(d, out=b2)
out["fftn_d_c64"] = b2
b3 = torch.empty(0, dtype=torch.complex128)
torch.fft.fft(x, out=b3)
out["fft_c128"] = b3
b4 = torch.empty(0, dtype=torch.complex128)
torch.fft.fft2(c, out=b4)
out["fft2_c"] = b4
b5 = torch.empty(0, dtype=torch.complex64)
torch.fft.ifftn(d, out=b5)
out["ifftn_c64"] = b5
b6 = torch.empty(0, dtype=torch.complex128)
torch.fft.rfft(x, out=b6)
out["rfft_c128"] = b6
b7 = torch.empty(0, dtype=torch.complex64)
torch.fft.rfftn(d, out=b7)
out["rfftn_d_c64"] = b7
b8 = torch.empty(0, dtype=torch.complex64)
torch.fft.rfft2(x, out=b8)
out["rfft2_c64"] = b8
b9 = torch.empty(0, dtype=torch.complex128)
torch.fft.ihfft2(x, out=b9)
out["ihfft2_c128"] = b9
b10 = torch.empty(0, dtype=torch.float64)
torch.fft.irfft(c, out=b10)
out["irfft_f64"] = b10
b11 = torch.empty(0, dtype=torch.float32)
torch.fft.irfftn(c.to(torch.complex128), out=b11)
out["irfftn_f32"] = b11
b12 = torch.empty(0, dtype=torch.float64)
torch.fft.hfft(c, out=b12)
out["hfft_f64"] = b12
b13 = torch.empty(0, dtype=torch.float32)
torch.fft.hfft2(c, out=b13)
out["hfft2_f32"] = b13
buf = torch.empty(4, 6, dtype=torch.complex64)
got = torch.fft.fftn(x, (4, 6), (0, 1), "ortho", out=buf)
out["fftn_args"] = buf
out["fftn_same"] = torch.tensor(got is buf)
buf2 = torch.empty(0, dtype=torch.complex128)
torch.fft.fft(input=x, n=8, dim=0, norm="forward", out=buf2)
out["fft_kw"] = buf2
''' + RECORD

LOSSES = '''
import json
import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(11)
x = torch.tensor(rng.standard_normal((4, 5)).astype(np.float32))
y = torch.tensor(rng.standard_normal((4, 5)).astype(np.float32))
t = torch.tensor([0, 3, 1, 4])
w = torch.tensor(rng.uniform(0.5, 1.5, 5).astype(np.float32))
p = torch.tensor(rng.uniform(0.1, 0.9, (4, 5)).astype(np.float32))
sign = torch.where(y > 0, 1.0, -1.0)
out = {}
out["sl1"] = F.smooth_l1_loss(x, y, size_average=None, reduce=None, reduction="mean", beta=0.5)
out["sl1_kw"] = F.smooth_l1_loss(input=x, target=y, reduction="none", beta=2.0)
out["sl1_legacy"] = F.smooth_l1_loss(x, y, reduce=True, size_average=False)
out["sl1_legacy_none"] = F.smooth_l1_loss(x, y, reduce=False)
out["huber_kw"] = F.huber_loss(input=x, target=y, reduction="sum", delta=0.5)
out["huber_pos"] = F.huber_loss(x, y, "sum", 0.5)
out["huber_none"] = F.huber_loss(x, y, reduction="mean", delta=1.0, weight=None)
out["mse_legacy"] = F.mse_loss(x, y, size_average=False)
out["l1_legacy"] = F.l1_loss(x, y, reduce=False)
out["ce"] = F.cross_entropy(x, t, weight=w, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                            label_smoothing=0.1)
out["nll"] = F.nll_loss(F.log_softmax(x, 1), t, weight=w, reduction="sum")
out["bce"] = F.binary_cross_entropy(p, p.flip(0), weight=w, reduction="mean")
out["bcel"] = F.binary_cross_entropy_with_logits(x, p, weight=w, reduction="sum", pos_weight=w)
out["kl"] = F.kl_div(F.log_softmax(x, 1), p, reduction="batchmean", log_target=False)
out["soft_margin"] = F.soft_margin_loss(x, sign, reduction="sum")
out["ml_soft_margin"] = F.multilabel_soft_margin_loss(x, p, weight=w, reduction="mean")
out["hinge"] = F.hinge_embedding_loss(x, sign, margin=0.5, reduction="sum")
out["ranking"] = F.margin_ranking_loss(x, y, sign, margin=0.1, reduction="sum")
out["cosine"] = F.cosine_embedding_loss(x, y, sign[:, 0], margin=0.1, reduction="sum")
out["poisson"] = F.poisson_nll_loss(x, p, log_input=True, full=True, eps=1e-6, reduction="sum")
out["gaussian"] = F.gaussian_nll_loss(x, y, p, full=True, eps=1e-6, reduction="sum")
out["triplet"] = F.triplet_margin_loss(x, y, p, margin=0.5, p=1, eps=1e-6, swap=True, reduction="sum")
out["multi_margin"] = F.multi_margin_loss(x, t, p=1, margin=0.5, weight=w, reduction="sum")
ew = torch.tensor(rng.uniform(0.0, 2.0, (4, 5)).astype(np.float32))  # PyTorch 2.6's per-element weight=
out["l1_w"] = F.l1_loss(x, y, weight=ew)
out["l1_w_sum"] = F.l1_loss(x, y, reduction="sum", weight=ew)
out["l1_w_none"] = F.l1_loss(input=x, target=y, reduction="none", weight=ew)
out["mse_w"] = F.mse_loss(x, y, weight=ew)
out["mse_w_legacy"] = F.mse_loss(x, y, size_average=False, weight=ew)
out["huber_w"] = F.huber_loss(x, y, delta=0.5, weight=ew)
out["huber_w_sum"] = F.huber_loss(x, y, "sum", 2.0, weight=ew)
out["huber_w_d"] = F.huber_loss(x.double(), y.double(), reduction="none", weight=ew.double())
''' + RECORD

BATCH_NORM = '''
import json
import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(13)
x = torch.tensor(rng.standard_normal((4, 3, 5)))
out = {}
for name, dtype in (("f64", torch.float64), ("f32", torch.float32), ("f16", torch.float16)):
    v = x.to(dtype)
    mean, var = torch.zeros(3, dtype=dtype), torch.ones(3, dtype=dtype)
    w, b = torch.tensor([0.5, 1.0, 2.0], dtype=dtype), torch.tensor([0.1, -0.2, 0.3], dtype=dtype)
    out[f"train_{name}"] = F.batch_norm(v, mean, var, w, b, True, 0.5, 0.6)
    out[f"mean_{name}"], out[f"var_{name}"] = mean, var
    out[f"eval_{name}"] = F.batch_norm(input=v, running_mean=mean, running_var=var, weight=w, bias=b,
                                       training=False)
    out[f"noweight_{name}"] = F.batch_norm(v[:, :, 0], mean, var, training=True, momentum=0.2)
    out[f"noweight_mean_{name}"] = mean
    out[f"nostats_{name}"] = F.batch_norm(v, None, None, bias=b, training=True)
    out[f"eval_noweight_{name}"] = F.batch_norm(v, mean, var, None, b)
''' + RECORD


@pytest.mark.parametrize("call, name", [
    ("torch.linalg.cholesky(input=a, upper=True)", "linalg_cholesky"),
    ("torch.linalg.pinv(input=a, atol=1e-5, rtol=1e-3, hermitian=False)", "linalg_pinv"),
    ("torch.linalg.vector_norm(input=a, ord=2)", "linalg_vector_norm"),
    ("torch.vander(a, N=3, increasing=True)", "vander"),
    ("torch.linspace(-2.0, a[0, 0], 5, dtype=torch.float16)", "linspace"),
    ("torch.nn.functional.mse_loss(a, a * 2, weight=a)", "mse_loss_weighted"),
    ("torch.nn.functional.batch_norm(a.double(), None, None, training=True)", "batch_norm_function"),
])
def test_keyword_forms_convert_without_a_marker(call, name):
    result = convert_source(f"import torch\na = torch.ones(3, 3)\nb = {call}\n")
    assert not result.unconverted, [u.action for u in result.unconverted]
    assert f"b = {name}(" in result.text


def test_an_aten_keyword_is_renamed_to_the_documented_one_only_where_torch_takes_it():
    assert keyword_aliases._data()["torch.linalg.cholesky"] == {"input": "A"}
    assert "torch.linalg.det" not in keyword_aliases._data()  # linalg_det(A): `input=` raises in PyTorch too
    result = convert_source("import torch\na = torch.ones(3, 3)\nb = torch.linalg.det(input=a)\n")
    assert result.unconverted  # left as written, with its marker


def test_keyword_aliases_match_the_installed_torch():
    assert keyword_aliases.build()["apis"] == keyword_aliases._data()


def test_fft_out_of_another_precision_is_cast_as_pytorch_does():
    text = convert_source("import torch\nx = torch.ones(4)\nbuf = torch.empty(4, dtype=torch.complex128)\n"
                          "torch.fft.fftn(x, out=buf)\n").text
    assert "write_out_cast(buf, " in text


@pytest.mark.slow
@pytest.mark.parametrize("source", [LINALG, EDGES, FFT_OUT, LOSSES, BATCH_NORM],
                         ids=["linalg", "edges", "fft_out", "losses", "batch_norm"])
def test_forms_run_the_same_in_both_frameworks(tmp_path, source):
    converted = convert_source(source)
    # hinge_embedding_loss is verified on +-1 targets, the only ones PyTorch defines it for (verify/inputs.py)
    assert not [u for u in converted.unconverted if u.rule_id != "MS-TORCH-IMPORT"], \
        [u.action for u in converted.unconverted]
    torch_out, ms_out = run_both(tmp_path, source)
    assert_records_match(torch_out, ms_out, tolerance=lambda key, dtype: (2e-3, 2e-3) if "16" in dtype
                         or key.endswith(("f32", "c64")) else (1e-4, 1e-5))


@pytest.mark.slow  # torch's op_db takes seconds to import
def test_the_probe_reads_fft_results_into_a_wider_complex_buffer_as_a_cast():
    # out_probe gives a complex64 result a complex128 buffer: torch.fft.fftn computes in its input's precision
    # and casts, torch.fft.ifft refuses the wider buffer for float32 input
    from torch.testing._internal.common_methods_invocations import op_db

    from analysis.verify.out_probe import verdict

    ops = {op.name: op for op in op_db if not op.variant_test_name}
    assert verdict(ops["fft.fftn"]) == "cast"
    assert verdict(ops["fft.ifft"]) == "refuses"
