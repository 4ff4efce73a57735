# api: torch.nn.Parameter, torch.compile
# compare: first, losses, scale, shift
# a cell holding a trained Parameter and a frozen one, both built from converted tensors; torch.compile only
# changes speed, so the converted code calls the cell itself
import numpy as np
import torch
import torch.nn as nn


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor(np.linspace(0.5, 1.5, 4, dtype=np.float32)))
        self.shift = nn.Parameter(torch.zeros(4) + 0.25, requires_grad=False)

    def forward(self, x):
        return x * self.scale + self.shift


model = Scale()
fast = torch.compile(model, backend="eager")
x = torch.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
y = torch.tensor(np.linspace(0, 2, 12, dtype=np.float32).reshape(3, 4))
first = fast(x).detach().numpy()
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
losses = []
for step in range(4):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
scale = model.scale.detach().numpy()
shift = model.shift.detach().numpy()
