# api: torch.utils.data.TensorDataset
# compare: firsts, seconds, thirds, size
import numpy as np
import torch
from torch.utils.data import TensorDataset

a = torch.tensor(np.linspace(0, 1, 12, dtype=np.float32).reshape(4, 3))
b = torch.tensor(np.arange(4, dtype=np.int64))
c = torch.tensor(np.arange(8, dtype=np.float32).reshape(4, 2, 1))
rows = TensorDataset(a, b, c)
size = len(rows)
firsts, seconds, thirds = [], [], []
for x, y, z in rows:
    firsts.append(x.numpy())
    seconds.append(y.numpy())
    thirds.append(z.numpy())
