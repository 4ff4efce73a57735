# api: torch.nn.Linear, torch.nn.Sequential, torch.nn.ModuleList, torch.nn.ModuleDict, torch.nn.ReLU, torch.nn.Module
# compare: a, b, c
import numpy as np
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 3, bias=False))
        self.heads = nn.ModuleList([nn.Linear(3, 2), nn.Linear(3, 1)])
        self.named = nn.ModuleDict({"tanh": nn.Tanh()})

    def forward(self, x):
        h = self.named["tanh"](self.body(x))
        return self.heads[0](h), self.heads[1](h)


net = fill(Net())
x = torch.tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
a, b = net(x)
c = fill(nn.Linear(4, 6))(x)
