# api: torch.nn.utils.clip_grad_value_, torch.optim.Adam, torch.nn.MSELoss
# compare: losses, weight
# tolerance: 1e-4
import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils import clip_grad_value_

model = fill(nn.Linear(3, 3))
loss_fn = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
x = torch.tensor(np.linspace(-3, 3, 6, dtype=np.float32).reshape(2, 3))
y = torch.tensor(np.linspace(0, 5, 6, dtype=np.float32).reshape(2, 3))
limit = 0.2
losses = []
for step in range(3):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    clip_grad_value_(model.parameters(), limit)
    optimizer.step()
    losses.append(loss.item())
weight = model.weight.detach().numpy()
