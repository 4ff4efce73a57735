# api: torch.nn.ConvTranspose2d
# compare: a, b, c, d
# MindSpore's pad_mode defaults to 'same', which changes the output size: the conversion writes pad_mode='pad'
import numpy as np
import torch
import torch.nn as nn

x = torch.tensor(np.sin(np.arange(2 * 4 * 5 * 5) * 0.37).astype(np.float32).reshape(2, 4, 5, 5))
a = fill(nn.ConvTranspose2d(4, 6, kernel_size=3, stride=2, padding=1))(x)
b = fill(nn.ConvTranspose2d(4, 6, 2, 2))(x)
c = fill(nn.ConvTranspose2d(4, 6, 4, stride=2, padding=1, bias=False))(x)
d = fill(nn.ConvTranspose2d(4, 6, 3, 2, 1, groups=2, output_padding=0))(x)
