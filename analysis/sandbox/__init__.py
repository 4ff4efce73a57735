"""Run untrusted Python in a bubblewrap box; see core.py for the whole story.

The parent side (`run_sandboxed`) needs bubblewrap and libseccomp on the host;
the child side (`lockdown`, `child`) imports the standard library only.
"""
from __future__ import annotations

from .core import (
    SandboxLimits,
    SandboxResult,
    child_environment,
    lockdown,
    run_sandboxed,
)
from .support import isolation_problem

__all__ = ["SandboxLimits", "SandboxResult", "child_environment", "isolation_problem", "lockdown", "run_sandboxed"]
