# api: torch.optim.SGD, torch.nn.MSELoss, torch.Tensor.backward, torch.optim.Optimizer.zero_grad, torch.optim.Optimizer.step, torch.nn.Module.parameters, torch.Tensor.item
# compare: losses, weight
# tolerance: 1e-4
import numpy as np
import torch
import torch.nn as nn

model = fill(nn.Linear(4, 2))
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
y = torch.tensor(np.linspace(0, 1, 6, dtype=np.float32).reshape(3, 2))
losses = []
for step in range(4):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
weight = model.weight.detach().numpy()
