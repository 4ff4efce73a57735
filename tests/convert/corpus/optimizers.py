"""Optimizer and learning-rate scheduler snippets generated from one table: each row is
the same small regression (a filled nn.Linear(3, 2), squared error, zero_grad/backward/step)
with its own optimizer line and, optionally, a scheduler stepped after the optimizer.

Loops that differ in shape (scheduler stepped before the optimizer, gradient clipping,
other models or losses) stay hand-written files in semantic/.
"""
from __future__ import annotations

from typing import NamedTuple

# The names keep the semantic/ prefix: the framework test requires every semantic/ snippet to pass.
PREFIX = "semantic/optimizers:"
# Compare the trained parameters too, with a tighter tolerance, after one more step.
WEIGHTS = {"steps": 5, "compare": "losses, weight, bias", "tolerance": "1e-5"}
# Schedulers need a few steps past their milestones to show the learning rate changing.
SCHEDULED = {"optimizer": "torch.optim.SGD(model.parameters(), lr=0.2)", "steps": 6}


class Case(NamedTuple):
    name: str
    optimizer: str  # the call, with model.parameters() as its first argument
    scheduler: str = ""  # a torch.optim.lr_scheduler class called on the optimizer, or none
    steps: int = 4
    compare: str = "losses"
    tolerance: str = "1e-4"


CASES = [
    Case("adam_defaults", "torch.optim.Adam(model.parameters(), lr=0.01)"),
    Case("adam_weight_decay", "torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=0.1)"),
    Case("rmsprop", "torch.optim.RMSprop(model.parameters(), lr=0.01)"),
    Case("sgd_momentum", "torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)"),
    Case("sgd_nesterov", "torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)"),
    Case("sgd_weight_decay", "torch.optim.SGD(model.parameters(), lr=0.1, weight_decay=0.01)"),
    Case("cosineannealinglr", scheduler="CosineAnnealingLR(optimizer, T_max=4)", **SCHEDULED),
    Case("exponentiallr", scheduler="ExponentialLR(optimizer, gamma=0.7)", **SCHEDULED),
    Case("multisteplr", scheduler="MultiStepLR(optimizer, milestones=[2, 4], gamma=0.5)", **SCHEDULED),
    Case("steplr_positional", scheduler="StepLR(optimizer, 3)", **SCHEDULED),
    Case("adadelta", "torch.optim.Adadelta(model.parameters(), lr=1.0, rho=0.5, eps=1e-3, weight_decay=0.1)",
         **WEIGHTS),
    Case("adagrad", "torch.optim.Adagrad(model.parameters(), lr=0.1)", **WEIGHTS),
    Case("adagrad_options", "torch.optim.Adagrad(model.parameters(), lr=0.1, lr_decay=0.1, weight_decay=0.1, "
         "initial_accumulator_value=0.2, eps=1e-6)", **WEIGHTS),
    Case("adam_amsgrad", "torch.optim.Adam(model.parameters(), lr=0.01, betas=(0.8, 0.95), weight_decay=0.1, "
         "amsgrad=True)", **WEIGHTS),
    Case("adamax", "torch.optim.Adamax(model.parameters(), lr=0.01, weight_decay=0.1)", **WEIGHTS),
    Case("adamw_defaults", "torch.optim.AdamW(model.parameters())", **WEIGHTS),
    Case("adamw_options", "torch.optim.AdamW(model.parameters(), lr=0.01, betas=(0.8, 0.95), eps=1e-6, "
         "weight_decay=0.1, amsgrad=True)", **WEIGHTS),
    Case("adamw_weight_decay", "torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.1, eps=1e-6)",
         **WEIGHTS),
    Case("asgd", "torch.optim.ASGD(model.parameters(), weight_decay=0.1)", **WEIGHTS),
    Case("nadam", "torch.optim.NAdam(model.parameters(), lr=0.01, weight_decay=0.1)", **WEIGHTS),
    Case("radam", "torch.optim.RAdam(model.parameters(), lr=0.01, weight_decay=0.1)", **WEIGHTS),
    Case("rmsprop_centered", "torch.optim.RMSprop(model.parameters(), lr=0.01, momentum=0.5, centered=True, "
         "weight_decay=0.1)", **WEIGHTS),
    Case("rprop", "torch.optim.Rprop(model.parameters())", **WEIGHTS),
    Case("sgd_dampening", "torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, dampening=0.1, "
         "weight_decay=0.01)", **WEIGHTS),
]


def _callee(call: str) -> str:
    return call.partition("(")[0]


def snippet(case: Case) -> str:
    scheduler = _callee(case.scheduler)
    # a scheduled row covers its scheduler; the SGD under it is covered by the rows above
    api = f"torch.optim.lr_scheduler.{scheduler}" if scheduler else _callee(case.optimizer)
    lines = [f"# api: {api}", f"# compare: {case.compare}", f"# tolerance: {case.tolerance}",
             "import numpy as np", "import torch", "import torch.nn as nn"]
    if scheduler:
        lines.append(f"from torch.optim.lr_scheduler import {scheduler}")
    lines += ["", "model = fill(nn.Linear(3, 2))",
              "x = torch.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))",
              "y = torch.tensor(np.linspace(0, 1, 8, dtype=np.float32).reshape(4, 2))",
              f"optimizer = {case.optimizer}"]
    if scheduler:
        lines.append(f"scheduler = {case.scheduler}")
    lines += ["losses = []", f"for step in range({case.steps}):", "    optimizer.zero_grad()",
              "    loss = ((model(x) - y) ** 2).mean()", "    loss.backward()", "    optimizer.step()"]
    if scheduler:
        lines.append("    scheduler.step()")
    lines.append("    losses.append(loss.item())")
    if "weight" in case.compare:
        lines.append("weight, bias = model.weight, model.bias")
    return "\n".join(lines) + "\n"


def generate() -> list[tuple[str, str]]:
    return [(PREFIX + case.name, snippet(case)) for case in CASES]
