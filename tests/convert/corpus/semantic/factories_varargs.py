# api: torch.ones, torch.zeros, torch.randn, torch.rand
# compare: a, b, c, d, shapes
# sizes given one by one are packed into the one shape MindSpore takes; randn/rand take them as PyTorch does
import numpy as np
import torch

a = torch.ones(2, 3)
b = torch.zeros(2, 3, dtype=torch.int64)
c = torch.ones((3,), dtype=torch.float32) * 2
d = torch.zeros(4)
shapes = [np.array(torch.randn(2, 3).shape), np.array(torch.rand(3, 1, 2).shape)]
