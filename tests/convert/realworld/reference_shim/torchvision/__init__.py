"""Test fixture for the PyTorch REFERENCE side only (tests/convert/test_training_realworld.py).

torchvision does not import beside the pinned torch here, so the original scripts run against this
minimal stand-in: the MNIST reader (same files, same item types as torchvision's: a PIL-like image
turned into a tensor by the transforms) and the transforms these scripts use. It is never on the path of
converted code, which must not need torchvision."""
from . import datasets, transforms, utils  # noqa: F401
