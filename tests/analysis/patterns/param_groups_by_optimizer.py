import torch
import torch.nn as nn

net = nn.Linear(2, 2)
sgd = torch.optim.SGD(net.parameters(), lr=0.1)
for group in sgd.param_groups:  # 1 expect: MS-OPTIM-RUNTIME-CHANGE | same
    group["lr"] = 0.01
