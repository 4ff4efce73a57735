# api: torch.save, torch.load, torch.nn.Module.state_dict, torch.nn.Module.load_state_dict
# compare: before, after
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn

src = fill(nn.Linear(3, 2))
dst = nn.Linear(3, 2)
path = os.path.join(tempfile.mkdtemp(), "weights.ckpt")
torch.save(src.state_dict(), path)
dst.load_state_dict(torch.load(path))
x = torch.tensor(np.linspace(0, 1, 6, dtype=np.float32).reshape(2, 3))
before = src(x)
after = dst(x)
