# api: torch.utils.data.Dataset, torch.utils.data.DataLoader
# compare: sizes
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Ramp(Dataset):
    def __len__(self):
        return 7

    def __getitem__(self, i):
        return np.full((2,), i, dtype=np.float32), np.array(i, dtype=np.int64)


sizes = []
for inputs, targets in DataLoader(Ramp(), batch_size=3):
    sizes.append(inputs.shape[0])
