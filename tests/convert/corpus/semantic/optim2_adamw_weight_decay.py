# api: torch.optim.AdamW
# compare: losses, weight, bias
# tolerance: 1e-5
import numpy as np
import torch
import torch.nn as nn

model = fill(nn.Linear(3, 2))
x = torch.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
y = torch.tensor(np.linspace(0, 1, 8, dtype=np.float32).reshape(4, 2))
optimizer = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.1, eps=1e-6)
losses = []
for step in range(5):
    optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
weight, bias = model.weight, model.bias
