import numpy as np
import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("mask", torch.ones(dim))  # 1 expect: MS-API-MAPPED=torch.ones | has ops.ones(dim)

    def forward(self, x):
        scale = 1.0 / np.sqrt(64.0)  # 2 expect: none | same
        return self.proj(x) * scale * self.mask
