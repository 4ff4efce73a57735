"""How much of torch's documented API the converter has a rewrite for, per namespace.

    python bench/api_coverage.py [--json bench/api_coverage.json] [--list absent|manual|all]

The surface is the held-out sample's (bench/heldout_sample.py): every public, documented API of torch,
torch.Tensor, torch.nn (layers), torch.nn.functional, torch.linalg, torch.fft and torch.special. Each
is written as one plain call in a file of its own (`y = torch.fmin(x)`, `y = x.addbmm_()`,
`m = torch.nn.GLU()`), converted, and classed by what the converter did with that call:
- **rewritten**: no marker on it (a table entry, helper, exact form or a name MindSpore shares);
- **mapped**: something maps it, but the probe's call is marked (its made-up arguments are not the
  API's: a missing required argument, a value outside what was verified);
- **manual**: marked unmapped with a curated instruction (the tables' "manual" section, no CPU kernel);
- **absent**: marked because nothing maps it (not in the tables, or a method MindSpore's Tensor lacks).
This counts coverage, not correctness: the arguments are not the API's, so whether the rewrite computes
PyTorch's values is what bench/opinfo_samples.py, bench/docstring_examples.py and bench/heldout_calls.py
measure. It is a to-do list: the absent APIs are the converter's gaps on code nobody here chose.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.convert import convert_source  # noqa: E402
from bench.heldout_sample import candidates  # noqa: E402

DEFAULT_JSON = Path(__file__).with_name("api_coverage.json")
UNMAPPED_RULES = ("MS-API-UNMAPPED",)
KINDS = ("rewritten", "mapped", "manual", "absent")


def probe(api: str) -> str:
    """One plain use of `api` as a user would write it."""
    namespace, _, name = api.rpartition(".")
    if namespace == "torch.Tensor":
        return f"import torch\nx = torch.ones(2, 3)\ny = x.{name}()\n"
    if namespace == "torch.nn":  # a layer: built without arguments
        return f"import torch\nx = torch.ones(2, 3)\ny = {api}()\n"
    return f"import torch\nimport torch.nn.functional\nx = torch.ones(2, 3)\ny = {api}(x)\n"


def classify(api: str) -> tuple[str, str]:
    """(rewritten | mapped | manual | absent, the marker's text) for the probe's call line."""
    result = convert_source(probe(api))
    call_line = probe(api).count("\n")  # the last line of the probe
    marks = [u for u in result.unconverted if u.line == call_line]
    if not marks:
        return "rewritten", ""
    mark = marks[0]
    text = f"{mark.rule_id}: {mark.action}"
    if mark.rule_id not in UNMAPPED_RULES:
        return "mapped", text
    nothing_maps = "mapping tables" in mark.action or "tensors have no" in mark.action
    return ("absent" if nothing_maps else "manual"), text


def family(api: str) -> str:
    return api.rpartition(".")[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    parser.add_argument("--list", choices=KINDS + ("all",), default=None,
                        help="also print the APIs of that class")
    args = parser.parse_args()
    start = time.perf_counter()
    per_api = {api: classify(api) for api in sorted(candidates())}
    counts: dict[str, Counter] = defaultdict(Counter)
    for api, (kind, _) in per_api.items():
        counts[family(api)][kind] += 1
        counts["all"][kind] += 1
    summary = {}
    print(f"{'namespace':<22}{'APIs':>6}" + "".join(f"{k:>11}" for k in KINDS))
    for name in sorted(counts, key=lambda n: (n == "all", n)):
        c = counts[name]
        total = sum(c.values())
        summary[name] = {"apis": total, **{k: c[k] for k in KINDS},
                         "absent_rate": round(c["absent"] / total, 3)}
        print(f"{name:<22}{total:>6}" + "".join(f"{c[k]:>11}" for k in KINDS)
              + f"   {100 * c['absent'] / total:5.1f} % absent")
    if args.list:
        for api, (kind, text) in per_api.items():
            if args.list == "all" or kind == args.list:
                print(f"{kind:<10}{api}  {text[:110]}")
    import mindspore  # noqa: F401  (the versions the figures are for)
    import torch

    args.json.write_text(json.dumps({
        "torch": torch.__version__, "mindspore": mindspore.__version__,
        "seconds": round(time.perf_counter() - start), "summary": summary,
        "apis": {api: kind for api, (kind, _) in per_api.items()},
    }, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
