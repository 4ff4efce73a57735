# api: torch.Tensor.relu, torch.Tensor.dist, torch.Tensor.clone, torch.Tensor.fix
# compare: r, chained, d, copy, source, f
# methods MindSpore tensors lack become ops functions; clone stays an independent copy
import numpy as np
import torch

x = torch.tensor(np.linspace(-2.5, 2.5, 12, dtype=np.float32).reshape(3, 4))
y = torch.tensor(np.linspace(0.5, 1.6, 12, dtype=np.float32).reshape(3, 4))
r = x.relu()
chained = (x * 2).relu().sum()
d = x.dist(y)
copy = x.clone()
copy[0, 0] = 9.0
source = x
f = x.fix()
