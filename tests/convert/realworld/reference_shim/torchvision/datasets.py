"""torchvision.datasets.MNIST over root/MNIST/raw idx files (no download)."""
from __future__ import annotations

import os
import struct

import numpy as np
import torch


def _read(path: str) -> np.ndarray:
    with open(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    shape = struct.unpack(f">{ndim}I", data[4:4 + 4 * ndim])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(shape)


class MNIST(torch.utils.data.Dataset):
    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        raw = os.path.join(root, type(self).__name__, "raw")
        prefix = "train" if train else "t10k"
        self.data = _read(os.path.join(raw, f"{prefix}-images-idx3-ubyte"))
        self.targets = torch.from_numpy(_read(os.path.join(raw, f"{prefix}-labels-idx1-ubyte")).astype(np.int64))
        self.transform, self.target_transform = transform, target_transform

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        image, target = self.data[index], int(self.targets[index])
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return image, target
