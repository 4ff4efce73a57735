# api: torch.utils.data.random_split, torch.utils.data.TensorDataset
# compare: sizes
# why it fails today: TensorDataset and random_split have no mapped counterpart
import numpy as np
import torch
from torch.utils.data import TensorDataset, random_split

data = TensorDataset(torch.tensor(np.arange(10, dtype=np.float32)))
train, test = random_split(data, [8, 2])
sizes = [len(train), len(test)]
