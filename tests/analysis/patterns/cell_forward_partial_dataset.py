import functools

import torch
import torch.nn as nn
import torchvision


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


net = Net()
x = torch.ones(1, 4)
y = net.forward(x)  # 1 expect: MS-CELL-FORWARD-CALL@converted | has net.construct(x)
make = functools.partial(torch.arange, device="cpu")  # 2 expect: MS-PARTIAL-DEVICE@converted, MS-API-MAPPED=torch.arange@converted | has functools.partial(ops.arange)
train_data = torchvision.datasets.MNIST(root="data", train=True, download=True)
images = train_data.train_data  # 3 expect: MS-DATASET-ATTR@manual | marked
