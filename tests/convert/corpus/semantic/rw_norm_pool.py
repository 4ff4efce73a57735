# api: torch.nn.functional.group_norm, torch.nn.functional.max_pool2d, torch.linalg.vector_norm
# compare: gn, gn_plain, mp, mp_padded, mp_ceil, mp_dilated, vn, vn_last, vn_l1, vn_inf
import numpy as np
import torch
import torch.nn.functional as F

x = torch.tensor(np.sin(np.arange(2 * 4 * 5 * 6) * 0.37).astype(np.float32).reshape(2, 4, 5, 6))
g = torch.tensor(np.linspace(0.5, 1.5, 4, dtype=np.float32))
gn = F.group_norm(x, 2, g, g - 1, 1e-5)
gn_plain = F.group_norm(x, num_groups=1, eps=1e-6)
mp = F.max_pool2d(x, 2)
mp_padded = F.max_pool2d(x, 3, 2, 1)
mp_ceil = F.max_pool2d(x, 2, 2, 0, 1, True)  # sixth positional: ceil_mode in PyTorch, return_indices in MindSpore
mp_dilated = F.max_pool2d(x, kernel_size=(1, 2), stride=(1, 2), dilation=1)
vn = torch.linalg.vector_norm(x)
vn_last = torch.linalg.vector_norm(x, 2, -1, True)
vn_l1 = torch.linalg.vector_norm(x, ord=1, dim=(1, 2))
vn_inf = torch.linalg.vector_norm(x, ord=float("inf"), dim=1, keepdim=False)
