import torch
import torch.nn as nn

net = nn.Linear(2, 2)
adamw = torch.optim.AdamW(net.parameters(), lr=0.1)
for group in adamw.param_groups:  # 1 expect: none | same
    group["lr"] = 0.01
