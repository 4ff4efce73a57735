"""A file that builds or calls a convolution caps oneDNN's instructions at AVX2 where it loads, on CPU
(support/helper_cpu_kernels.py: with AVX-512, MindSpore 2.10's CPU convolutions run oneDNN's reference
code, 20-60x slower than its GEMM kernel; the values are the same)."""
from __future__ import annotations

from ..core.context import ConversionContext
from ..support import helpers

CONVOLUTIONS = frozenset(
    [f"torch.nn.{kind}{d}d" for kind in ("Conv", "ConvTranspose", "LazyConv", "LazyConvTranspose") for d in (1, 2, 3)]
    + [f"{space}.{kind}{d}d" for space in ("torch.nn.functional", "torch") for kind in ("conv", "conv_transpose")
       for d in (1, 2, 3)])


def note(ctx: ConversionContext, qualified: str) -> None:
    """Record the load-time helper when the converted call `qualified` is a convolution."""
    if qualified in CONVOLUTIONS:
        helpers.use(ctx, "gemm_cpu_convolutions")
