# api: torch.nn.MaxPool2d, torch.nn.AvgPool2d, torch.nn.MaxPool1d, torch.nn.AvgPool1d
# compare: a, b, c, d
import numpy as np
import torch
import torch.nn as nn

x = torch.tensor(np.sin(np.arange(2 * 3 * 8 * 8) * 0.7).astype(np.float32).reshape(2, 3, 8, 8))
a = nn.MaxPool2d(2)(x)  # stride defaults to the kernel in PyTorch
b = nn.AvgPool2d(3, stride=2, padding=1)(x)
s = x.reshape(2, 3, 64)
c = nn.MaxPool1d(4)(s)
d = nn.AvgPool1d(2, stride=2)(s)
