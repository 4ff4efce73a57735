import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)

    def forward(self, x):
        return self.fc(x)

    def snapshot(self):
        return self.state_dict()  # 1 expect: MS-CHECKPOINT=torch.nn.Module.state_dict | has state_dict_of(self)
