# api: torch.meshgrid
# compare: gx, gy, hx, hy
# star parameters on both sides: the tensors stay positional and indexing= follows them
import numpy as np
import torch

a = torch.tensor(np.array([1.0, 2.0, 3.0], dtype=np.float32))
b = torch.tensor(np.array([4.0, 5.0], dtype=np.float32))
gx, gy = torch.meshgrid(a, b, indexing="ij")
hx, hy = torch.meshgrid(a, b, indexing="xy")
