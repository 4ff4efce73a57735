import torch
import torch.nn as nn

x = torch.ones(2, requires_grad=True)
y = (x * 3).sum()
y.backward()  # 1 expect: MS-TRAIN-LOOP@manual | marked

net = nn.Linear(2, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
loss = net(torch.ones(4, 2)).sum()
opt.zero_grad()
loss.backward()  # the train-mode finding stands here, on the step
opt.step()
