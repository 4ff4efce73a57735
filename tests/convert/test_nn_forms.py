"""Layer call forms MindSpore's namesake reads another way (convert/modules/nn_forms.py, support's
helper_nn_forms.py): the softmax family with PyTorch's implicit dim or a 0-d input, SmoothL1Loss and
F.smooth_l1_loss with beta 0 or a beta known only at run time, the loss arguments both frameworks read
alike (nn_forms.json), adaptive pooling sizes holding None, bias=False / elementwise_affine=False on layers
MindSpore builds with a shift anyway, LayerNorm over several axes and LSTM's proj_size. Each converted form is also run in both
frameworks."""
from __future__ import annotations

import pytest

from analysis.convert import convert_source
from tests.convert.both_frameworks import assert_records_match, run_both


def converted(source: str):
    result = convert_source("import torch\nfrom torch import nn\nimport torch.nn.functional as F\n" + source)
    return result.text, [u.action for u in result.unconverted]


@pytest.mark.parametrize("layer", ["Softmax", "Softmin", "LogSoftmax"])
def test_softmax_layer_becomes_the_local_class_with_pytorchs_dim(layer):
    text, markers = converted(f"a = nn.{layer}()\nb = nn.{layer}(dim=1)\nc = nn.{layer}(0)\n")
    assert f"a = {layer}()\n" in text and f"b = {layer}(dim=1)\n" in text and f"c = {layer}(0)\n" in text
    assert f"class {layer}(nn.{layer}):" in text  # MindSpore's layer underneath: isinstance checks hold
    assert not markers


def test_softmax_function_without_dim_gets_the_implicit_axis_and_with_one_goes_to_ops():
    text, markers = converted("a = F.softmax(x)\nb = F.log_softmax(x, dim=None, dtype=torch.float64)\n"
                              "c = F.softmin(x, 1)\nd = F.softmax(x, dim=-1)\n")
    assert 'a = softmax_family(x, kind="softmax")' in text
    assert 'b = softmax_family(x, kind="log_softmax", dtype=mindspore.float64)' in text
    assert "c = ops.softmin(x, 1)" in text and "d = ops.softmax(x, axis=-1)" in text
    assert not markers


def test_smooth_l1_with_beta_zero_or_a_runtime_beta_goes_to_the_helpers():
    text, markers = converted("a = nn.SmoothL1Loss(beta=0.0)\nb = nn.SmoothL1Loss(reduction='sum', beta=beta)\n"
                              "c = nn.SmoothL1Loss(beta=0.5)\nd = F.smooth_l1_loss(x, y, reduction='sum', beta=beta)\n"
                              "e = nn.SmoothL1Loss(reduction='none')\n")
    assert "a = SmoothL1Loss(beta=0.0)" in text and "b = SmoothL1Loss(reduction='sum', beta=beta)" in text
    assert "c = nn.SmoothL1Loss(beta=0.5, reduction='mean')" in text
    assert "d = smooth_l1_loss(x, y, reduction='sum', beta=beta)" in text
    assert "e = nn.SmoothL1Loss(reduction='none')" in text  # the same values in both frameworks: kept
    assert not markers


def test_adaptive_pool_none_kept_where_mindspore_reads_it_and_marked_where_it_refuses():
    text, markers = converted("a = nn.AdaptiveAvgPool2d((None, 3))\nb = nn.AdaptiveMaxPool2d((3, None))\n"
                              "c = nn.AdaptiveMaxPool3d((None, 2, 2))\n")
    assert "a = nn.AdaptiveAvgPool2d((None, 3))" in text and "b = nn.AdaptiveMaxPool2d((3, None))" in text
    assert len(markers) == 1 and "None" in markers[0] and "AdaptiveMaxPool3d" in markers[0]


def test_loss_weights_and_ignore_index_are_passed_on():
    text, markers = converted("loss = nn.NLLLoss(weight=w, ignore_index=2, reduction='sum')\n"
                              "bce = nn.BCEWithLogitsLoss(w, pos_weight=p)\n")
    assert "loss = nn.NLLLoss(weight=w, ignore_index=2, reduction='sum')" in text
    assert "bce = nn.BCEWithLogitsLoss(weight=w, pos_weight=p)" in text and not markers


def test_bias_false_wraps_mindspores_layer_in_fixed_affine():
    text, markers = converted("a = nn.BatchNorm2d(3, bias=False)\nb = nn.LayerNorm(8, elementwise_affine=flag)\n"
                              "c = nn.TransformerEncoderLayer(d_model=4, nhead=2, bias=False)\nd = nn.BatchNorm2d(3, bias=True)\n")
    assert "a = fixed_affine(nn.BatchNorm2d(3, momentum=0.9), shift=False)" in text
    assert "b = fixed_affine(nn.LayerNorm(normalized_shape=(8,), epsilon=1e-05), scale=flag, shift=flag)" in text
    assert "c = fixed_affine(nn.TransformerEncoderLayer(d_model=4, nhead=2), shift=False)" in text
    assert "d = nn.BatchNorm2d(3, momentum=0.9)" in text
    assert not markers


def test_bias_false_in_a_subclass_init_stays_marked():
    # layercalls.base_init takes the converted arguments: a wrapper cannot go there
    text, markers = converted("class B(nn.BatchNorm2d):\n    def __init__(self):\n        super().__init__(3, bias=False)\n")
    assert "super().__init__(3, bias=False)" in text and any("bias=" in m for m in markers)


def test_layer_norm_over_several_axes_is_the_local_class():
    text, markers = converted("a = nn.LayerNorm([2, 2, 5], 0.001)\n"
                              "b = nn.LayerNorm([2, 5], 0.001, elementwise_affine=True, bias=False)\n"
                              "c = nn.LayerNorm(4, 1e-05, False)\n")
    assert "a = LayerNorm(normalized_shape=(2, 2, 5), epsilon=0.001)" in text
    assert "b = fixed_affine(LayerNorm(normalized_shape=(2, 5), epsilon=0.001), shift=False)" in text
    assert "c = fixed_affine(nn.LayerNorm(normalized_shape=(4,), epsilon=1e-05), scale=False, shift=False)" in text
    assert "class LayerNorm(nn.LayerNorm):" in text and not markers


def test_lstm_with_proj_size_is_the_local_projected_lstm():
    text, markers = converted("a = nn.LSTM(4, 8, proj_size=2)\nb = nn.LSTM(4, 8, proj_size=0)\n")
    assert "a = ProjectedLSTM(4, 8, proj_size=2)" in text and "b = LSTM(4, 8, proj_size=0)" not in text
    assert not markers


SCRIPT = '''
import json
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
records = {}


def keep(name, t):
    records[name] = ["float", list(t.shape), np.array(t.tolist(), dtype=np.float64).ravel().tolist()]


inputs = {n: torch.tensor(np.random.RandomState(n).randn(*[2, 3, 4, 5][:n]).astype(np.float32)) for n in (1, 2, 3, 4)}
inputs[0] = torch.tensor(np.float32(0.7))
for n, x in inputs.items():
    keep(f"softmax{n}", nn.Softmax()(x))
    keep(f"softmin{n}", nn.Softmin()(x))
    keep(f"log_softmax{n}", nn.LogSoftmax()(x))
    keep(f"softmax_dim0_{n}", nn.Softmax(dim=0)(x))
    keep(f"F_softmax{n}", F.softmax(x))
    keep(f"F_log_softmax{n}", F.log_softmax(x, dtype=torch.float64))
    keep(f"F_softmin{n}", F.softmin(x, dim=None))
a, b = inputs[3], inputs[3] * 0.5 + 0.1
for beta in (0.0, 0.5):
    keep(f"smooth_l1_layer{beta}", nn.SmoothL1Loss(reduction="sum", beta=beta)(a, b))
    keep(f"smooth_l1_none{beta}", nn.SmoothL1Loss(reduction="none", beta=beta)(a, b))
    keep(f"F_smooth_l1{beta}", F.smooth_l1_loss(a, b, reduction="mean", beta=beta))
keep("smooth_l1_zero", nn.SmoothL1Loss(beta=0.0)(a, b))
logits = F.log_softmax(torch.tensor(np.random.RandomState(7).randn(4, 5).astype(np.float32)), dim=1)
target = torch.tensor([1, 2, 0, 2])
weight = torch.tensor(np.random.RandomState(8).rand(5).astype(np.float32))
keep("nll_ignore", nn.NLLLoss(ignore_index=2)(logits, target))
keep("nll_weight_sum", nn.NLLLoss(weight=weight, ignore_index=2, reduction="sum")(logits, target))
probs = torch.tensor(np.random.RandomState(9).rand(4, 5).astype(np.float32))
keep("bce_weight", nn.BCEWithLogitsLoss(weight, reduction="sum", pos_weight=weight * 2)(logits, probs))
keep("bce_weight_none", nn.BCEWithLogitsLoss(weight=weight, reduction="none")(logits, probs))
img = inputs[4]
keep("avg_none_w", nn.AdaptiveAvgPool2d((None, 3))(img))
keep("max_none_h", nn.AdaptiveMaxPool2d((2, None))(img))
keep("avg3d_none", nn.AdaptiveAvgPool3d((None, 2, 3))(img))
for name, layer, x in [("bn_nobias", nn.BatchNorm2d(3, bias=False), inputs[4]),
                       ("ln_wide", nn.LayerNorm([4, 5], 0.001), inputs[4]),
                       ("ln_plain", nn.LayerNorm((3, 4), elementwise_affine=False), inputs[3]),
                       ("ln_nobias", nn.LayerNorm(5, bias=False), inputs[4])]:
    layer.eval()
    with torch.no_grad():
        for i, p in enumerate(layer.parameters()):
            p.copy_(torch.tensor(np.sin(np.arange(p.numel()) * 0.37 + i).reshape(tuple(p.shape)).astype(np.float32)))
    keep(name, layer(x))
    keep(name + "_count", torch.tensor(float(sum(p.numel() for p in layer.parameters() if p.requires_grad))))
lstm = nn.LSTM(4, 5, num_layers=2, proj_size=3, bidirectional=True, batch_first=True)
lstm.eval()
with torch.no_grad():
    for i, p in enumerate(lstm.parameters()):
        p.copy_(torch.tensor(np.sin(np.arange(p.numel()) * 0.37 + i).reshape(tuple(p.shape)).astype(np.float32)))
out, (h, c) = lstm(inputs[3])
keep("lstm_proj_out", out)
keep("lstm_proj_h", h)
keep("lstm_proj_c", c)
out, (h, c) = lstm(inputs[3][0])
keep("lstm_proj_unbatched", out)
print("RESULT " + json.dumps(records))
'''


@pytest.mark.slow
def test_nn_forms_compute_pytorchs_values(tmp_path):
    torch_out, ms_out = run_both(tmp_path, SCRIPT)
    assert_records_match(torch_out, ms_out)
