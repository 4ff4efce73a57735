"""python -m analysis.verify.kernel_accuracy [--workers 2]: write knowledge/data/kernel_accuracy.json, the
accuracy half of the converter's kernel dtype bridge (analysis/convert/apis/kernel_dtypes.py).

Some of MindSpore's CPU float kernels run but are far less accurate than PyTorch's: its float32 tanh is 1e-4
off near |x| = 5 (and gives 1.0000098 there, above 1), its log1p and expm1 compute log(1 + x) and exp(x) - 1,
so log1p(1e-7) comes out 19 % high. The verification tolerance (rtol 1e-4 in float32) lets the first pass and
hides the second behind atol. Such a kernel is bridged like a refused dtype: the converted call computes in
float64, whose kernels are accurate (float16: in float32, as PyTorch's own float16 CPU kernels do), and casts
back. log1p and expm1 stay wrong for tiny x even in float64: they convert to support/helper_precise.py's
corrected forms, which this probe measures like any other conversion.

How: each candidate, converted from `torch.NAME(t0)` with no bridge, runs in MindSpore over a dense grid of its
domain plus tiny magnitudes of both signs (where expm1/log1p/tanh must keep relative precision), in float32 and
float16; PyTorch runs the same call; both are compared with PyTorch's float64 result. Error = the largest
relative error over the points whose float64 result is at least FLOOR[dtype] in magnitude (below that a value
vanishes against any O(1) term) and finite in both. A (function, dtype) is bridged when MindSpore's error is
above LIMIT[dtype] and above FACTOR times PyTorch's own, and kept only when the bridged conversion's error is
within FACTOR times PyTorch's (or LIMIT). Every measurement is written, bridged or not, so the file says why.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "knowledge" / "data" / "kernel_accuracy.json"

# torch name -> the domain (lo, hi) its grid spans; the tiny magnitudes are added for every function
DOMAINS = {
    "exp": (-80, 80), "expm1": (-20, 20), "exp2": (-100, 100), "log": (1e-6, 1e6), "log1p": (-0.99, 100),
    "log2": (1e-6, 1e6), "log10": (1e-6, 1e6), "sin": (-20, 20), "cos": (-20, 20), "tan": (-1.5, 1.5),
    "asin": (-1, 1), "acos": (-1, 1), "atan": (-50, 50), "sinh": (-20, 20), "cosh": (-20, 20), "tanh": (-20, 20),
    "asinh": (-100, 100), "acosh": (1, 100), "atanh": (-0.999, 0.999), "sigmoid": (-30, 30), "erf": (-5, 5),
    "erfc": (-5, 10), "lgamma": (0.01, 50), "sqrt": (0, 1e4), "rsqrt": (1e-3, 1e4), "reciprocal": (1e-3, 1e4),
    "nn.functional.tanh": (-20, 20), "nn.functional.sigmoid": (-30, 30), "nn.functional.softplus": (-30, 30),
    "nn.functional.silu": (-30, 30), "nn.functional.mish": (-30, 30), "nn.functional.elu": (-30, 30),
    "nn.functional.selu": (-30, 30), "nn.functional.logsigmoid": (-30, 30), "nn.functional.softsign": (-30, 30),
    "nn.functional.gelu": (-10, 10),
}
DTYPES = ("float32", "float16")
FLOOR = {"float32": 1e-20, "float16": 1e-4}  # results smaller than this are not judged (see the docstring)
LIMIT = {"float32": 5e-5, "float16": 2e-3}  # a kernel within this relative error is left alone
FACTOR = 4
BRIDGE = {"float32": "float64", "float16": "float32"}  # PyTorch's own float16 CPU kernels compute in float32
GRID_POINTS = 20001
ABOUT = ("API -> {float dtype: dtype the converted call computes in}, where MindSpore's CPU kernel runs but is far "
         "less accurate than PyTorch's (relative error above LIMIT and FACTOR times PyTorch's, over a dense grid of "
         "the domain and tiny magnitudes), kept where the bridged call is as accurate as PyTorch's; 'measured' "
         "holds every error. Written by `python -m analysis.verify.kernel_accuracy`.")


def grid(name: str, dtype: str) -> np.ndarray:
    """Where a function is measured: a dense grid of its domain, and tiny magnitudes of both signs inside it
    (from 1e-30 in float32, 1e-6 in float16), each finite in the dtype."""
    lo, hi = DOMAINS[name]
    tiny = np.logspace(-30 if dtype == "float32" else -6, 0, 301)
    points = np.concatenate([np.linspace(lo, hi, GRID_POINTS), tiny, -tiny])
    points = points[(points >= lo) & (points <= hi)]
    points = points[np.abs(points) <= np.finfo(dtype).max]
    return np.unique(points.astype(dtype))


def error(result, reference: np.ndarray, dtype: str) -> float:
    """The largest relative error of `result` against the float64 reference (see the docstring)."""
    if not isinstance(result, np.ndarray) or result.shape != reference.shape:
        return float("inf")
    got = result.astype(np.float64)
    representable = np.abs(reference) <= np.finfo(dtype).max  # else both frameworks overflow to inf
    judged = (np.abs(reference) >= FLOOR[dtype]) & representable & np.isfinite(got)
    if not judged.any():
        return 0.0
    mismatched = (representable & (np.isfinite(reference) != np.isfinite(got))).any()
    rel = np.abs(got[judged] - reference[judged]) / np.abs(reference[judged])
    return float("inf") if mismatched else float(rel.max())


def _source(name: str) -> str:
    return f"import torch\nout = torch.{name}(t0)\n"


def _converted(name: str, dtype: str, bridged: bool) -> str:
    from analysis.convert import convert_source
    from analysis.convert.apis import kernel_dtypes

    kernel_dtypes.use_table({name: {dtype: BRIDGE[dtype]}} if bridged else {})
    try:
        return convert_source(_source(name), path="probe.py").text
    finally:
        kernel_dtypes.use_table(None)


def build(workers: int = 2, log=print) -> dict:
    import torch

    from analysis.verify.sample_verdicts import suspend
    from analysis.verify.workers import run_all

    start = time.monotonic()
    suspend()
    keys = [(name, dtype) for name in DOMAINS for dtype in DTYPES]
    grids = {key: grid(*key) for key in keys}
    reference, theirs = {}, {}
    for name, dtype in keys:
        function = eval(f"torch.{name}")  # noqa: S307 - a name from DOMAINS above
        x = torch.from_numpy(grids[(name, dtype)])
        reference[(name, dtype)] = function(x.double()).numpy()
        theirs[(name, dtype)] = error(function(x).float().numpy(), reference[(name, dtype)], dtype)
    jobs = [(_converted(name, dtype, bridged), {"t0": grids[(name, dtype)]})
            for name, dtype in keys for bridged in (False, True)]
    runs = run_all("mindspore", "sample", jobs, workers=workers, timeout=120)
    log(f"({time.monotonic() - start:.0f} s) {len(keys)} (function, dtype) pairs measured")
    measured, bridged = {}, {}
    for i, (name, dtype) in enumerate(keys):
        plain, through = (error(run[1] if run[0] else None, reference[(name, dtype)], dtype)
                          for run in runs[2 * i:2 * i + 2])
        row = {"pytorch": theirs[(name, dtype)], "mindspore": plain, f"through_{BRIDGE[dtype]}": through}
        bound = max(LIMIT[dtype], FACTOR * theirs[(name, dtype)])
        if plain > bound and through <= bound:
            bridged.setdefault(name, {})[dtype] = BRIDGE[dtype]
        measured.setdefault(name, {})[dtype] = {k: float(f"{v:.3g}") for k, v in row.items()}
    return {"about": ABOUT, "limit": LIMIT, "factor": FACTOR, "floor": FLOOR,
            "apis": dict(sorted(bridged.items())), "measured": measured}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    data = build(args.workers)
    OUT.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"{sum(map(len, data['apis'].values()))} casts over {len(data['apis'])} APIs written to {OUT}")
    for name, dtypes in data["apis"].items():
        print(f"  {name}: {', '.join(dtypes)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
