"""Results as plain values (numpy arrays, nested lists) and their comparison across frameworks."""
from __future__ import annotations

import re
import warnings

import numpy as np

# MindSpore's words for "this kernel does not exist for this device or dtype" (here, a leaf module: the
# converter's verdict lookup reads it without importing the runners, which import the converter)
NO_KERNEL = re.compile(r"unregistered|not supported on this device|unsupported op|unsupported data type|on CPU|"
                       r"CPU operator|kernel.*not (found|registered)", re.IGNORECASE)

ERROR_LIMIT = 300  # characters of an error message a result keeps


def short_error(exc: BaseException) -> str:
    """An exception as one line: its type and the first line of its message that is not a rule."""
    text = str(exc).strip().splitlines()
    first = next((line for line in text if line.strip() and not line.startswith("-")), "")
    return f"{type(exc).__name__}: {first[:ERROR_LIMIT]}"


# (rtol, atol) by dtype class; integer and boolean results must be equal
TOLERANCE = {"float16": (1e-2, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-6, 1e-8)}


def plain(value, depth: int = 0):
    """A framework's result as numpy arrays and lists (tensors of either framework, tuples,
    named tuples, shapes, Python scalars); anything else becomes its type name."""
    if depth > 4:
        return "<nested>"
    if hasattr(value, "asnumpy"):  # mindspore.Tensor / Parameter
        return np.array(value.asnumpy())
    if type(value).__module__.startswith("torch") and hasattr(value, "detach"):
        t = value.detach()
        if str(t.dtype) == "torch.bfloat16":
            t = t.float()
        return t.numpy().copy()
    if isinstance(value, (bool, int, float, complex, np.generic, np.ndarray)):
        return np.asarray(value)
    if isinstance(value, (tuple, list)):
        return [plain(v, depth + 1) for v in value]
    if value is None:
        return None
    return f"<{type(value).__name__}>"


def dtype_class(a: np.ndarray) -> str:
    if a.dtype == bool:
        return "bool"
    if np.issubdtype(a.dtype, np.integer):
        return "int"
    if np.issubdtype(a.dtype, np.complexfloating):
        return "complex"
    if np.issubdtype(a.dtype, np.floating):
        return "float"
    return str(a.dtype)


def difference(expected, actual, values: bool = True, distribution: bool = False) -> str:
    """'' when `actual` matches `expected`, else what differs (shape, dtype class, values). values=False:
    draws of a random API, compared by shape and dtype, and with distribution=True by how the values are
    distributed where there are enough of them (distribution_difference)."""
    if isinstance(expected, list) or isinstance(actual, list):
        if not (isinstance(expected, list) and isinstance(actual, list)):
            return f"a {_kind(actual)} where PyTorch returns a {_kind(expected)}"
        if len(expected) != len(actual):
            return f"{len(actual)} results where PyTorch returns {len(expected)}"
        for i, (a, b) in enumerate(zip(expected, actual)):
            problem = difference(a, b, values, distribution)
            if problem:
                return f"result {i}: {problem}"
        return ""
    if expected is None or actual is None or isinstance(expected, str) or isinstance(actual, str):
        return "" if (expected is None) == (actual is None) and type(expected) is type(actual) else \
            f"{_kind(actual)} where PyTorch returns {_kind(expected)}"
    a, b = np.asarray(expected), np.asarray(actual)
    if a.shape != b.shape:
        return f"shape {tuple(b.shape)} where PyTorch gives {tuple(a.shape)}"
    if dtype_class(a) != dtype_class(b):
        return f"dtype {b.dtype} where PyTorch gives {a.dtype}"
    if not values or a.size == 0:
        return distribution_difference(a, b) if distribution and a.size else ""
    if dtype_class(a) in ("bool", "int"):
        if np.array_equal(a, b):
            return ""
        return f"values differ ({int(np.sum(a != b))} of {a.size} elements)"
    rtol, atol = TOLERANCE.get(str(a.dtype), TOLERANCE["float32"])
    finite = np.abs(a[np.isfinite(a)]) if a.size else a
    # a near-zero element of a long sum (conv3d) carries the rounding of the whole sum: one part in a
    # million of the tensor's largest magnitude (capped, so a huge element excuses nothing) is allowed too
    atol += 1e-6 * min(float(finite.max()) if finite.size else 0.0, 1e4)
    if np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
        return ""
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gap = np.nanmax(np.abs(a.astype(np.complex128 if dtype_class(a) == "complex" else np.float64) - b))
    return f"values differ (max abs difference {float(gap):.3g})"


# Draws of a random API: fewer than this say too little about a distribution (shape and dtype only)
MIN_DRAWS = 1000
# Sampling noise stays below these, and a shifted or rescaled distribution is far above them: the largest
# gap between the two empirical distribution functions, KS_LEVEL * sqrt(2 / n) (two-sample
# Kolmogorov-Smirnov; 2.5 is passed by chance about once in 100,000; 0.055 for 4096 draws a side)
KS_LEVEL = 2.5
DISCRETE_GAP = 0.1  # total variation between the frequencies of integer values


def distribution_difference(expected: np.ndarray, actual: np.ndarray) -> str:
    """'' when two draws of the same shape look drawn from the same distribution: the share of
    non-finite values, integer values where PyTorch's are (their frequencies), else the empirical
    distribution functions. Too few draws: ''. Values are never compared one by one."""
    if expected.size < MIN_DRAWS or dtype_class(expected) == "complex":
        return ""
    a, b = expected.astype(np.float64).ravel(), actual.astype(np.float64).ravel()
    fa, fb = np.isfinite(a), np.isfinite(b)
    if abs(fa.mean() - fb.mean()) > 0.01:
        return f"{100 * (1 - fb.mean()):.1f} % non-finite draws where PyTorch has {100 * (1 - fa.mean()):.1f} %"
    a, b = a[fa], b[fb]
    if not a.size or not b.size:
        return ""
    if np.all(a == np.round(a)) and len(np.unique(a)) <= 64:
        if not np.all(b == np.round(b)):
            return "draws are not whole numbers where PyTorch's are"
        levels = np.union1d(a, b)
        freq_a = np.array([np.mean(a == v) for v in levels])
        freq_b = np.array([np.mean(b == v) for v in levels])
        gap = 0.5 * float(np.abs(freq_a - freq_b).sum())
        return "" if gap <= DISCRETE_GAP else \
            f"draws distributed differently (values' frequencies differ by {gap:.2f} in total variation)"
    a, b = np.sort(a), np.sort(b)
    points = np.concatenate([a, b])
    gap = float(np.max(np.abs(np.searchsorted(a, points, side="right") / a.size
                              - np.searchsorted(b, points, side="right") / b.size)))
    if gap > KS_LEVEL * np.sqrt(2 / min(a.size, b.size)):
        return (f"draws distributed differently (median {np.median(b):.3g}, 10-90 % {np.quantile(b, 0.1):.3g} to "
                f"{np.quantile(b, 0.9):.3g}; PyTorch's {np.median(a):.3g}, {np.quantile(a, 0.1):.3g} to "
                f"{np.quantile(a, 0.9):.3g}; distribution functions {gap:.2f} apart)")
    return ""


def _kind(value) -> str:
    if isinstance(value, list):
        return f"sequence of {len(value)}"
    if value is None:
        return "None"
    if isinstance(value, str):
        return value
    return "tensor"
