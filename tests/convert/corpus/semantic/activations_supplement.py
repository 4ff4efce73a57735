# api: torch.nn.Softplus, torch.nn.functional.softplus, torch.nn.CELU, torch.nn.SELU, torch.nn.Hardswish, torch.nn.Hardsigmoid
# compare: sp, sp_beta, celu, selu, hsw, hsig
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.tensor(np.linspace(-4.0, 4.0, 12, dtype=np.float32).reshape(3, 4))
sp = nn.Softplus()(x)
sp_beta = F.softplus(x, beta=2, threshold=3)
celu = nn.CELU(alpha=0.5)(x)
selu = nn.SELU(inplace=False)(x)
hsw = nn.Hardswish()(x)
hsig = nn.Hardsigmoid()(x)
