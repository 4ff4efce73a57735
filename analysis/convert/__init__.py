"""PyTorch -> MindSpore conversion with libcst codemods (formatting and comments kept).

Public entry points: convert_source (one file's text) and convert_tree (a directory).
"""
from __future__ import annotations

from .engine import convert_source
from .result import Change, ConversionResult, LayerRecord, TreeConversion, Unconverted
from .tree import convert_tree

__all__ = [
    "Change",
    "ConversionResult",
    "LayerRecord",
    "TreeConversion",
    "Unconverted",
    "convert_source",
    "convert_tree",
]
