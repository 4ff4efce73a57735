# api: torch.no_grad, torch.device, torch.cuda.is_available
# compare: out
import numpy as np
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
layer = fill(nn.Linear(3, 2)).to(device)
x = torch.tensor(np.linspace(0, 1, 6, dtype=np.float32).reshape(2, 3)).to(device)
with torch.no_grad():
    out = layer(x).cpu().numpy()
