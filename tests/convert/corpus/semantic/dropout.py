# api: torch.nn.Dropout, torch.nn.functional.dropout
# compare: kept, zeros, scaled, fzeros
# tolerance: 0.02
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.tensor(np.ones((200, 100), dtype=np.float32))
drop = nn.Dropout(0.3)
drop.eval()
kept = drop(x)  # identity outside training
drop.train()
y = drop(x)
zeros = float((y == 0).float().mean())  # close to p
scaled = float(y.sum() / x.sum())  # survivors scaled by 1/(1-p): mean stays 1
fzeros = float((F.dropout(x, p=0.6, training=True) == 0).float().mean())
