"""Verification by execution: generated PyTorch calls, converted by the project's converter, run
in both frameworks; the verdicts are stored as data in the knowledge base (see verdicts.py). PyTorch's
own OpInfo/ModuleInfo samples (samples.py, bench/opinfo_samples.py) give verdicts per API, call form
and dtype class (sample_verdicts.py)."""
from __future__ import annotations

from .verdicts import Verdict, verdict

__all__ = ["Verdict", "verdict"]
