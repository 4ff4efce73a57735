"""Conversion measured on PyTorch's own test inputs: the OpInfo and ModuleInfo sample inputs of every
mapped API, over every CPU dtype PyTorch's tests list for it, in each call form real code uses.

    python bench/opinfo_samples.py [--per-dtype 2] [--scan 24] [--module-per-dtype 3] [--workers 1]
                                   [--only API ...] [--json OUT] [--silent OUT] [--marked OUT]

How it measures:
1. Mapped APIs: every API the knowledge base converts (the tables, the supplement, the in-place table).
2. For each OpInfo (torch.testing._internal.common_methods_invocations.op_db) whose function or Tensor
   method is mapped, and each dtype of its CPU dtypes that numpy can carry to both frameworks (bool,
   the ints, float16/32/64, complex; not bfloat16), `--per-dtype` samples spread over the first `--scan`
   reference inputs (the simple ones first, edge values and keyword arguments later). Each sample is
   written as source in every form PyTorch accepts (analysis/verify/samples.py): positional, PyTorch's
   keyword names, the method, sizes as ints / list / tuple, varargs. ModuleInfo samples (common_modules'
   module_db) become `layer = nn.X(...)`, weights set to the same values in both frameworks, eval mode.
3. PyTorch runs each program (forms it rejects are dropped); the converter converts it; MindSpore runs
   the conversion in worker processes (a temporary cwd; a hang or crash costs one call).
4. Each call is **same** (shape, dtype class and values within tolerance by dtype; random APIs: shape,
   dtype and, for 1000 draws or more, how they are distributed: analysis/verify/compare.py),
   **marked** (otherwise, and the converter left a marker), or **silent** (otherwise: reported
   converted, but MindSpore raises or computes something else).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_JSON = ROOT / "bench" / "opinfo_samples.json"
FAMILIES = ("torch", "torch.nn", "torch.nn.functional", "torch.Tensor")


def mapped_apis() -> set[str]:
    from analysis.knowledge.mapping import load_mapping
    from analysis.verify.run import converted_apis

    # a call that goes to a local helper (e.helper) is converted as much as one that goes to a MindSpore API
    out = {e.torch for e in load_mapping("classic") if e.primary or e.template or e.constant or e.helper}
    return out | set(converted_apis())


def collect(per_dtype: int, scan: int, module_per_dtype: int, only: set[str] | None, log=print) -> list:
    from analysis.verify.samples import module_samples, opinfo_samples

    mapped = mapped_apis()
    seen, out = set(), []
    for source in (opinfo_samples(mapped, per_dtype, scan, only), module_samples(mapped, module_per_dtype, only)):
        for sample in source:
            key = (sample.api, sample.source, sample.dtype)
            if key not in seen:  # a tuple given as a tuple is the positional form already
                seen.add(key)
                out.append(sample)
    log(f"{len(out)} sample calls of {len({s.api for s in out})} mapped APIs")
    return out


def classify(torch_result, ms_run, markers: list[str], random: bool) -> tuple[str, str]:
    from analysis.verify.compare import difference

    if ms_run is not None and ms_run[0]:
        problem = difference(torch_result, ms_run[1], values=not random, distribution=random)
        if not problem:
            return "same", ""
    else:
        problem = str(ms_run[1]) if ms_run is not None else "not run"
    return ("marked" if markers else "silent"), problem


def measure(args, log=print) -> dict:
    import torch

    from analysis.convert import convert_source
    from analysis.verify.generate import RANDOM_WORDS, family
    from analysis.verify.workers import _fill, execute, run_all

    start = time.monotonic()
    torch.set_num_threads(1)
    samples = collect(args.per_dtype, args.scan, args.module_per_dtype, set(args.only) if args.only else None, log)
    fill = _fill("torch")
    if args.raw:  # the converter without the sample verdicts: they are built from this measurement
        from analysis.verify.sample_verdicts import suspend

        suspend()
    kept = []
    for s in samples:
        ok, result = execute("torch", s.source, {}, fill, only=s.arrays)
        torch.set_default_dtype(torch.float32)
        if ok:
            kept.append((s, result))
    log(f"({time.monotonic() - start:.0f} s) {len(kept)} ran in PyTorch; converting")
    converted = []
    for s, _ in kept:
        result = convert_source(s.source, path="sample.py")
        converted.append((result.text, [f"{u.rule_id}: {u.action}" for u in result.unconverted]))
    log(f"({time.monotonic() - start:.0f} s) running MindSpore")
    ms_runs = run_all("mindspore", "sample", [(text, s.arrays) for (s, _), (text, _) in zip(kept, converted)],
                      workers=args.workers, timeout=60,
                      progress=lambda n: n % 1000 == 0 and log(f"  {n}/{len(kept)} ({time.monotonic() - start:.0f} s)"))
    lenient = [[]] * len(kept)
    if args.also_lenient:  # lenient mode only drops markers (the code is the same): convert again for its own
        import os

        os.environ["PORTING_STRICT_DTYPES"] = "0"
        lenient = [[u.rule_id for u in convert_source(s.source, path="sample.py").unconverted] for s, _ in kept]
        os.environ.pop("PORTING_STRICT_DTYPES")
    rows = []
    for (s, torch_result), (text, markers), ms_run, lenient_markers in zip(kept, converted, ms_runs, lenient):
        random = any(word in s.api for word in RANDOM_WORDS)
        verdict, problem = classify(torch_result, ms_run, markers, random)
        lenient_verdict = "silent" if verdict == "marked" and not lenient_markers else verdict
        rows.append({"api": s.api, "family": family(s.api), "form": s.form, "dtype": s.dtype,
                     "dtype_class": s.dtype_class, "origin": s.origin, "verdict": verdict, "lenient": lenient_verdict,
                     "problem": problem[:240], "markers": markers[:2], "source": s.source, "converted": text})
    return {"rows": rows, "seconds": round(time.monotonic() - start), "generated": len(samples)}


def rates(rows: list[dict]) -> dict:
    counts = Counter(r["verdict"] for r in rows)
    n = len(rows)
    return {"calls": n, **{k: counts.get(k, 0) for k in ("same", "marked", "silent")},
            "same_rate": round(counts.get("same", 0) / n, 3) if n else None,
            "silent_rate": round(counts.get("silent", 0) / n, 3) if n else None}


def summarize(rows: list[dict]) -> dict:
    out = {"family": {}, "form": {}, "dtype_class": {}}
    for fam in (*FAMILIES, "all"):
        out["family"][fam] = rates([r for r in rows if fam == "all" or r["family"] == fam])
    for key in ("form", "dtype_class"):
        for value in sorted({r[key] for r in rows}):
            out[key][value] = rates([r for r in rows if r[key] == value])
    out["apis"] = len({r["api"] for r in rows})
    return out


def write_calls(rows: list[dict], verdict: str, path: Path) -> None:
    """The calls of one verdict ('silent' or 'marked'), each with PyTorch's source and the conversion."""
    lines = [f"# {verdict} conversions of PyTorch's OpInfo/ModuleInfo samples; written by bench/opinfo_samples.py", ""]
    for r in sorted((r for r in rows if r["verdict"] == verdict), key=lambda r: (r["api"], r["form"], r["dtype"])):
        lines.append(f"== {r['api']}  form={r['form']}  dtype={r['dtype']}  [{r['origin']}]  {r['problem']}")
        lines += ["  torch:     " + ln for ln in r["source"].splitlines()[1:]]
        lines += ["  converted: " + ln for ln in r["converted"].splitlines()]
        lines.append("")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-dtype", type=int, default=2, help="OpInfo samples per (op, dtype)")
    parser.add_argument("--scan", type=int, default=24, help="reference inputs read per (op, dtype)")
    parser.add_argument("--module-per-dtype", type=int, default=3, help="ModuleInfo inputs per (layer, dtype)")
    parser.add_argument("--workers", type=int, default=1, help="MindSpore worker processes")
    parser.add_argument("--only", nargs="*", default=None, metavar="API")
    parser.add_argument("--json", type=Path, default=None,
                        help=f"where the report goes (default {DEFAULT_JSON.relative_to(ROOT)}; with --only, none: "
                             "a subset must not replace the full figures)")
    parser.add_argument("--silent", type=Path, default=Path("/tmp/opinfo-silent.txt"))
    parser.add_argument("--marked", type=Path, default=None, help="also list the marked calls, with their markers")
    parser.add_argument("--lenient", action="store_true",
                        help="the converter's lenient mode (PORTING_STRICT_DTYPES=0): a form that differed on some "
                             "dtype class is marked only where the code says the call's dtype is that class")
    parser.add_argument("--also-lenient", action="store_true",
                        help="also classify with the markers of the converter's lenient mode")
    parser.add_argument("--raw", action="store_true", help="convert with no verdicts consulted (implied by --verdicts)")
    parser.add_argument("--verdicts", action="store_true",
                        help="write the verdicts per (API, form, dtype class) into the knowledge base")
    args = parser.parse_args()
    args.raw = args.raw or args.verdicts
    if args.lenient:
        import os

        os.environ["PORTING_STRICT_DTYPES"] = "0"
    result = measure(args)
    summary = summarize(result["rows"])
    for key in ("family", "form", "dtype_class"):
        for value, row in summary[key].items():
            print(f"{key:12} {value:22} {row}")
    write_calls(result["rows"], "silent", args.silent)
    if args.marked:
        write_calls(result["rows"], "marked", args.marked)
    import mindspore
    import torch

    silent = sorted({(r["api"], r["form"], r["dtype"], r["problem"][:160]) for r in result["rows"]
                     if r["verdict"] == "silent"})
    report = {"torch": torch.__version__, "mindspore": mindspore.__version__, "seconds": result["seconds"],
              "settings": {"lenient": args.lenient, "per_dtype": args.per_dtype, "scan": args.scan, "module_per_dtype": args.module_per_dtype,
                           "workers": args.workers},
              "summary": summary, "silent": silent}
    if args.also_lenient:
        report["summary_lenient"] = summarize([{**r, "verdict": r["lenient"]} for r in result["rows"]])
        for fam, row in report["summary_lenient"]["family"].items():
            print(f"lenient {fam:22} {row}")
    if args.verdicts:
        from analysis.verify.sample_verdicts import write

        print(f"verdicts written to {write(result['rows'], {'torch': torch.__version__, 'mindspore': mindspore.__version__}, set(args.only) if args.only else None)}")
        return 0  # a raw measurement is no figure of the product
    out = args.json or (None if args.only else DEFAULT_JSON)
    if out is not None:
        out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"{result['seconds']} s; silently wrong calls listed in {args.silent}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
