"""`x.split(size, dim=d)` is written `x.split(size, axis=d)` (tensors/methods.py): MindSpore 2.10 reads dim= as
the overload whose SplitTensor kernel CPU lacks in a compiled graph, so a compiled training step over
nanoGPT's attention (`self.c_attn(x).split(self.n_embd, dim=2)`) failed to build. The converted layer's
compiled loss and gradients are PyTorch's."""
from __future__ import annotations

import importlib.util
import sys

import numpy as np
import torch

from analysis.convert import convert_source

ATTENTION = '''
import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n
        self.c_attn = nn.Linear(n, 3 * n)

    def forward(self, x):
        q, k, v = self.c_attn(x).split(self.n, dim=2)
        label = "q k v".split(" ")[0]  # a str's split: left as it is
        return (q.softmax(-1) * k + v).pow(2).mean()
'''


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_a_split_by_dim_compiles_with_pytorch_values_and_gradients(tmp_path):
    import mindspore

    text = convert_source(ATTENTION).text
    assert ".split(self.n, axis=2)" in text and '"q k v".split(" ")' in text
    (tmp_path / "converted_attention.py").write_text(text)
    (tmp_path / "original_attention.py").write_text(ATTENTION)
    ours = _load(tmp_path / "converted_attention.py", "converted_attention").Attention(8)
    theirs = _load(tmp_path / "original_attention.py", "original_attention").Attention(8)
    ours.c_attn.weight.set_data(mindspore.Tensor(theirs.c_attn.weight.detach().numpy()))
    ours.c_attn.bias.set_data(mindspore.Tensor(theirs.c_attn.bias.detach().numpy()))
    x = np.random.default_rng(0).standard_normal((4, 6, 8)).astype(np.float32)

    step = mindspore.jit(mindspore.value_and_grad(ours, None, ours.trainable_params()))
    loss, (dw, db) = step(mindspore.Tensor(x))
    expected = theirs(torch.from_numpy(x))
    expected.backward()
    np.testing.assert_allclose(loss.asnumpy(), expected.detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(dw.asnumpy(), theirs.c_attn.weight.grad.numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(db.asnumpy(), theirs.c_attn.bias.grad.numpy(), rtol=1e-4, atol=1e-6)
