# api: torch.jit.ignore, torch.jit.unused, torch.jit.export
# compare: out, scale
import numpy as np
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    @torch.jit.ignore(drop=False)
    def scale(self):
        return 2.0

    @torch.jit.unused
    def unused_path(self, x):
        return x

    @torch.jit.export
    def forward(self, x):
        return self.fc(x) * self.scale()


net = fill(Net())
x = torch.tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
out = net(x).detach().numpy()
scale = net.scale()
