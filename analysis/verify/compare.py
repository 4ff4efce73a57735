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


def difference(expected, actual, values: bool = True) -> str:
    """'' when `actual` matches `expected`, else what differs (shape, dtype class, values)."""
    if isinstance(expected, list) or isinstance(actual, list):
        if not (isinstance(expected, list) and isinstance(actual, list)):
            return f"a {_kind(actual)} where PyTorch returns a {_kind(expected)}"
        if len(expected) != len(actual):
            return f"{len(actual)} results where PyTorch returns {len(expected)}"
        for i, (a, b) in enumerate(zip(expected, actual)):
            problem = difference(a, b, values)
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
        return ""
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


def _kind(value) -> str:
    if isinstance(value, list):
        return f"sequence of {len(value)}"
    if value is None:
        return "None"
    if isinstance(value, str):
        return value
    return "tensor"
