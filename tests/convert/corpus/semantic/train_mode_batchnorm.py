# api: torch.nn.BatchNorm1d, torch.nn.Sequential, torch.optim.SGD, torch.nn.CrossEntropyLoss
# compare: losses, out
# tolerance: 1e-4
# No model.train() call: PyTorch trains in training mode by default (batch statistics in
# BatchNorm); the conversion must switch the cell to training mode itself.
import numpy as np
import torch
import torch.nn as nn

model = fill(nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 3)))
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
x = torch.tensor(np.cos(np.arange(20) * 0.7).astype(np.float32).reshape(5, 4) * 2 + 1)
y = torch.tensor(np.array([0, 2, 1, 1, 0]))
losses = []
for step in range(3):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
model.eval()
out = model(x)
