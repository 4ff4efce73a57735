"""A multi-layer perceptron with BatchNorm and Dropout."""
import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self, in_features=20, hidden=64, num_classes=3, dropout=0.2):
        super(MLP, self).__init__()
        self.layers = nn.Sequential(
            nn.Linear(in_features, hidden),
            nn.BatchNorm1d(hidden, momentum=0.1),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(hidden, num_classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)
