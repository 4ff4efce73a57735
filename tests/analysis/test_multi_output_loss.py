"""A loss unpacked from several outputs: the converted step differentiates the loss alone, so the
finding is converted (info), and the converted forward passes the other values as has_aux."""
from __future__ import annotations

from analysis.convert import convert_source
from analysis.scan import analyze_source

SOURCE = """
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)

    def forward(self, x, y):
        out = self.fc(x)
        return out, ((out - y) ** 2).mean()


net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x, y = torch.ones(4, 2), torch.zeros(4, 1)
for _ in range(2):
    out, loss = net(x, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_multi_output_loss_is_converted_by_the_step():
    found = [f for f in analyze_source(SOURCE, "m.py", ms_version="2.10").findings if f.rule_id == "MS-MULTI-OUTPUT-LOSS"]
    assert [(f.line, f.status.value, f.severity.value) for f in found] == [(22, "converted", "info")]  # loss.backward()
    assert "has_aux=True" in convert_source(SOURCE, ms_version="2.10").text
