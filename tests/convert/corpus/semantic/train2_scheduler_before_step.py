# api: torch.optim.SGD, torch.optim.lr_scheduler.StepLR
# compare: losses, weight
# tolerance: 1e-5
# scheduler.step() between backward() and optimizer.step(): the optimizer is still the one stepped
import numpy as np
import torch
import torch.nn as nn

model = fill(nn.Linear(3, 2))
x = torch.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
y = torch.tensor(np.linspace(0, 1, 8, dtype=np.float32).reshape(4, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
losses = []
for step in range(6):
    optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    scheduler.step()
    optimizer.step()
    losses.append(loss.item())
weight = model.weight
