"""Numbers only (numpy): summaries of one tensor and errors between two.

Large tensors are kept as a fixed strided sample plus exact statistics, so a
per-layer capture of a big model stays within memory; small ones are kept
whole and compared exactly.
"""
from __future__ import annotations

import math
from fnmatch import fnmatchcase

import numpy as np

from . import tables

FULL_ELEMENTS = 1 << 20  # keep tensors up to this size whole
SAMPLE_ELEMENTS = 1 << 16
STATS_CHUNK = 1 << 20  # a sampled tensor's statistics are summed this many elements at a time


class Capture:
    """One tensor as seen by a hook: exact stats, values whole or sampled."""

    __slots__ = ("shape", "dtype", "stats", "values", "sampled")

    def __init__(self, array: np.ndarray) -> None:
        array = np.asarray(array)
        self.shape = tuple(int(d) for d in array.shape)
        self.dtype = str(array.dtype)
        flat = array.reshape(-1)
        self.sampled = flat.size > FULL_ELEMENTS
        # A large tensor's statistics are taken in chunks: no float64 copy of
        # all of it (an embedding's gradient is hundreds of MB in float64).
        self.stats = chunked_summary(flat) if self.sampled else summary(flat.astype(np.float64))
        # Kept in the tensor's own precision (float64 only in the metrics).
        kept = flat[:: max(1, flat.size // SAMPLE_ELEMENTS)] if self.sampled else flat
        self.values = kept.astype(np.float64 if flat.dtype == np.float64 else np.float32)

    def release(self) -> None:
        """Drop the values once compared; shape and stats stay."""
        self.values = None


def spec_text(spec) -> str:
    """[4, 8], or (..., ...) for a tuple input such as an LSTM's (h0, c0)."""
    if not isinstance(spec, dict):
        return str(spec)[:80]
    if isinstance(spec.get("tuple"), list):
        return "(" + ", ".join(spec_text(s) for s in spec["tuple"]) + ")"
    if isinstance(spec.get("dict"), dict):
        return "{" + ", ".join(f"{k}: {spec_text(s)}" for k, s in spec["dict"].items()) + "}"
    return str(spec.get("shape"))


def summary(values: np.ndarray) -> dict:
    if values.size == 0:
        return {"min": 0.0, "max": 0.0, "mean": 0.0, "std": 0.0, "norm": 0.0}
    finite = values[np.isfinite(values)]
    return {
        "min": _f(finite.min()) if finite.size else None,
        "max": _f(finite.max()) if finite.size else None,
        "mean": _f(finite.mean()) if finite.size else None,
        "std": _f(finite.std()) if finite.size else None,
        "norm": _f(np.linalg.norm(finite)) if finite.size else None,
        "nonfinite": int(values.size - finite.size),
    }


def chunked_summary(flat: np.ndarray, chunk: int = STATS_CHUNK) -> dict:
    """`summary` of a 1-D array, read `chunk` elements at a time in float64
    (the same figures up to summation order)."""
    if flat.size <= chunk:
        return summary(flat.astype(np.float64))
    count, nonfinite, total, low, high = 0, 0, 0.0, math.inf, -math.inf
    for start in range(0, flat.size, chunk):
        part = flat[start:start + chunk].astype(np.float64)
        part = part[np.isfinite(part)]
        nonfinite += (min(flat.size, start + chunk) - start) - part.size
        if part.size:
            count += part.size
            total += float(part.sum())
            low, high = min(low, float(part.min())), max(high, float(part.max()))
    if not count:
        return {"min": None, "max": None, "mean": None, "std": None, "norm": None, "nonfinite": int(nonfinite)}
    mean, squares, centred = total / count, 0.0, 0.0
    for start in range(0, flat.size, chunk):
        part = flat[start:start + chunk].astype(np.float64)
        part = part[np.isfinite(part)]
        squares += float(np.dot(part, part))
        centred += float(np.sum((part - mean) ** 2))
    return {"min": _f(low), "max": _f(high), "mean": _f(mean), "std": _f(math.sqrt(centred / count)),
            "norm": _f(math.sqrt(squares)), "nonfinite": int(nonfinite)}


def tolerance(kind: str, dtype: str, override: dict | None = None, factor: float = 1.0) -> tuple[float, float]:
    atol, rtol = tables.TOLERANCE_BY_DTYPE.get(dtype, tables.TOLERANCE_BY_DTYPE["float32"])
    if kind in tables.LOOSE_KINDS:
        atol, rtol = atol * tables.LOOSE_FACTOR, rtol * tables.LOOSE_FACTOR
    if override:
        atol, rtol = float(override.get("atol", atol)), float(override.get("rtol", rtol))
    return atol * factor, rtol * factor


class Tolerances:
    """Which (atol, rtol) a comparison is held to, and why. In order: the
    manifest's layer_tolerance for the layer (exact path, else the longest
    matching prefix or glob), the entry's manifest tolerance, the op kind's
    looser default, the dtype default. `factor` widens whichever applies."""

    def __init__(self, override: dict | None = None, by_layer: dict[str, dict] | None = None) -> None:
        self.override = {k: v for k, v in (override or {}).items() if k in ("atol", "rtol")}
        self.by_layer = dict(by_layer or {})

    def pattern_for(self, path: str | None) -> str | None:
        if path is None or not self.by_layer:
            return None
        if path in self.by_layer:
            return path
        hits = [p for p in self.by_layer if path.startswith(p + ".") or fnmatchcase(path, p)]
        return max(hits, key=len) if hits else None

    def pick(self, kind: str, dtype: str, layer: str | None = None,
             factor: float = 1.0) -> tuple[float, float, dict]:
        atol, rtol = tolerance(kind, str(dtype), self.override)
        source = "manifest" if self.override else "op-kind" if kind in tables.LOOSE_KINDS else "default"
        info: dict = {}
        pattern = self.pattern_for(layer)
        if pattern is not None:
            rule = self.by_layer[pattern]
            atol, rtol = float(rule.get("atol", atol)), float(rule.get("rtol", rtol))
            source, info["pattern"] = "manifest", pattern
        atol, rtol = atol * factor, rtol * factor
        info.update(atol=atol, rtol=rtol, source=source)
        if factor != 1.0:
            info["factor"] = factor
        return atol, rtol, info


def noise_of(reference: Capture | None, exact: Capture | None) -> float | None:
    """PyTorch's own float32 round-off at one point: the largest |float32 -
    float64| of the same tensor from the same weights and inputs (None when
    the float64 reference has no such tensor)."""
    if reference is None or exact is None or reference.values is None or exact.values is None:
        return None
    if reference.shape != exact.shape or reference.values.size != exact.values.size:
        return None
    diff = np.abs(reference.values.astype(np.float64) - exact.values.astype(np.float64))
    diff = diff[np.isfinite(diff)]
    return _f(diff.max()) if diff.size else 0.0


def metrics(reference: Capture, candidate: Capture, atol: float, rtol: float, noise: float | None = None,
            band_check: bool = True) -> dict:
    """Errors of `candidate` (MindSpore) against `reference` (PyTorch float32).

    `atol + rtol*|a|` is the floor; with `noise` (PyTorch's own float32-vs-
    float64 error at this point) the allowance widens to the noise band,
    NOISE_FACTOR times that error, wherever float32 itself is that inexact:
    a difference the size of float32 round-off is noise, not drift.
    With `band_check` (tolerances the product chose, not a person's manifest
    override) a difference within the floor but beyond NOISE_BAND_LIMIT bands
    still fails.
    """
    result = {"shape_torch": list(reference.shape), "shape_mindspore": list(candidate.shape), "atol": atol, "rtol": rtol}
    band = tables.NOISE_FACTOR * noise if noise is not None and math.isfinite(noise) else 0.0
    if noise is not None:
        result.update(noise_max_abs=noise, noise_band=band)
    if reference.shape != candidate.shape and reference.values.size != candidate.values.size:
        result.update(status="fail", label="shape mismatch", max_abs=None, max_rel=None, mean_abs=None, cosine=None)
        return result
    a, b = reference.values.astype(np.float64), candidate.values.astype(np.float64)
    diff = np.abs(a - b)
    both_nan = np.isnan(a) & np.isnan(b)
    diff = np.where(both_nan, 0.0, diff)
    max_abs = _f(np.nanmax(diff)) if diff.size else 0.0
    if diff.size and np.isnan(diff).any():
        max_abs = math.inf
    rel = diff / np.maximum(np.abs(a), 1e-12)
    floor = atol + rtol * np.abs(a)
    allowed = np.maximum(floor, band)
    within_floor = bool(np.all(diff <= floor)) if diff.size else True
    within = bool(np.all(diff <= allowed)) if diff.size else True
    result.update(
        max_abs=max_abs,
        max_rel=_f(rel.max()) if rel.size else 0.0,
        mean_abs=_f(diff.mean()) if diff.size else 0.0,
        cosine=_cosine(a, b),
        worst_ratio=_f((diff / allowed).max()) if diff.size else 0.0,
        sampled=reference.sampled or candidate.sampled,
        stats_torch=reference.stats,
        stats_mindspore=candidate.stats,
    )
    ratio = band_ratio(max_abs, noise, reference)
    if ratio is not None:
        result.update(band_ratio=ratio, band_limit=tables.NOISE_BAND_LIMIT)
    if reference.shape != candidate.shape:
        result.update(status="fail", label="shape mismatch")
    elif max_abs == 0.0:
        result.update(status="pass", label="exact")
    elif band_check and within_floor and ratio is not None and ratio > tables.NOISE_BAND_LIMIT:
        # Within the op's floor, yet far beyond what float32 round-off explains here: a changed
        # constant (a LayerNorm eps) hides under a norm's loose floor; the band sees it.
        result.update(status="fail", label="beyond noise band")
    elif within_floor:
        result.update(status="pass", label="kernel noise")  # within the op's known float error
    elif within:
        result.update(status="pass", label="float32 noise")  # as far off as PyTorch float32 is from float64
    else:
        result.update(status="fail", label="drift")
    return result


def band_ratio(max_abs: float | None, noise: float | None, reference: Capture) -> float | None:
    """How many noise bands MindSpore is from PyTorch float32 at one point:
    max |difference| over NOISE_FACTOR x PyTorch's own float32-vs-float64
    error, the band never narrower than one rounding step of the largest
    value (where float32 happens to be exact, the band would be zero). None
    without a float64 reference."""
    if max_abs is None or noise is None or not math.isfinite(noise) or not math.isfinite(max_abs) \
            or reference.values is None:
        return None
    try:
        eps = float(np.finfo(np.dtype(reference.dtype)).eps)
    except (TypeError, ValueError):  # an integer tensor: exact or not, no band
        return None
    top = reference.stats.get("max"), reference.stats.get("min")
    magnitude = max((abs(v) for v in top if isinstance(v, (int, float)) and math.isfinite(v)), default=0.0)
    scale = max(tables.NOISE_FACTOR * noise, eps * magnitude, np.finfo(np.float64).tiny)
    return _f(max_abs / scale)


SCATTER_POINTS = 1000


def output_figures(reference: np.ndarray, candidate: np.ndarray) -> dict:
    """Data for the dashboard's figures of one output: a strided sample of
    value pairs (scatter) and a log-binned histogram of absolute errors."""
    a = np.asarray(reference, np.float64).reshape(-1)
    b = np.asarray(candidate, np.float64).reshape(-1)
    if a.size != b.size or a.size == 0:
        return {}
    step = max(1, a.size // SCATTER_POINTS)
    diff = np.abs(a - b)
    diff = diff[np.isfinite(diff)]
    top = float(diff.max()) if diff.size else 0.0
    if top <= 0.0:
        edges, counts = [0.0, 1e-12], [int(diff.size)]
    else:
        high = math.ceil(math.log10(top)) if top > 0 else -12
        low = min(high - 1, -12)
        bins = np.concatenate([[0.0], np.logspace(low, high, num=2 * (high - low) + 1)])
        hist, bin_edges = np.histogram(diff, bins=bins)
        edges, counts = [float(e) for e in bin_edges], [int(c) for c in hist]
    return {
        "output_sample": {"torch": a[::step].tolist(), "mindspore": b[::step].tolist(), "stride": step},
        "abs_error_histogram": {"edges": edges, "counts": counts, "scale": "log"},
    }


def _cosine(a: np.ndarray, b: np.ndarray) -> float | None:
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if not (np.isfinite(na) and np.isfinite(nb)):
        return None
    if na == 0 or nb == 0:
        return 1.0 if na == nb else 0.0
    return _f(float(np.dot(a, b) / (na * nb)))


def _f(value) -> float:
    value = float(value)
    return value if math.isfinite(value) else (math.inf if value > 0 else -math.inf) if not math.isnan(value) else math.nan


def json_safe(value):
    """Replace inf/nan (not JSON) with strings, recursively."""
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value
