from .lenet import LeNet
from .mlp import MLP

__all__ = ["LeNet", "MLP"]
