# api: torch.nn.functional.pad
# compare: zero, filled, reflect, replicate, circular, reflect_2d
import numpy as np
import torch
import torch.nn.functional as F

x = torch.tensor(np.sin(np.arange(2 * 3 * 4 * 5) * 0.37).astype(np.float32).reshape(2, 3, 4, 5))
s = x[:, :, 0]
zero = F.pad(s, (1, 2))
filled = F.pad(s, (0, 1), mode="constant", value=1.5)
reflect = F.pad(s, (2, 1), mode='reflect')
replicate = F.pad(s, pad=(1, 2), mode='replicate')
circular = F.pad(s, (1, 1), 'circular')
reflect_2d = F.pad(x, (1, 2, 2, 1), mode='reflect')
