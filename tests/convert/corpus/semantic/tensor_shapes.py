# api: torch.Tensor.size, torch.Tensor.view, torch.Tensor.reshape, torch.Tensor.permute, torch.Tensor.transpose, torch.Tensor.numpy, torch.Tensor.detach, torch.Tensor.cpu, torch.Tensor.to
# compare: n, shape, flat, perm, swapped, arr, cast
import numpy as np
import torch

x = torch.tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
n = x.size(1)
shape = list(x.size())
flat = x.view(x.size(0), -1)
perm = x.permute(2, 0, 1).reshape(4, 6)
swapped = x.transpose(0, 2)
arr = swapped.detach().cpu().numpy()
cast = x.to(torch.int32)
