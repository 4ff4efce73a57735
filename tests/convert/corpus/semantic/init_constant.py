# api: torch.nn.init.constant_, torch.nn.init.zeros_, torch.nn.init.ones_, torch.nn.init.uniform_, torch.nn.init.normal_
# compare: w, b, o, lo, hi, mean
# tolerance: 0.05
import numpy as np
import torch
import torch.nn as nn

layer = nn.Linear(3, 4)
nn.init.constant_(layer.weight, 0.25)
nn.init.zeros_(layer.bias)
w = layer.weight.detach().numpy()
b = layer.bias.detach().numpy()
other = nn.Linear(2, 2)
nn.init.ones_(other.weight)
o = other.weight.detach().numpy()
big = nn.Linear(100, 100)
nn.init.uniform_(big.weight, 2.0, 3.0)
lo = bool(big.weight.min() >= 2.0)
hi = bool(big.weight.max() <= 3.0)
nn.init.normal_(big.weight, mean=1.0, std=0.01)
mean = float(big.weight.mean())
