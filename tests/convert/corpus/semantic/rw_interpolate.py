# api: torch.nn.functional.interpolate
# compare: nearest, default_mode, bilinear, bilinear_corners, area, linear
# modes whose MindSpore kernel computes as PyTorch's, output given by size= (scale_factor is refused)
import numpy as np
import torch
import torch.nn.functional as F

x = torch.tensor(np.sin(np.arange(2 * 4 * 5 * 6) * 0.37).astype(np.float32).reshape(2, 4, 5, 6))
nearest = F.interpolate(x, size=(7, 9), mode='nearest')
default_mode = F.interpolate(x, size=(10, 12))
bilinear = F.interpolate(x, size=(7, 9), mode="bilinear", align_corners=False, antialias=False)
bilinear_corners = F.interpolate(x, (3, 4), None, 'bilinear', True)
area = F.interpolate(x, size=(3, 4), mode='area')
linear = F.interpolate(x[:, :, 0], size=9, mode='linear', align_corners=True)
