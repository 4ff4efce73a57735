# api: torch.nn.Conv2d, torch.nn.Conv1d
# compare: a, b, c, d, e
# tolerance: 1e-4
import numpy as np
import torch
import torch.nn as nn

x = torch.tensor(np.cos(np.arange(2 * 2 * 7 * 6) * 0.3).astype(np.float32).reshape(2, 2, 7, 6))
a = fill(nn.Conv2d(2, 3, 3, padding=1))(x)  # int padding, default bias
b = fill(nn.Conv2d(2, 3, (3, 5), padding=(1, 2), bias=False))(x)  # per-axis padding
c = fill(nn.Conv2d(2, 3, 4, padding="same"))(x)  # even kernel: asymmetric 'same'
d = fill(nn.Conv2d(2, 3, 3, 2))(x)  # padding 0, stride positional
s = torch.tensor(np.sin(np.arange(2 * 2 * 9) * 0.5).astype(np.float32).reshape(2, 2, 9))
e = fill(nn.Conv1d(2, 4, 3, padding=2, dilation=2))(s)
