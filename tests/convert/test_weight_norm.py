"""Weight normalisation, which MindSpore lacks (pytorch-tcn wraps every convolution of its default
TCN in it): torch.nn.utils.parametrizations.weight_norm and the older torch.nn.utils.weight_norm become
support helpers that keep PyTorch's parameter names and recompute the weight from g and v on every
call. Checked against PyTorch: names, outputs and gradients after copying PyTorch's g and v across;
and the conversion of pytorch-tcn's import (the new function tried first, the old one as fallback)."""
from __future__ import annotations

import numpy as np
import pytest

from analysis.convert import convert_source
from analysis.convert.support import helper_weight_norm


@pytest.mark.parametrize("api,helper", [("parametrizations.weight_norm", "weight_norm"),
                                        ("weight_norm", "weight_norm_g_v")])
@pytest.mark.parametrize("dim", [0, 1, None])
def test_the_helper_computes_and_differentiates_as_pytorch(api, helper, dim):
    import mindspore
    import torch
    from mindspore import nn

    torch_fn = torch.nn.utils.parametrizations.weight_norm if "." in api else torch.nn.utils.weight_norm
    torch_conv = torch_fn(torch.nn.Conv1d(3, 4, 3), dim=dim)
    cell = getattr(helper_weight_norm, helper)(nn.Conv1d(3, 4, 3, pad_mode="valid", has_bias=True), dim=dim)
    assert tuple(cell.weight.shape) == (4, 3, 1, 3)  # readable before any call (pytorch-tcn initialises it)
    torch_params = dict(torch_conv.named_parameters())
    ms_params = dict(cell.parameters_and_names())
    assert sorted(ms_params) == sorted(torch_params)
    for name, tensor in torch_params.items():
        ms_params[name].set_data(mindspore.Tensor(tensor.detach().numpy().reshape(ms_params[name].shape)))
    x = np.random.default_rng(0).standard_normal((2, 3, 10)).astype(np.float32)
    expected = torch_conv(torch.from_numpy(x))
    expected.sum().backward()
    np.testing.assert_allclose(cell(mindspore.Tensor(x)).asnumpy(), expected.detach().numpy(), atol=1e-5)
    weights = cell.trainable_params()
    _, grads = mindspore.value_and_grad(lambda t: cell(t).sum(), None, weights)(mindspore.Tensor(x))
    for param, grad in zip(weights, grads):
        name = next(n for n, p in ms_params.items() if p is param)
        np.testing.assert_allclose(grad.asnumpy().reshape(torch_params[name].shape),
                                   torch_params[name].grad.numpy(), atol=1e-4, err_msg=name)


def test_the_try_import_is_the_one_converted_and_no_torch_is_left():
    source = (
        "import warnings\n"
        "import torch.nn as nn\n"
        "try:\n"
        "    from torch.nn.utils.parametrizations import weight_norm\n"
        "except ImportError:\n"
        "    from torch.nn.utils import weight_norm\n"
        "    warnings.warn('old torch')\n"
        "\n"
        "class Block(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.conv = weight_norm(nn.Conv1d(3, 4, 3))\n"
        "\n"
        "    def forward(self, x):\n"
        "        return self.conv(x)\n")
    text = convert_source(source, path="block.py").text
    assert "import torch" not in text and "from torch" not in text, text
    assert "self.conv = weight_norm(Conv1d(" in text and "def weight_norm(" in text, text
    assert "try:\n    pass\nexcept ImportError:\n    warnings.warn('old torch')" in text, text
    space: dict = {}
    exec(compile(text, "block.py", "exec"), space)
    import mindspore

    names = sorted(n for n, _ in space["Block"]().parameters_and_names())
    assert names == ["conv.bias", "conv.parametrizations.weight.original0", "conv.parametrizations.weight.original1"]
    assert space["Block"]()(mindspore.Tensor(np.ones((1, 3, 6), np.float32))).shape == (1, 4, 4)
