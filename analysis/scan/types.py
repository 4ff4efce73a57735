"""What the scanner records before rules turn it into findings."""
from __future__ import annotations

from dataclasses import dataclass, field

Key = tuple[str, str]

# Value kinds the scanner tracks for names (``tensor`` gets a confidence).
DATASET = "dataset"  # a torchvision dataset object (its attributes, not a tensor's)
TENSOR, MODULE, OPTIMIZER, SCHEDULER, LOADER, DEVICE, GENERATOR, UNKNOWN = (
    "tensor",
    "module",
    "optimizer",
    "scheduler",
    "loader",
    "device",
    "generator",
    "unknown",
)

# The API a method on a value of each kind belongs to.
RECEIVER_API = {
    TENSOR: "torch.Tensor",
    MODULE: "torch.nn.Module",
    OPTIMIZER: "torch.optim.Optimizer",
    SCHEDULER: "torch.optim.lr_scheduler.LRScheduler",
    LOADER: "torch.utils.data.DataLoader",
    GENERATOR: "torch.Generator",
    UNKNOWN: "torch.Tensor",
}

NONLIT = object()  # an argument whose value is not a plain literal


@dataclass
class Use:
    """One PyTorch-related thing seen in the source."""

    kind: str  # "api" | "method" | "event"
    name: str  # qualified API (torch.Tensor.view for methods) or event name
    anchor: tuple[Key, int]  # position key and ordinal (see positions.py)
    node: object = field(repr=False, compare=False, default=None)
    call: bool = False
    args: list = field(default_factory=list)  # literal values or NONLIT
    kwargs: dict = field(default_factory=dict)  # keyword -> literal value or NONLIT
    receiver: str = ""  # value kind of the receiver, for methods
    receiver_method: str = ""  # method that produced the receiver: x.cpu().numpy() -> "cpu"
    confidence: float = 1.0
    in_forward: bool = False
    context: str = ""  # "base" for class bases, "decorator", "with"
    detail: dict = field(default_factory=dict)
