"""PyTorch -> MindSpore conversion with libcst codemods (formatting and comments kept).

Public entry points: convert_source (one file's text) and convert_tree (a directory).

The package root holds the one pass and what composes the concerns (engine, transformer, the call
dispatch in calls, statement-level rewrites in statements, outline's fast paths) and the tree and
notebook entry points; each sub-package owns one concern and imports only those before it in
core < support < apis < training < data < modules < tensors (tests/analysis/test_import_graph.py).
"""
from __future__ import annotations

from .core.result import Change, ConversionResult, LayerRecord, TreeConversion, Unconverted
from .engine import convert_source
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
