import torch.nn as nn
from torchvision import transforms


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = transforms.Normalize(mean=[0.5, 0.5, 0.5], std=[0.2, 0.2, 0.2])  # 1 expect: MS-TRANSFORM-IN-MODEL=torchvision.transforms.Normalize@manual | marked
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        x = transforms.functional.hflip(x)  # 2 expect: MS-TRANSFORM-IN-MODEL=torchvision.transforms.functional.hflip@manual | marked
        return self.conv(self.norm(x))
