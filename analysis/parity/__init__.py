"""Numerical parity between a PyTorch module and its converted MindSpore cell.

Public entry: `check_parity(original_dir, converted_dir=None, *, device, manifest,
timeout_s, memory_mb, loss_steps) -> dict`. User code only ever runs in a
sandboxed child (analysis.sandbox); this package's parent side imports neither
torch nor MindSpore.
"""
from __future__ import annotations

from .engine import check_parity, check_parity_many

__all__ = ["check_parity", "check_parity_many"]
