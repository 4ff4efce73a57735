# api: torch.utils.data.random_split, torch.utils.data.TensorDataset
# compare: sizes
import numpy as np
import torch
from torch.utils.data import TensorDataset, random_split

data = TensorDataset(torch.tensor(np.arange(10, dtype=np.float32)))
train, test = random_split(data, [0.8, 0.2])
sizes = [len(train), len(test)]
