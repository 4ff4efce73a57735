# api: torch.device
# compare: y, out
# a device variable read only by device moves goes with them, whatever its name
import numpy as np
import torch
import torch.nn as nn

d = torch.device("cpu")
layer = fill(nn.Linear(3, 2)).to(d)
x = torch.tensor(np.linspace(0, 1, 6, dtype=np.float32).reshape(2, 3)).to(d)
y = (x * 2).to(d).numpy()
out = layer(x).detach().numpy()
