# api: torch.nn.LayerNorm
# compare: out_last, out_list, out_keyword
import numpy as np
import torch
import torch.nn as nn

features = 6
x = torch.tensor((np.sin(np.arange(2 * 3 * 6) * 0.3) * 4 + 1).astype(np.float32).reshape(2, 3, 6))
out_last = fill(nn.LayerNorm(features))(x)  # PyTorch's eps 1e-5 kept
out_list = fill(nn.LayerNorm([features], eps=1e-3))(x)
out_keyword = fill(nn.LayerNorm(normalized_shape=features))(x * 1e-3)  # tiny variance: eps matters
