# api: torch.optim.Adam, torch.nn.CrossEntropyLoss
# compare: losses
# tolerance: 1e-4
import numpy as np
import torch
import torch.nn as nn

model = fill(nn.Linear(4, 3))
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.05, betas=(0.9, 0.99))
x = torch.tensor(np.linspace(-1, 1, 20, dtype=np.float32).reshape(5, 4))
y = torch.tensor(np.array([0, 1, 2, 1, 0]))
losses = []
for step in range(3):
    optimizer.zero_grad()
    logits = model(x)
    loss = loss_fn(logits, y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
