"""Weight-decay parameter groups (issue 16, pattern 2: named_parameters() filters). Groups chosen by
shape convert and train like PyTorch (both frameworks run); a test of a parameter's name against
'weight'/'bias' is marked, since MindSpore names norm and Embedding parameters otherwise."""
from __future__ import annotations

import ast

import pytest

from analysis.convert import convert_source
from tests.convert.harness import parse_snippet, run_corpus

HEAD = """import numpy as np
import torch
import torch.nn as nn
x = torch.tensor(np.cos(np.arange(24) * 0.7).astype(np.float32).reshape(6, 4))
y = torch.tensor(np.sin(np.arange(12) * 0.3).astype(np.float32).reshape(6, 2))
"""

GROUPS_BY_SHAPE = """# compare: losses, first, norm
model = fill(nn.Sequential(nn.Linear(4, 3), nn.LayerNorm(3), nn.Linear(3, 2)))
param_dict = {pn: p for pn, p in model.named_parameters()}
param_dict = {pn: p for pn, p in param_dict.items() if p.requires_grad}
decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
optim_groups = [
    {'params': decay_params, 'weight_decay': 0.5},
    {'params': nodecay_params, 'weight_decay': 0.0}
]
optimizer = torch.optim.AdamW(optim_groups, lr=0.05, betas=(0.9, 0.95))
losses = []
for step in range(3):
    for group in optimizer.param_groups:
        group['lr'] = 0.05 * (step + 1) / 3
    out = model(x)
    loss = ((out - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
first = model[0].weight.detach().numpy()
norm = model[2].bias.detach().numpy()
"""

BY_NAME = """import torch
import torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(3, 2)
model = nn.Sequential(nn.Linear(4, 3), nn.LayerNorm(3))
decay = [p for n, p in model.named_parameters() if 'bias' not in n]
no_decay = []
for name, param in model.named_parameters():
    if name.endswith('weight'):
        continue
    no_decay.append(param)
by_shape = [p for n, p in model.named_parameters() if p.dim() >= 2]
for n, p in model.named_parameters():
    if n.endswith('head.weight'):
        print(n)
for n in ['a.weight', 'b']:
    if n.endswith('weight'):
        print(n)
"""


def test_a_test_on_weight_or_bias_names_is_marked():
    result = convert_source(BY_NAME)
    ast.parse(result.text)
    marked = [(u.line, u.rule_id) for u in result.unconverted]
    assert marked == [(8, "MS-BN-PARAM-NAMES"), (11, "MS-BN-PARAM-NAMES")]  # 'head' is a Linear: same names
    assert "gamma/beta" in result.unconverted[0].action


def test_groups_by_shape_convert_without_marks():
    result = convert_source(HEAD + GROUPS_BY_SHAPE)
    assert not result.unconverted
    assert "parameters_and_names()" in result.text


@pytest.mark.slow
def test_groups_by_shape_train_like_pytorch():
    snippets = [parse_snippet("groups_by_shape", HEAD + GROUPS_BY_SHAPE)]
    assert run_corpus(snippets, timeout=600) == {"groups_by_shape": ""}


def test_an_optimizer_from_configure_optimizers_trains_that_network():
    result = convert_source("import torch\nmodel = Net()\noptimizer = model.configure_optimizers(0.1)\n"
                            "for x in data:\n    loss = model(x)\n    loss.backward()\n    optimizer.step()\n"
                            "    optimizer.zero_grad()\n")
    assert "model.set_train(True)\nfor x in data:" in result.text
    assert not result.unconverted


ADAM_LR_LOOP = """# compare: losses, first
model = fill(nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 2)))
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
def update_lr(optimizer, lr):
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr
losses = []
for step in range(4):
    out = model(x)
    loss = ((out - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
    update_lr(optimizer, 0.05 / (step + 2))
first = model[0].weight.detach().numpy()
"""


def test_adam_whose_param_groups_lr_changes_goes_experimental():
    # the classic nn.Adam has no param_groups: the tutorial's update_lr loop would fail on it
    result = convert_source(HEAD + ADAM_LR_LOOP, ms_version="2.10")
    assert "optim.Adam(model.trainable_params(), lr=0.05)" in result.text
    assert "from mindspore.experimental import optim" in result.text
    assert not result.unconverted


@pytest.mark.slow
def test_adam_whose_param_groups_lr_changes_trains_like_pytorch():
    snippets = [parse_snippet("adam_lr_loop", HEAD + ADAM_LR_LOOP)]
    assert run_corpus(snippets, timeout=600) == {"adam_lr_loop": ""}
