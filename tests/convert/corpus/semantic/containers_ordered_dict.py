# api: torch.nn.Sequential, torch.nn.Module.add_module, torch.nn.ModuleDict, torch.nn.Linear, torch.nn.Tanh
# compare: out, fc1_weight, extra_out, names
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(OrderedDict([("fc1", nn.Linear(4, 5)), ("act", nn.Tanh())]))
        layers = [nn.Linear(5, 3), nn.ReLU()]
        self.tail = nn.Sequential(*layers)
        self.add_module("extra", nn.Linear(3, 2))
        self.heads = nn.ModuleDict({"proj": nn.Linear(2, 2)})

    def forward(self, x):
        return self.heads["proj"](self.extra(self.tail(self.body(x))))


net = fill(Net())
x = torch.tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
out = net(x)
fc1_weight = net.body.fc1.weight.detach().numpy()  # attribute names survive the conversion
extra_out = net.extra(torch.tensor(np.ones((1, 3), dtype=np.float32)))
names = np.array([len(name) for name, _ in net.named_parameters()])  # parameter names are prefixed alike
