# api: torch.utils.data.random_split, torch.utils.data.TensorDataset, torch.utils.data.DataLoader
# compare: sizes, together, disjoint, batches
# which rows land in which part differs by RNG: compare sizes, that the parts cover the data once, batch counts
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset, random_split

data = TensorDataset(torch.tensor(np.arange(20, dtype=np.float32).reshape(10, 2)),
                     torch.tensor(np.arange(10, dtype=np.int64)))
train, test = random_split(data, [7, 3])
sizes = [len(train), len(test)]
train_loader = DataLoader(train, batch_size=2, shuffle=True)
test_loader = DataLoader(test, batch_size=2)
parts = []
batches = []
for loader in (train_loader, test_loader):
    labels = []
    for x, y in loader:
        labels += y.numpy().tolist()
    batches.append(len(labels))
    parts.append(labels)
together = sorted(parts[0] + parts[1])
disjoint = not set(parts[0]) & set(parts[1])
