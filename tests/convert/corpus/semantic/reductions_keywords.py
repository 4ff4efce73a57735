# api: torch.std, torch.var, torch.mean, torch.cumsum, torch.nansum, torch.count_nonzero, torch.logsumexp
# compare: s_default, s_biased, s_positional, v_keep, v_correction, m, c, n, z, l
# PyTorch's unbiased default (ddof=1) is written out; dim/keepdim become MindSpore's keyword names
import numpy as np
import torch

x = torch.tensor(np.linspace(0.1, 2.0, 12, dtype=np.float32).reshape(3, 4))
s_default = torch.std(x, dim=1)
s_biased = torch.std(x, dim=1, unbiased=False)
s_positional = torch.std(x, 0, True, True)
v_keep = torch.var(x, dim=1, keepdim=True)
v_correction = torch.var(x, dim=0, correction=0)
m = torch.mean(x, dim=0, keepdim=True)
c = torch.cumsum(x, dim=0, dtype=torch.float64)
n = torch.nansum(x, dim=1, keepdim=True)
z = torch.count_nonzero(x - 0.1, dim=1)
l = torch.logsumexp(x, dim=1, keepdim=True)
