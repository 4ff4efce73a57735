"""Which operators PyTorch computes in their inputs' dtype and then cast into a wider out= tensor.

    python -m analysis.verify.out_probe   # writes analysis/convert/tensors/out_cast.json

For each OpInfo that takes out=, float32 samples run once as they are and once into a wider out= tensor
(float64 for a float32 result, complex128 for a complex64 one: torch.fft.fft of float32 input). An
operator is listed as "cast" when, on a sample where computing in double precision gives other values
than computing in single, the out= result equals the single-precision result cast; "wide" when it
equals the double-precision computation; "refuses" when PyTorch raises for the wider buffer. An operator that
rounds nothing (NO_ROUNDING) is "cast" where no sample tells the readings apart. Only the "cast"
ones may be converted with a cast after the MindSpore call (support/helper_callforms.write_out_cast);
every other out= call is written only where the buffer has the result's dtype."""
from __future__ import annotations

import itertools
import json
from pathlib import Path

from analysis.verify.samples import op_api_names

TABLE = Path(__file__).resolve().parents[1] / "convert" / "tensors" / "out_cast.json"
# operators that round nothing (they select, copy or compare values): computing in float32 or float64 gives
# the same values, so no sample can tell the readings apart, and casting afterwards is exact either way
NO_ROUNDING = frozenset(f"torch.{name}" for name in (
    "cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack", "maximum", "minimum",
    "fmax", "fmin", "clamp", "clip", "clamp_min", "clamp_max", "copysign", "max", "min", "amax", "amin"))


def _wider():
    import torch

    # a float32 result goes into a float64 buffer; a complex64 one (torch.fft.fft of float32) into complex128
    return {torch.float32: torch.float64, torch.complex64: torch.complex128}


def _wide(value):
    import torch

    wider = _wider()
    if isinstance(value, torch.Tensor) and value.dtype in wider:
        return value.to(wider[value.dtype])
    return value


def verdict(op) -> str | None:
    """cast / wide / refuses / other for one OpInfo; None where no float32 sample tells them apart."""
    import torch

    undecided, wider = None, _wider()
    for sample in itertools.islice(op.sample_inputs("cpu", torch.float32), 12):
        args, kwargs = sample.args, sample.kwargs
        try:
            expected = op(sample.input, *args, **kwargs)
        except Exception:
            continue
        if not isinstance(expected, torch.Tensor) or expected.dtype not in wider:
            return None
        try:
            got = op(sample.input, *args, **kwargs, out=torch.empty(0, dtype=wider[expected.dtype]))
        except Exception:
            return "refuses"
        try:
            wide = op(_wide(sample.input), *[_wide(a) for a in args], **kwargs)
        except Exception:
            wide = None
        cast = expected.to(wider[expected.dtype])
        if wide is not None and torch.equal(cast, wide):
            undecided = undecided or ("cast" if torch.equal(got, cast) else "other")
            continue  # both readings give these values: another sample must tell
        if torch.equal(got, cast):
            return "cast"
        return "wide" if wide is not None and torch.equal(got, wide) else "other"
    return "same" if undecided == "cast" else undecided  # "same": both readings gave PyTorch's values


def probe() -> dict:
    import torch
    from torch.testing._internal.common_methods_invocations import op_db

    torch.manual_seed(0)
    found: dict[str, str] = {}
    for op in op_db:
        function, _ = op_api_names(op)
        if not op.supports_out or function is None or function in found:
            continue
        result = verdict(op)
        if result == "same":
            result = "cast" if function in NO_ROUNDING else None
        if result is not None:
            found[function] = result
    return {"measured_with": {"torch": torch.__version__, "script": "python -m analysis.verify.out_probe",
                              "buffer": "float64 out= of float32 results, complex128 out= of complex64 ones "
                                        "(OpInfo sample_inputs)"},
            "cast": sorted(k for k, v in found.items() if v == "cast"),
            "not_cast": {k: v for k, v in sorted(found.items()) if v != "cast"}}


def main() -> int:
    data = probe()
    TABLE.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"{len(data['cast'])} operators cast into a wider out=, {len(data['not_cast'])} do not: {TABLE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
