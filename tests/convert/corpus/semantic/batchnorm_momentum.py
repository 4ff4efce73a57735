# api: torch.nn.BatchNorm2d, torch.nn.BatchNorm1d, torch.nn.Module.train, torch.nn.Module.eval
# compare: train_out, eval_out, eval1d
import numpy as np
import torch
import torch.nn as nn

bn = fill(nn.BatchNorm2d(3, momentum=0.3, eps=1e-3))
x1 = torch.tensor(np.sin(np.arange(2 * 3 * 4 * 4) * 0.1).astype(np.float32).reshape(2, 3, 4, 4))
x2 = torch.tensor(np.cos(np.arange(2 * 3 * 4 * 4) * 0.2).astype(np.float32).reshape(2, 3, 4, 4) * 3 + 1)
bn.train()
train_out = bn(x1)
bn(x2)
bn.eval()
eval_out = bn(x1)  # uses running statistics: shows the momentum convention
bn1 = fill(nn.BatchNorm1d(4))
bn1.train()
bn1(torch.tensor(np.linspace(-2, 5, 20, dtype=np.float32).reshape(5, 4)))
bn1.eval()
eval1d = bn1(torch.tensor(np.linspace(0, 1, 8, dtype=np.float32).reshape(2, 4)))
