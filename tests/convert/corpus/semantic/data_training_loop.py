# api: torch.utils.data.DataLoader, torch.utils.data.Dataset, torch.optim.SGD
# compare: losses
# tolerance: 1e-4
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Points(Dataset):
    def __init__(self):
        self.x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3)
        self.y = np.linspace(0, 1, 8, dtype=np.float32).reshape(8, 1)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


model = fill(nn.Linear(3, 1))
loader = DataLoader(Points(), batch_size=4, shuffle=False)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
losses = []
for epoch in range(2):
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = ((model(xb) - yb) ** 2).mean()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
