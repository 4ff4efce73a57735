# api: torch.optim.lr_scheduler.MultiStepLR
# compare: losses
# tolerance: 1e-4
import numpy as np
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import MultiStepLR

model = fill(nn.Linear(3, 2))
x = torch.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
y = torch.tensor(np.linspace(0, 1, 8, dtype=np.float32).reshape(4, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
scheduler = MultiStepLR(optimizer, milestones=[2, 4], gamma=0.5)
losses = []
for step in range(6):
    optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    scheduler.step()
    losses.append(loss.item())
