"""Two call forms measured on PyTorch's own test inputs: out= and in-place functions. Every OpInfo sample
of a mapped function is written with its result going into an out= tensor (where the function takes
out=), and through the function's in-place form (torch.relu_(x), F.elu_(x), F.elu(x, inplace=True) on a
line of its own), converted and run in both frameworks.

    python bench/call_forms.py [--per-dtype 1] [--scan 8] [--workers 1] [--only API ...] [--json OUT]

How it measures (OpInfo's own test_out does the same with its samples):
1. For each OpInfo (common_methods_invocations.op_db) whose function is mapped and that supports out=,
   each CPU dtype numpy can carry (analysis/verify/samples.py), `--per-dtype` of its first `--scan`
   sample inputs. PyTorch runs the call once without out= to learn its results' dtypes.
2. Two forms: "out" (buffers of the results' dtypes, `torch.empty(0, dtype=...)`: PyTorch resizes them,
   a tuple of them for several results) and, for a float32 result, "out_wider" (a float64 buffer: PyTorch
   casts, computes in float64, or refuses; refused forms are dropped). A wider buffer's values are compared
   at float32's tolerance (both frameworks computed them in float32; its dtype is checked apart).
3. "inplace_function" (where torch has one: the function's name with a trailing underscore, torch.X_ for
   torch.nn.functional.X too) and "inplace_keyword" (where the function takes inplace=): the sample's
   first tensor is the one changed; the tensor afterwards is compared, and the returned value too.
4. Each call is **same** (MindSpore's value equals PyTorch's: analysis/verify/compare.py), **marked**
   (the converter left a marker), **marked at run time** (the converted code raised the out= helpers'
   TypeError, which names the case) or **silent** (converted, and MindSpore raises otherwise or differs).
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_JSON = ROOT / "bench" / "call_forms.json"
RUNTIME_MARK = "(..., out=)"  # the out= helpers' errors name the call so (support/helper_callforms.py)


def _results(value):
    """The dtypes of a call's tensor results: [dtype] for one tensor, a list for a tuple of them; None else."""
    import torch

    if isinstance(value, torch.Tensor):
        return [value.dtype]
    if isinstance(value, (tuple, list)) and value and all(isinstance(v, torch.Tensor) for v in value):
        return [v.dtype for v in value]
    return None


def _in_place_forms(function: str) -> list[tuple[str, str]]:
    """(form, callee) of function's in-place forms: its name with an underscore, and inplace=True."""
    import inspect

    import torch

    def find(name):
        obj = torch
        for part in name.split(".")[1:]:
            obj = getattr(obj, part, None)
        return obj

    forms = []
    name = function.rsplit(".", 1)[1]
    for candidate in dict.fromkeys((f"{function}_", f"torch.{name}_")):
        if find(candidate) is not None:
            forms.append(("inplace_function", candidate))
    try:
        if "inplace" in inspect.signature(find(function)).parameters:
            forms.append(("inplace_keyword", function))
    except (TypeError, ValueError):
        pass
    return forms


def samples(only: set[str] | None, per_dtype: int, scan: int):
    """(api, form, dtype, source, arrays, origin) for every out= and in-place call of every mapped OpInfo."""
    import torch
    from torch.testing._internal.common_methods_invocations import op_db

    from analysis.verify.samples import Unwritable, Writer, op_api_names, op_cpu_dtypes, op_origin
    from bench.opinfo_samples import mapped_apis

    mapped = mapped_apis()
    for op in op_db:
        function, _ = op_api_names(op)
        if function not in mapped or (only and function not in only):
            continue
        in_place = _in_place_forms(function)
        if not (op.supports_out or in_place):
            continue
        dtypes = op_cpu_dtypes(op)
        if dtypes is None:
            continue
        origin = op_origin(op)
        for dtype in dtypes:
            torch.manual_seed(0)
            try:
                pool = list(itertools.islice(op.sample_inputs("cpu", getattr(torch, dtype)), scan))
            except Exception:
                continue
            for n, sample in enumerate(pool[:per_dtype]):
                try:
                    results = _results(op(sample.input, *sample.args, **sample.kwargs))
                except Exception:
                    continue
                if results is None:
                    continue
                for form, callee in in_place if isinstance(sample.input, torch.Tensor) else []:
                    w = Writer()
                    try:
                        args = [w.value(sample.input)] + [w.value(a) for a in sample.args] + \
                            [f"{k}={w.value(v)}" for k, v in sample.kwargs.items()]
                    except Unwritable:
                        continue
                    if form == "inplace_function":
                        body = f"ret = {callee}({', '.join(args)})\nout = (ret, {args[0]})\n"
                    else:  # a line of its own: the tensor is what changes
                        body = f"{callee}({', '.join(args + ['inplace=True'])})\nout = {args[0]}\n"
                    yield callee if form == "inplace_function" else function, form, dtype, "import torch\n" + body, \
                        w.arrays, f"{origin}#{n}"
                forms = [("out", results)] if op.supports_out else []
                if results == [torch.float32] and op.supports_out:
                    forms.append(("out_wider", [torch.float64]))
                for form, buffers in forms:
                    w = Writer()
                    try:
                        args = [w.value(sample.input)] + [w.value(a) for a in sample.args] + \
                            [f"{k}={w.value(v)}" for k, v in sample.kwargs.items()]
                    except Unwritable:
                        continue
                    made = [f"buf{i} = torch.empty(0, dtype={d})" for i, d in enumerate(buffers)]
                    target = "buf0" if len(buffers) == 1 else "(" + ", ".join(f"buf{i}" for i in range(len(buffers))) + ")"
                    source = "import torch\n" + "\n".join(made) + f"\nout = {function}({', '.join(args + [f'out={target}'])})\n"
                    if form == "out_wider":  # computed in float32 by both: its values compared at float32's tolerance
                        source += "out = (out.dtype == torch.float64, out.float())\n"
                    yield function, form, dtype, source, w.arrays, f"{origin}#{n}"


def measure(args, log=print) -> dict:
    import torch

    from analysis.convert import convert_source
    from analysis.verify.generate import RANDOM_WORDS
    from analysis.verify.workers import _fill, execute, run_all
    from bench.opinfo_samples import classify

    start = time.monotonic()
    torch.set_num_threads(1)
    found = list(samples(set(args.only) if args.only else None, args.per_dtype, args.scan))
    fill = _fill("torch")
    kept = []
    for item in found:
        ok, result = execute("torch", item[3], {}, fill, only=item[4])
        torch.set_default_dtype(torch.float32)
        if ok:
            kept.append((item, result))
    log(f"({time.monotonic() - start:.0f} s) {len(found)} calls, {len(kept)} ran in PyTorch; converting")
    converted = []
    for item, _ in kept:
        result = convert_source(item[3], path="sample.py")
        converted.append((result.text, [f"{u.rule_id}: {u.action}" for u in result.unconverted]))
    ms_runs = run_all("mindspore", "sample", [(text, item[4]) for (item, _), (text, _) in zip(kept, converted)],
                      workers=args.workers, timeout=60)
    rows = []
    for (item, torch_result), (text, markers), ms_run in zip(kept, converted, ms_runs):
        api, form, dtype, source, _, origin = item
        verdict, problem = classify(torch_result, ms_run, markers, any(w in api for w in RANDOM_WORDS))
        if verdict == "silent" and RUNTIME_MARK in problem:
            verdict = "runtime"
        rows.append({"api": api, "form": form, "dtype": dtype, "origin": origin, "verdict": verdict,
                     "problem": problem[:240], "markers": markers[:2], "source": source, "converted": text})
    return {"rows": rows, "seconds": round(time.monotonic() - start)}


def summarize(rows: list[dict]) -> dict:
    out = {}
    for form in ("out", "out_wider", "inplace_function", "inplace_keyword", "all"):
        subset = [r for r in rows if form == "all" or r["form"] == form]
        out[form] = dict(Counter(r["verdict"] for r in subset), calls=len(subset),
                         apis=len({r["api"] for r in subset}))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-dtype", type=int, default=1)
    parser.add_argument("--scan", type=int, default=8)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    args = parser.parse_args()
    result = measure(args)
    summary = summarize(result["rows"])
    for form, row in summary.items():
        print(f"{form:10} {row}")
    by_api = defaultdict(Counter)
    for r in result["rows"]:
        by_api[r["api"]][r["verdict"]] += 1
    report = {"seconds": result["seconds"], "summary": summary,
              "apis": {api: dict(c) for api, c in sorted(by_api.items())},
              "silent": sorted({(r["api"], r["form"], r["dtype"], r["problem"][:200]) for r in result["rows"]
                                if r["verdict"] == "silent"})}
    args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"{result['seconds']} s; {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
