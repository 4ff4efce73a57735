# api: torch.utils.data.TensorDataset, torch.utils.data.DataLoader
# compare: seen, pairs_match, batches
# shuffled order differs by RNG: compare what an epoch holds, that rows stay paired, and the batch count
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

features = torch.tensor(np.arange(30, dtype=np.float32).reshape(10, 3))
labels = torch.tensor(np.arange(10, dtype=np.int64))
dataset = TensorDataset(features, labels)
loader = DataLoader(dataset, batch_size=3, shuffle=True, drop_last=True)
seen, pairs_match, batches = [], True, 0
for a, b in loader:
    batches += 1
    seen += b.numpy().tolist()
    pairs_match = pairs_match and bool((a.numpy()[:, 0] == b.numpy() * 3).all())
seen = len(set(seen))
