# api: torch.utils.data.TensorDataset, torch.utils.data.DataLoader
# compare: xs, ys, batches
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

features = torch.tensor(np.arange(20, dtype=np.float32).reshape(10, 2))
labels = torch.tensor(np.arange(10, dtype=np.int64))
loader = DataLoader(TensorDataset(features * 2, labels), batch_size=4, shuffle=False)
xs, ys = [], []
for epoch in range(2):
    for a, b in loader:
        xs.append(a.numpy())
        ys.append(b.numpy())
batches = len(xs)
