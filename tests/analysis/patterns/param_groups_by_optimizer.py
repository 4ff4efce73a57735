import torch
import torch.nn as nn

net = nn.Linear(2, 2)
sgd = torch.optim.SGD(net.parameters(), lr=0.1)  # 1 expect: MS-API-MAPPED=torch.optim.SGD@converted, MS-OPTIM-PARAMS, MS-CELL-API | has optim.SGD(net.trainable_params(), lr=0.1)
for group in sgd.param_groups:  # 2 expect: none | same
    group["lr"] = 0.01
