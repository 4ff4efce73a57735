# api: torch.utils.data.DataLoader, torch.utils.data.Dataset
# compare: firsts, seconds, batches
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 7

    def __getitem__(self, index):
        return np.array([index], dtype=np.float32), np.array(index * index, dtype=np.int64)


loader = DataLoader(Squares(), batch_size=3, shuffle=False, drop_last=True)
firsts, seconds = [], []
for a, b in loader:
    firsts.append(a.numpy())
    seconds.append(b.numpy())
batches = len(firsts)
