"""python -m analysis.verify.promotion: write knowledge/data/int_to_float.json, the mapped APIs PyTorch
computes in float32 for integer and boolean inputs, which the converter reads through float_input()
(analysis/convert/dtype_forms.py). Found two ways in PyTorch's OpInfo database: the `promotes_int_to_float`
flag, and, since the flag is missing on many (the fft family, special.i0e...), each op's first
int32 sample run with torch: a float32 or complex64 result (PyTorch's default dtypes) means the integers
were read as float32, which float_input does too. Each found op's other names (OpInfo's aliases:
special.expit and F.sigmoid of sigmoid) are listed with it.

Left out: APIs whose integer results follow other rules (div with rounding_mode stays integer,
float_power goes to float64, the reductions refuse integers, trapz subtracts an integer x in its own
dtype), APIs with a local function of their own,
those taking an integer order first (polygamma, mvlgamma), and dtype conversions (x.float()).

Also read through float_input: the predicates of a float value (isinf, isnan...), whose boolean answer
for an integer or boolean tensor is the same read as float32 (no integer is inf or NaN, and float32's
range covers int64's), while MindSpore's CPU kernels refuse such inputs."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "knowledge" / "data" / "int_to_float.json"
OTHER_RULES = frozenset({"div", "true_divide", "float_power", "ldexp", "polygamma", "mvlgamma", "mean", "nanmean",
                         "std", "var", "copysign", "erfinv", "__rdiv__", "angle", "float", "half", "double", "to",
                         "trapz", "trapezoid", "cumulative_trapezoid", "cfloat", "cdouble"})
# binary APIs: both tensor arguments are read as float
TWO = frozenset({"atan2", "arctan2", "xlogy", "special.xlogy", "special.xlog1py", "special.zeta"})
# float functions of two tensors PyTorch promotes as a pair (float32 with int64 is float32) while MindSpore
# requires both float: OpInfo does not flag them (two integer inputs raise in PyTorch too)
PAIRS = {"logaddexp": 2, "logaddexp2": 2}
PREDICATES = ("isinf", "isnan", "isfinite", "isposinf", "isneginf")


def _promotes(op, torch) -> bool:
    """Whether torch reads op's integer input as float32: its first int32 sample gives a float32 or complex64
    result (ops whose variant takes a dtype= are skipped: the dtype argument decides there)."""
    if op.variant_test_name or torch.int32 not in op.supported_dtypes("cpu"):
        return False
    try:
        sample = next(iter(op.sample_inputs("cpu", torch.int32)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = op.op(sample.input, *sample.args, **sample.kwargs)
    except Exception:  # noqa: BLE001 - an op refusing integers is not one that promotes them
        return False
    return isinstance(result, torch.Tensor) and result.dtype in (torch.float32, torch.complex64)


def build() -> dict:
    import torch
    from torch.testing._internal.common_methods_invocations import op_db

    from analysis.knowledge.mapping import load_mapping

    mapped = {e.torch for e in load_mapping("classic") if e.primary or e.template or e.constant or e.helper}

    def is_mapped(name: str) -> bool:
        return f"torch.{name}" in mapped or f"torch.Tensor.{name}" in mapped

    names = sorted({op.name for op in op_db
                    if op.name not in OTHER_RULES and not op.name.startswith(("nn.", "masked.")) and is_mapped(op.name)
                    and ((getattr(op, "promotes_int_to_float", False) and "." not in op.name) or _promotes(op, torch))})
    names += [n for n in PREDICATES if is_mapped(n)]
    # the same function under its other names (torch.special.expit and F.sigmoid are torch.sigmoid)
    names += [alias.name for op in op_db if op.name in names
              for alias in getattr(op, "aliases", ()) if is_mapped(alias.name)]
    return {"about": "PyTorch APIs that read integer/boolean inputs as float32 (OpInfo promotes_int_to_float, or "
                     "a float32 result for an int32 sample; and the predicates isinf, isnan...), mapped by the "
                     "knowledge base; value: how many leading tensor arguments are read as float. Written by `python -m "
                     "analysis.verify.promotion`.",
            "apis": dict(sorted({**{name: 2 if name in TWO else 1 for name in names},
                                 **{n: c for n, c in PAIRS.items() if f"torch.{n}" in mapped}}.items()))}


def main() -> int:
    data = build()
    OUT.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"{len(data['apis'])} APIs written to {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
