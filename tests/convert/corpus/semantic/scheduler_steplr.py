# api: torch.optim.lr_scheduler.StepLR
# compare: losses
# tolerance: 1e-4
import numpy as np
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR

model = fill(nn.Linear(2, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
scheduler = StepLR(optimizer, step_size=2, gamma=0.5)
x = torch.tensor(np.array([[1.0, 2.0], [0.5, -1.0]], dtype=np.float32))
y = torch.tensor(np.array([[1.0], [0.0]], dtype=np.float32))
losses = []
for step in range(5):
    optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    scheduler.step()
    losses.append(loss.item())
