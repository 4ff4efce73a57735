"""Conversion measured on calls written by others: the `>>>` examples in the docstrings of the
installed torch (PyTorch's own authors), converted by this project and run in both frameworks.

    python bench/docstring_examples.py [--torch-dir DIR] [--limit N] [--workers 2]
                                       [--json OUT] [--silent OUT] [--only WHERE ... | --only silent]

How it measures:
1. Every string literal in torch's .py files that holds `>>>` lines is an example block (the
   whole block, so its setup lines define the inputs); duplicates are dropped.
2. Random constructors (torch.randn, rand, randint, randperm, normal, empty and their _like forms)
   and in-place random fills (x.uniform_, normal_, random_) become torch.tensor(<fixed values>)
   (a hash-like sequence, so matrices of it have full rank), so both frameworks see the same
   inputs; each top-level statement is followed by a record of what it assigned (a bare
   expression or print(x) is recorded as its value).
3. The analyzer runs over the block: every call it maps to a MindSpore API (the classic table and
   the converter's renames; not the wrappers of step 2, not a class named in an annotation) is a
   *mapped call*.
4. PyTorch runs the block statement by statement (a failing statement does not stop the rest);
   the converter converts it; MindSpore runs the conversion the same way.
5. Each mapped call whose statement ran in PyTorch is one of: **same values** (its statement
   records the same shapes, dtype classes and values, within tolerances by dtype, the absolute
   one scaled by the tensor's largest magnitude; random APIs compare shape, dtype and, for 1000
   draws or more, how they are distributed (analysis/verify/compare.py); values computed through a
   layer whose weights start random (Linear, Conv, RNN/LSTM/GRU, Embedding...) shape and dtype only); **marked** (otherwise, and the converter left a marker on its statement, the analyzer's
   status for it is manual / review / unresolved, or another use on the same statement is
   manual); **silently wrong** (otherwise: reported converted, but the statement raises or
   computes something else).
6. Blocked statements. A silently wrong call whose statement reads a name that an earlier
   statement should have set (or changed in place: a name passed to a call, the receiver of an
   in-place method) but did not (that statement ran in PyTorch, and after conversion it
   raised, leaving the name undefined or holding an older value, or it was left marked, so the
   name holds a PyTorch object) takes the verdict of that earlier statement, followed back to the
   first statement of the chain: *marked* when that statement is marked (by the converter or the
   analyzer); *blocked* when its failure is already counted silent on a mapped call there (blocked
   calls are listed but left out of the mapped calls and the rates, so one failure counts once);
   silent otherwise (no mapped call there: this is the only place the failure is counted).
"""
from __future__ import annotations

import argparse
import ast
import builtins
import json
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.verify.blocks import chunk_of_line, chunks, extract, prepare, synthetic_calls  # noqa: E402
from analysis.verify.compare import difference  # noqa: E402
from analysis.verify.generate import RANDOM_WORDS, family  # noqa: E402
from analysis.verify.workers import run_all  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MAPPING_RULES = ("MS-API-MAPPED", "MS-API-DIFF", "MS-API-BROKEN")
LEFT_FOR_A_PERSON = ("manual", "review", "unresolved")
DEFAULT_JSON = ROOT / "bench" / "docstring_examples.json"


def default_torch_dir() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("torch")
    return Path(spec.origin).parent


def blocks(torch_dir: Path) -> list[tuple[str, str]]:
    """(where, block) for every distinct example block in torch's sources."""
    seen, out = set(), []
    for path in sorted(torch_dir.rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if ">>>" not in text:
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and ">>>" in node.value:
                block = extract(node.value)
                if block and block not in seen:
                    seen.add(block)
                    out.append((f"{path.relative_to(torch_dir.parent)}:{node.lineno}", block))
    return out


def mapped_calls(prepared: str, manual: set[int] | None = None) -> list[dict]:
    """The analyzer's mapped uses in a prepared block, with their chunk and status (the chunks where the
    analyzer left any use for a person go into `manual`)."""
    from analysis.scan import analyze_source

    report = analyze_source(prepared, "example.py")
    synthetic = synthetic_calls(prepared)
    chunk_of = chunk_of_line(prepared)
    # calls only (a class named in an annotation is no call), by their exact span
    spans = {(n.lineno, n.col_offset, n.end_lineno, n.end_col_offset)
             for n in ast.walk(ast.parse(prepared)) if isinstance(n, ast.Call)}
    manual_chunks = {chunk_of.get(f.line) for f in report.findings if f.status.value == "manual"}
    if manual is not None:
        manual |= manual_chunks
    calls = []
    for f in report.findings:
        if f.rule_id not in MAPPING_RULES or (f.line, f.column, f.end_line, f.end_column) in synthetic \
                or f.line not in chunk_of:
            continue
        if (f.line, f.column, f.end_line, f.end_column) not in spans:
            continue
        calls.append({"api": f.torch_api, "line": f.line, "chunk": chunk_of[f.line], "status": f.status.value,
                      "rule": f.rule_id, "message": f.message,
                      # another use on the same statement left for a person marks it too
                      "statement_marked": chunk_of[f.line] in manual_chunks})
    return calls


# Layers whose weights start random (differently in each framework): values computed through them
# compare by shape and dtype only, as random APIs do
RANDOM_INIT = re.compile(r"\bnn\.\w*(Linear|Conv\w*|RNN\w*|LSTM\w*|GRU\w*|Embedding\w*|Transformer\w*|"
                         r"MultiheadAttention|PReLU)\(")


def weight_dependent(prepared: str) -> set[int]:
    """Chunks whose values depend on a layer with random initial weights (through the names they read)."""
    binds, reads = bound_names(prepared), read_names(prepared)
    texts = dict(chunks(prepared))
    tainted_names: set[str] = set()
    out = set()
    for chunk in sorted(binds.keys() | reads.keys()):
        if RANDOM_INIT.search(texts.get(chunk, "")) or reads.get(chunk, set()) & tainted_names:
            out.add(chunk)
            tainted_names |= binds.get(chunk, set())
    return out


def classify(call: dict, torch_result, ms_result, marked_chunks: set[int], random_chunks: set[int] = frozenset()
             ) -> tuple[str, str]:
    drawn = any(word in call["api"] for word in RANDOM_WORDS)  # the same distribution, other values
    random = drawn or call["chunk"] in random_chunks  # or weights PyTorch and MindSpore initialise differently
    if ms_result is not None and ms_result[0] == "ok":
        problem = ""
        for name, value in torch_result[1].items():
            if name not in ms_result[1]:
                problem = f"{name}: not recorded"
                break
            problem = difference(value, ms_result[1][name], values=not random, distribution=drawn)
            if problem:
                problem = f"{name}: {problem}"
                break
        if not problem:
            return "same", ""
    else:
        problem = ms_result[1] if ms_result is not None else "the statement did not run"
    if call["chunk"] in marked_chunks or call["status"] in LEFT_FOR_A_PERSON or call["statement_marked"]:
        return "marked", problem
    return "silent", problem


def bound_names(prepared: str) -> dict[int, set[str]]:
    """Chunk -> the names its statement binds (assignment, def, class, import, for/with targets)."""
    chunk_of = chunk_of_line(prepared)
    out: dict[int, set[str]] = defaultdict(set)
    for node in ast.parse(prepared).body:
        chunk = chunk_of.get(node.lineno)
        if chunk is None:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out[chunk].add(node.name)
            continue
        for leaf in ast.walk(node):
            if isinstance(leaf, ast.Name) and isinstance(leaf.ctx, ast.Store):
                out[chunk].add(leaf.id)
            elif isinstance(leaf, ast.alias):
                out[chunk].add((leaf.asname or leaf.name).split(".")[0])
            elif isinstance(leaf, (ast.FunctionDef, ast.ClassDef)):
                out[chunk].add(leaf.name)
        out[chunk] |= mutated_names(node)
    return out


def mutated_names(node: ast.stmt) -> set[str]:
    """Names a statement's call may change in place: the names passed to a function (numpy_sin_(x),
    f(x, out=buf), its result kept or not) and the receiver of an in-place method (x.add_(1))."""
    value = node.value if isinstance(node, (ast.Expr, ast.Assign)) else None
    if not isinstance(value, ast.Call):
        return set()
    func = value.func
    if isinstance(func, ast.Attribute):
        return {func.value.id} if func.attr.endswith("_") and isinstance(func.value, ast.Name) else set()
    if isinstance(func, ast.Name) and hasattr(builtins, func.id):
        return set()  # print(x), len(x): builtins change nothing
    return {arg.id for arg in [*value.args, *(k.value for k in value.keywords)] if isinstance(arg, ast.Name)}


def read_names(prepared: str) -> dict[int, set[str]]:
    """Chunk -> the names its statement reads."""
    chunk_of = chunk_of_line(prepared)
    out: dict[int, set[str]] = defaultdict(set)
    for node in ast.parse(prepared).body:
        chunk = chunk_of.get(node.lineno)
        if chunk is not None:
            out[chunk] |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return out


def breaker(chunk: int, tres: dict, mres: dict, binds: dict[int, set[str]], reads: dict[int, set[str]],
            marked: set[int]) -> int | None:
    """The earlier statement that ran in PyTorch but, after conversion, failed (leaving a name this chunk
    reads undefined or holding an older value) or was left marked (its names hold PyTorch objects),
    followed back to the first one of the chain (None: the chunk fails on its own)."""
    found = None
    while True:
        sources = []
        for name in reads.get(chunk, ()):
            binders = [c for c in binds if c < chunk and name in binds[c]]
            if binders:
                sources.append(max(binders))
        broken = [c for c in sources if tres.get(c, ("error",))[0] in ("ok", "unrecorded")  # it ran in PyTorch
                  and (mres.get(c, ("ok",))[0] != "ok" or c in marked)]
        if not broken:
            return found
        found = chunk = min(broken)
        if mres.get(chunk, ("ok",))[0] == "ok":
            return found  # a marked statement that ran: the chain stops at its marker


def attribute_blocked(rows: list[dict], item: dict, tres: dict, mres: dict) -> list[dict]:
    """A silently wrong call whose statement reads a name that an earlier statement should have set
    but did not (that statement ran in PyTorch, and after conversion it failed, or it was left marked
    and so holds PyTorch objects) is *blocked*: it takes the verdict of that statement (followed back
    to the first one of the chain). Marked there: marked. Counted silent there already: `blocked`,
    left out of the rates so one failure is counted once. No mapped call and no marker there: silent,
    the only place that failure is counted."""
    binds, reads = bound_names(item["prepared"]), read_names(item["prepared"])
    by_chunk = defaultdict(list)
    for row in rows:
        by_chunk[row["chunk"]].append(row["verdict"])
    for row in rows:
        if row["verdict"] != "silent":
            continue  # a marker on its own statement stays the verdict
        marked = item["marked_chunks"] | item["manual"]
        source = breaker(row["chunk"], tres, mres, binds, reads, marked)
        if source is None:
            continue
        result = mres.get(source, ("error", "the statement did not run"))
        cause = "marked" if result[0] == "ok" else result[1]
        row["problem"] = f"blocked by statement {source} ({cause[:150]}); its own: {row['problem'][:100]}"
        if source in marked or "marked" in by_chunk.get(source, ()):
            row["verdict"] = "marked"
        elif "silent" in by_chunk.get(source, ()):
            row["verdict"] = "blocked"
        else:
            row["verdict"] = "silent"
    return rows


def measure(torch_dir: Path, limit: int | None, workers: int, log=print, only: list[str] | None = None) -> dict:
    from analysis.convert import convert_source

    start = time.monotonic()
    found = blocks(torch_dir)
    if only:
        found = [(where, block) for where, block in found
                 if any(where.endswith(w) or f"{w}:" in where for w in only)]
    log(f"{len(found)} example blocks in {torch_dir} ({time.monotonic() - start:.0f} s)")
    items = []
    for where, block in found:
        prepared = prepare(block)
        if prepared is None:
            continue
        manual: set[int] = set()
        calls = mapped_calls(prepared, manual)
        if calls:
            items.append({"where": where, "block": block, "prepared": prepared, "calls": calls, "manual": manual})
    if limit:
        items = items[:limit]
    log(f"({time.monotonic() - start:.0f} s) {len(items)} blocks with mapped calls ({sum(len(i['calls']) for i in items)} calls)")
    for item in items:
        result = convert_source(item["prepared"], path="example.py")
        item["converted"] = result.text
        lines = chunk_of_line(item["prepared"])
        item["marked_chunks"] = {lines.get(u.line, -2) for u in result.unconverted}
        item["markers"] = [f"{u.line}: {u.rule_id}: {u.action}" for u in result.unconverted]
    log(f"converted in {time.monotonic() - start:.0f} s; running PyTorch")
    torch_runs = run_all("torch", "chunks", [i["prepared"] for i in items], workers=workers, timeout=60)
    log(f"running MindSpore ({time.monotonic() - start:.0f} s)")
    ms_runs = run_all("mindspore", "chunks", [i["converted"] for i in items], workers=workers, timeout=90)
    # a timeout on a busy machine (a large conv3d, a worker restarting) is no verdict: once more, alone and longer
    again = [n for n, run in enumerate(ms_runs) if run is not None and not run[0] and str(run[1]).startswith("Timeout")]
    if again:
        log(f"{len(again)} MindSpore block(s) timed out: running them again with more time")
        for n, run in zip(again, run_all("mindspore", "chunks", [items[n]["converted"] for n in again], workers=1,
                                         timeout=300)):
            ms_runs[n] = run
    rows = []
    for item, torch_run, ms_run in zip(items, torch_runs, ms_runs):
        tok, tres = torch_run or (False, {})  # None: the worker gave no answer for this block
        mok, mres = ms_run or (False, {})
        tres = tres if tok else {}
        mres = mres if mok else {}
        own = []
        random_chunks = weight_dependent(item["prepared"])
        for call in item["calls"]:
            torch_result = tres.get(call["chunk"])
            if torch_result is None or torch_result[0] != "ok":
                continue  # PyTorch's own example does not run here (CUDA, missing inputs...): not measured
            verdict, problem = classify(call, torch_result, mres.get(call["chunk"]), item["marked_chunks"],
                                        random_chunks)
            own.append({**call, "family": family(call["api"]), "where": item["where"], "verdict": verdict,
                        "problem": problem, "markers": item["markers"], "prepared": item["prepared"],
                        "converted": item["converted"]})
        rows += attribute_blocked(own, item, tres, mres)
    return {"rows": rows, "seconds": round(time.monotonic() - start), "blocks": len(items)}


def summarize(rows: list[dict]) -> dict:
    out = {}
    for fam in ("torch", "torch.nn", "torch.nn.functional", "torch.Tensor", "all"):
        subset = [r for r in rows if fam == "all" or r["family"] == fam]
        counts = Counter(r["verdict"] for r in subset)
        n = len(subset) - counts.get("blocked", 0)  # a blocked call's failure is counted where it started
        out[fam] = {"calls": n, **{k: counts.get(k, 0) for k in ("same", "marked", "silent", "blocked")},
                    "same_rate": round(counts.get("same", 0) / n, 3) if n else None,
                    "silent_rate": round(counts.get("silent", 0) / n, 3) if n else None}
    return out


def write_silent(rows: list[dict], path: Path) -> None:
    by_api = defaultdict(list)
    for r in rows:
        if r["verdict"] == "silent":
            by_api[r["api"]].append(r)
    lines = [f"# silently wrong conversions of torch docstring examples ({sum(map(len, by_api.values()))} calls, "
             f"{len(by_api)} APIs); written by bench/docstring_examples.py", ""]
    for api in sorted(by_api):
        for r in by_api[api]:
            lines.append(f"== {api}  [{r['where']}]  status={r['status']}  {r['problem']}")
            body = [ln for ln in r["prepared"].splitlines() if not ln.startswith("_record(")][3:]
            conv = [ln for ln in r["converted"].splitlines() if not ln.startswith("_record(")]
            lines += ["  torch:     " + ln for ln in body[:12]]
            lines += ["  converted: " + ln for ln in conv[:14]]
            lines.append("")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_marked(rows: list[dict], path: Path) -> None:
    """Every marked call with the markers on its block and what differed: the work list for #15."""
    marked = sorted((r for r in rows if r["verdict"] == "marked"), key=lambda r: (r["api"], r["where"]))
    lines = [f"# marked calls of torch docstring examples ({len(marked)}); written by bench/docstring_examples.py", ""]
    for r in marked:
        lines.append(f"== {r['api']}  [{r['where']}]  status={r['status']}  {r['problem'][:300]}")
        lines += ["  marker: " + m for m in r["markers"]]
        lines.append("")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--torch-dir", type=Path, default=None)
    parser.add_argument("--limit", type=int, default=None, help="only the first N blocks with mapped calls")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=None, metavar="WHERE",
                        help="only the blocks at these locations (path:line matched at the end, e.g. "
                             "linalg/__init__.py:97, or a whole file: linalg/__init__.py); 'silent' takes the silent list of bench/docstring_examples.json")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON,
                        help="summary (per family) and every silently wrong call")
    parser.add_argument("--silent", type=Path, default=Path("/tmp/verify-silent-wrong.txt"))
    parser.add_argument("--marked", type=Path, default=None, help="also list every marked call, with its markers")
    args = parser.parse_args()
    only = args.only
    if only is not None and "silent" in only:
        only = [w for w in only if w != "silent"]
        only += sorted({entry[1] for entry in json.loads(DEFAULT_JSON.read_text(encoding="utf-8"))["silent"]})
    result = measure(args.torch_dir or default_torch_dir(), args.limit, args.workers, only=only)
    summary = summarize(result["rows"])
    for fam, row in summary.items():
        print(f"{fam:22} {row}")
    write_silent(result["rows"], args.silent)
    if args.marked:
        write_marked(result["rows"], args.marked)
    import torch
    import mindspore

    report = {"torch": torch.__version__, "mindspore": mindspore.__version__, "blocks": result["blocks"],
              "seconds": result["seconds"], "summary": summary,
              "silent": sorted({(r["api"], r["where"], r["problem"][:200]) for r in result["rows"]
                                if r["verdict"] == "silent"}),
              "blocked": sorted({(r["api"], r["where"], r["problem"][:200]) for r in result["rows"]
                                 if r["verdict"] == "blocked"})}
    args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"{result['seconds']} s; silently wrong calls listed in {args.silent}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
