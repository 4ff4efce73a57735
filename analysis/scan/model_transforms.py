"""torchvision transforms used as part of a network (issue 27): the scanner reports them and the converter
marks them, from the same test.

A torchvision transform on tensors (Normalize, Resize...) can sit in a model: in nn.Sequential, held by
an nn.Module, called in forward. Its MindSpore counterparts (mindspore.dataset.vision) are dataset
operations: they run in the data pipeline on NumPy images (HWC by default), not as a Cell, so an
nn.SequentialCell refuses them and nothing in them is differentiated. The use needs a person: move it to
the data pipeline or write it with ops in the cell."""
from __future__ import annotations

# the containers whose arguments are layers of a network
LAYER_CONTAINERS = frozenset({"torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict"})

ACTION = ("a torchvision transform used as part of a network: MindSpore's counterparts (mindspore.dataset.vision) "
          "run in the dataset pipeline on NumPy images (HWC), not inside a Cell, and no gradient flows through them; "
          "apply it with dataset.map(operations=[...], input_columns='image'), or write it with ops in the cell "
          "(Normalize: (x - mean) / std, with mean and std as tensors of shape (C, 1, 1))")


def is_transform(qualified: str | None) -> bool:
    return qualified is not None and qualified.startswith("torchvision.transforms.")


def may_import_transforms(aliases: dict[str, str]) -> bool:
    """Whether a file's imports can reach torchvision.transforms (else no call needs the test)."""
    return any(v == "torchvision" or v.startswith("torchvision.transforms") for v in aliases.values())
