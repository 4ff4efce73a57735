# api: torch.nn.functional.normalize
# compare: rows, cols, zero_row, loose
# F.normalize becomes the L2Normalize primitive (built with axis/epsilon, then called); eps squared
import numpy as np
import torch
import torch.nn.functional as F

x = torch.tensor(np.linspace(-0.9, 0.9, 12, dtype=np.float32).reshape(3, 4))
rows = F.normalize(x)
cols = F.normalize(x, dim=0)
zero_row = F.normalize(torch.tensor(np.array([[0.0, 0.0], [3.0, 4.0]], dtype=np.float32)), 2, 1)
loose = F.normalize(x * 1e-7, p=2.0, dim=1, eps=1e-6) * 1e6  # norms below eps: eps decides
