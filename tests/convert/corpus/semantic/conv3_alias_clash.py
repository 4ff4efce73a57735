# api: torch.utils.data.DataLoader, torch.relu
# compare: firsts, seconds, activated
# the file's own `ds` and `ops` stay theirs: the MindSpore modules are imported under other names
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, index):
        return np.array([index], dtype=np.float32), np.array(index * index, dtype=np.int64)


ops = [np.float32(-1.5), np.float32(2.0)]
ds = Squares()
loader = DataLoader(ds, batch_size=4, shuffle=False)
firsts, seconds = [], []
for a, b in loader:
    firsts.append(a.numpy())
    seconds.append(b.numpy())
activated = torch.relu(torch.tensor(np.array(ops))).numpy()
