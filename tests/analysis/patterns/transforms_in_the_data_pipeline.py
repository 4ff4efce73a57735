import torch
from torch.utils.data import Dataset
from torchvision import transforms

augment = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])  # 1 expect: MS-API-MAPPED=torchvision.transforms.Compose, MS-API-MAPPED=torchvision.transforms.ToTensor, MS-API-MAPPED=torchvision.transforms.Normalize | has ds.transforms.Compose


class Pairs(Dataset):
    def __init__(self, items):
        self.items = items
        self.transform = transforms.Compose([transforms.ToTensor()])  # 2 expect: MS-API-MAPPED=torchvision.transforms.Compose, MS-API-MAPPED=torchvision.transforms.ToTensor | has ds.transforms.Compose

    def __len__(self):
        return len(self.items)
