"""Modern training scripts (issue 16, pattern 9): autocast, GradScaler, activation checkpointing,
torch.compile and the distributed set-up. The snippets run with real torch and real MindSpore
(tests/convert/harness.py) and their losses and weights are compared."""
from __future__ import annotations

import ast

import pytest

from analysis.convert import convert_source
from tests.convert.harness import parse_snippet, run_corpus

HEAD = """import contextlib
import numpy as np
import torch
import torch.nn as nn
x = torch.tensor(np.cos(np.arange(24) * 0.7).astype(np.float32).reshape(6, 4))
y = torch.tensor(np.sin(np.arange(12) * 0.3).astype(np.float32).reshape(6, 2))
"""

SNIPPETS = {
    # a GradScaler that really scales (CPU scaler, enabled), autocast off, clipping after unscale_
    "grad_scaler_and_autocast": """# compare: losses, weight
model = fill(nn.Linear(4, 2))
model = torch.compile(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler('cpu')
amp = torch.autocast(device_type='cpu', dtype=torch.bfloat16, enabled=False)
losses = []
for step in range(4):
    optimizer.zero_grad(set_to_none=True)
    with amp:
        out = model(x)
    loss = ((out - y) ** 2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.05)
    scaler.step(optimizer)
    scaler.update()
    losses.append(loss.item())
weight = model.weight.detach().numpy()
""",
    # autocast written directly as the with-item, a disabled scaler, checkpointed blocks
    "checkpoint_in_the_forward": """# compare: losses, weight
from torch.utils.checkpoint import checkpoint
model = fill(nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 2)))
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
scaler = torch.cuda.amp.GradScaler(enabled=False)
losses = []
for step in range(3):
    with torch.autocast('cpu', enabled=False):
        hidden = checkpoint(model[0], x, use_reentrant=False)
        out = model[2](model[1](hidden))
        loss = ((out - y) ** 2).mean()
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    losses.append(loss.item())
weight = model[2].weight.detach().numpy()
""",
}


def _snippets():
    return [parse_snippet(name, HEAD + body) for name, body in SNIPPETS.items()]


def test_grad_scaler_reduces_to_the_plain_step():
    result = convert_source(HEAD + SNIPPETS["grad_scaler_and_autocast"])
    text = result.text
    ast.parse(text)
    assert "scaler" not in text and "GradScaler" not in text
    assert "amp = contextlib.nullcontext()" in text
    assert "grads = ops.clip_by_norm(grads, 0.05)\n    optimizer(grads)" in text
    assert not result.unconverted
    rules = {c.rule_id for c in result.changes}
    assert {"MS-AMP-GRADSCALER", "MS-AMP-AUTOCAST"} <= rules


def test_autocast_with_item_is_unwrapped_and_checkpoint_calls_the_function():
    result = convert_source(HEAD + SNIPPETS["checkpoint_in_the_forward"])
    text = result.text
    assert "autocast" not in text and "with " not in text
    assert "hidden = model[0](x)" in text
    assert not result.unconverted


def test_a_scaler_used_otherwise_stays_marked():
    result = convert_source("import torch\nopt = torch.optim.SGD(m.parameters(), lr=0.1)\n"
                            "scaler = torch.cuda.amp.GradScaler()\nfor x in data:\n    loss = m(x)\n"
                            "    scaler.scale(loss).backward()\n    scaler.step(opt)\n    scaler.update()\n"
                            "    print(scaler.get_scale())\n")
    ast.parse(result.text)
    rules = [u.rule_id for u in result.unconverted]
    assert "MS-AMP-GRADSCALER" in rules and "scaler.scale(loss).backward()" in result.text


def test_distributed_set_up():
    result = convert_source("import torch\nimport torch.nn as nn\n"
                            "from torch.nn.parallel import DistributedDataParallel as DDP\n"
                            "from torch.distributed import init_process_group, destroy_process_group\n"
                            "model = nn.Linear(2, 2)\nmodel = DDP(model, device_ids=[0])\ndestroy_process_group()\n")
    assert "mindspore.communication.release()" in result.text
    marks = {u.rule_id: u.action for u in result.unconverted}
    assert "set_auto_parallel_context" in marks["MS-DIST-DDP"]


def test_gradient_accumulation_left_marked_with_what_to_do():
    result = convert_source("import torch\nopt = torch.optim.SGD(m.parameters(), lr=0.1)\n"
                            "for it in range(10):\n    for micro in range(4):\n        loss = m(x) / 4\n"
                            "        loss.backward()\n    opt.step()\n    opt.zero_grad()\n")
    ast.parse(result.text)
    marks = [u for u in result.unconverted if u.rule_id == "MS-TRAIN-LOOP"]
    assert [u.line for u in marks] == [6, 7]
    assert all("gradient accumulation" in u.action for u in marks)


@pytest.mark.slow
def test_modern_steps_train_like_pytorch():
    snippets = _snippets()
    verdicts = run_corpus(snippets, timeout=600)
    assert verdicts == {s.name: "" for s in snippets}
