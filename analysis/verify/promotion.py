"""python -m analysis.verify.promotion: write knowledge/data/int_to_float.json, the mapped APIs PyTorch
computes in float32 for integer and boolean inputs (OpInfo's `promotes_int_to_float`), which the converter
reads through float_input() (analysis/convert/dtype_forms.py).

Left out: APIs whose integer results follow other rules (div with rounding_mode stays integer,
float_power goes to float64, the reductions refuse integers), APIs with a local function of their own,
and those taking an integer order first (polygamma, mvlgamma)."""
from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "knowledge" / "data" / "int_to_float.json"
OTHER_RULES = frozenset({"div", "true_divide", "float_power", "ldexp", "polygamma", "mvlgamma", "mean", "nanmean",
                         "std", "var", "copysign", "erfinv", "__rdiv__"})
# binary APIs: both tensor arguments are read as float
TWO = frozenset({"atan2", "xlogy"})
# float functions of two tensors PyTorch promotes as a pair (float32 with int64 is float32) while MindSpore
# requires both float: OpInfo does not flag them (two integer inputs raise in PyTorch too)
PAIRS = {"logaddexp": 2, "logaddexp2": 2}


def build() -> dict:
    from torch.testing._internal.common_methods_invocations import op_db

    from analysis.knowledge.mapping import load_mapping

    mapped = {e.torch for e in load_mapping("classic") if e.primary or e.template or e.constant}
    names = sorted({op.name for op in op_db if getattr(op, "promotes_int_to_float", False)
                    and "." not in op.name and op.name not in OTHER_RULES
                    and (f"torch.{op.name}" in mapped or f"torch.Tensor.{op.name}" in mapped)})
    return {"about": "PyTorch APIs computed in float32 for integer/boolean inputs (OpInfo promotes_int_to_float), "
                     "mapped by the knowledge base; value: how many leading tensor arguments are read as float. "
                     "Written by `python -m analysis.verify.promotion`.",
            "apis": dict(sorted({**{name: 2 if name in TWO else 1 for name in names},
                                 **{n: c for n, c in PAIRS.items() if f"torch.{n}" in mapped}}.items()))}


def main() -> int:
    data = build()
    OUT.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"{len(data['apis'])} APIs written to {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
