# api: torch.nn.utils.clip_grad_norm_, torch.optim.SGD, torch.nn.MSELoss, torch.Tensor.backward
# compare: losses, weight, bias
# tolerance: 1e-4
import numpy as np
import torch
import torch.nn as nn

model = fill(nn.Linear(4, 2))
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
x = torch.tensor(np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4))
y = torch.tensor(np.linspace(1, 4, 6, dtype=np.float32).reshape(3, 2))
losses = []
for step in range(3):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    # the gradient norm here is well above 0.3, so every step is clipped
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.3)
    optimizer.step()
    losses.append(loss.item())
weight = model.weight.detach().numpy()
bias = model.bias.detach().numpy()
