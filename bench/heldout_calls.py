"""Conversion measured on calls we never tuned on: the per-API tests of another converter,
PaddlePaddle/PaConvert (a PyTorch->Paddle converter), whose `tests/test_<api>.py` files each hold
PyTorch snippets and the names of the variables its test compares.

    python bench/heldout_calls.py [--half dev|test|test2|...|test7] [--key NAME] [--tests-dir DIR] [--files N]
                                  [--workers 2]
                                  [--json OUT] [--silent OUT]

The test files are public code: they are kept outside the repository and only verdicts are written here,
never their code. Three parts, each a folder of files fetched in the sample's order (below):
- dev (environment HELDOUT_DIR, else /work/heldout/paconvert/tests): the first 184 files (candidates 1-216
  of the shuffled list), the half the converter's fixes were made against;
- test (environment HELDOUT_TEST_DIR, else /work/heldout/paconvert/tests_test): the files that come next in
  the same order (121 files, candidates 217-353), fetched after the fixes and measured once, with nothing
  changed for them;
- test2 (environment HELDOUT_TEST2_DIR, else /work/heldout/paconvert/tests_test2): the next 120 files in the same
  order (candidates 354-496), fetched at session 11's start, before that session's converter changes, and
  measured at its start (key "test2_start") and again at its end (--key test2_end, or --json to a temporary
  file): a fresh unseen half, as the test half's findings have since been reported.
- test3 (environment HELDOUT_TEST3_DIR, else /work/heldout/paconvert/tests_test3): the next 120 files in
  the same order (from candidate 497 on), fetched at session 12's start, after test2's failures had been
  reported; measured on session 12's starting code (key "test3_start", from a checkout of that commit) and
  at its end ("test3_end").
- test4 (environment HELDOUT_TEST4_DIR, else /work/heldout/paconvert/tests_test4): the next 120 files in
  the same order (candidates 636-788), fetched at session 13's start, after test3's failures had been
  reported; measured then ("test4_start", on the commit that fixed the previous stop's CI failures) and
  at the session's end ("test4_end").
- test5 (environment HELDOUT_TEST5_DIR, else /work/heldout/paconvert/tests_test5): the next 120 files in
  the same order (candidates 789 on), fetched at session 14's start, after test4's failures had been
  reported; measured then ("test5_start", before any converter change of the session) and at its end.
- test6 (environment HELDOUT_TEST6_DIR, else /work/heldout/paconvert/tests_test6): the next 120 files in
  the same order (candidates 930-1071), fetched at session 15's start, after test5's failures had been
  reported; measured on that session's starting code ("test6_start", from a checkout of its first commit)
  and at its end.
- test7 (environment HELDOUT_TEST7_DIR, else /work/heldout/paconvert/tests_test7): the next 120 files in
  the same order (candidates 1072-1226), fetched at session 16's start, after test6's failures had been
  reported; measured on that session's starting code ("test7_start", from a checkout of its first commit)
  and at its end.
The JSON keeps one report per key (its "halves" key; the key is the half's name unless --key names another,
e.g. test2_start); a run replaces that key's report only.

How it measures:
1. The sample (bench/heldout_sample.py): torch's documented public APIs (torch, torch.Tensor, torch.nn
   layers, torch.nn.functional, torch.linalg, torch.fft, torch.special), shuffled with a fixed seed; each is
   mapped to PaConvert's file name and the files were fetched in that order (a name with no file is
   skipped). The first `--files` files present in the folder, in that order, are the sample.
2. Each test file is parsed with `ast` (never imported or run): per test function, the snippet
   (`pytorch_code = textwrap.dedent(<string>)`), the names it compares (`obj.run(pytorch_code, [...])`)
   and check_value=False. A loop over a literal list around an f-string snippet is unrolled.
3. The snippet is instrumented like a docstring example (analysis/verify/blocks.py: random constructors
   give fixed values in both frameworks), with one last record of the compared names. PyTorch runs it;
   the converter converts it (default mode, and lenient mode: PORTING_STRICT_DTYPES=0); MindSpore runs
   the conversion; both in worker processes with a timeout, in a temporary cwd.
4. Verdict per case: **excluded** (PyTorch itself raised, or the names were not all set); **same** (every
   compared name has the same shape, dtype class and values within tolerances by dtype:
   analysis/verify/compare.py; by shape and dtype only where the values are random: a random API, a
   layer whose weights start random, or the test's own check_value=False); **marked** (otherwise, and the
   converter left a marker in the snippet, or the analyzer leaves the case's API call for a person:
   manual / review / unresolved); **silent** (otherwise: reported converted, but the conversion raises
   or computes something else). Draws of one number per channel (Dropout2d) compare by shape and dtype:
   the distribution test assumes one independent draw per element.
5. Three summaries: default, lenient, and converted_text_only, where a case marked only in the
   analyzer's report (no marker in the converted code) counts as silent: what a reader of the converted
   file alone is told.

The test files in the folder are transcriptions of PaConvert's: each test function's snippet and its
obj.run(...) arguments, in PaConvert's layout (licence headers, docstrings and decorators dropped; a
helper such as run_torch_case(obj, snippet, names) written as the plain form it stands for).
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.docstring_examples import LEFT_FOR_A_PERSON, RANDOM_INIT  # noqa: E402
from bench.heldout_sample import SEED, candidates, test_file  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_JSON = ROOT / "bench" / "heldout_calls.json"
HALF_DIRS = {"dev": Path(os.environ.get("HELDOUT_DIR", "/work/heldout/paconvert/tests")),
             "test": Path(os.environ.get("HELDOUT_TEST_DIR", "/work/heldout/paconvert/tests_test")),
             "test2": Path(os.environ.get("HELDOUT_TEST2_DIR", "/work/heldout/paconvert/tests_test2")),
             "test3": Path(os.environ.get("HELDOUT_TEST3_DIR", "/work/heldout/paconvert/tests_test3")),
             "test4": Path(os.environ.get("HELDOUT_TEST4_DIR", "/work/heldout/paconvert/tests_test4")),
             "test5": Path(os.environ.get("HELDOUT_TEST5_DIR", "/work/heldout/paconvert/tests_test5")),
             "test6": Path(os.environ.get("HELDOUT_TEST6_DIR", "/work/heldout/paconvert/tests_test6")),
             "test7": Path(os.environ.get("HELDOUT_TEST7_DIR", "/work/heldout/paconvert/tests_test7"))}
FAMILIES = ("torch", "torch.Tensor", "torch.nn", "torch.nn.functional", "others")
FINAL = 10 ** 6  # the chunk number of the last record: the compared names' final values
ANALYZER_ONLY = "no marker in the code, the analyzer says "  # a reason's start: marked in the report only


# --- reading PaConvert's test files (never executed) -------------------------------------------------

def _api_of(tree: ast.Module) -> str | None:
    """The API a test file is about: `obj = APIBase("torch.x")` (or a subclass of it)."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and node.value.args \
                and isinstance(node.value.args[0], ast.Constant) and isinstance(node.value.args[0].value, str) \
                and node.value.args[0].value.startswith("torch"):
            return node.value.args[0].value
    return None


def _snippet(value: ast.expr, names: dict) -> str | None:
    """The text of `textwrap.dedent(<str or f-string>)`; an f-string's fields are filled from `names`."""
    import textwrap

    if isinstance(value, ast.Call) and value.args:
        value = value.args[0]
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return textwrap.dedent(value.value)
    if isinstance(value, ast.JoinedStr):
        parts = []
        for part in value.values:
            if isinstance(part, ast.Constant):
                parts.append(str(part.value))
            elif isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Name) \
                    and part.value.id in names:
                parts.append(str(names[part.value.id]))
            else:
                return None
        return textwrap.dedent("".join(parts))
    return None


def _run_options(call: ast.Call) -> dict | None:
    """obj.run(pytorch_code, ["a", "b"], check_value=False, ...) -> its names and options."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr in ("run", "run_bool")):
        return None
    if len(call.args) < 2:  # obj.run(pytorch_code): the test compares nothing
        return {"names": [], "check_value": True, "unsupport": False}
    try:
        names = ast.literal_eval(call.args[1])
    except ValueError:
        return None
    options = {}
    for keyword in call.keywords:
        try:
            options[keyword.arg] = ast.literal_eval(keyword.value)
        except ValueError:
            continue
    return {"names": list(names), "check_value": options.get("check_value", True) is not False,
            "unsupport": bool(options.get("unsupport", False))}


def _walk(statements: list, names: dict, out: list, state: dict) -> None:
    for node in statements:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target = node.targets[0].id
            if target == "pytorch_code":
                state["code"] = _snippet(node.value, names)
            else:
                try:
                    names[target] = ast.literal_eval(node.value)
                except ValueError:
                    pass
        elif isinstance(node, ast.For) and isinstance(node.target, ast.Name) and isinstance(node.iter, ast.Name) \
                and isinstance(names.get(node.iter.id), (list, tuple)):
            for value in names[node.iter.id]:  # unrolled: one case per value
                _walk(node.body, {**names, node.target.id: value}, out, {**state, "suffix": f"[{value}]"})
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            options = _run_options(node.value)
            if options and state.get("code"):
                out.append({"code": state["code"], "suffix": state.get("suffix", ""), **options})


def read_cases(path: Path, sampled: str | None = None) -> list[dict]:
    """The cases of one test file: api, test (function name, a loop value in brackets, #n for a second
    run in one function), code, names, check_value, unsupport."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    api = _api_of(tree)
    if sampled and api != sampled:
        api = sampled  # a header copied from another file (test_bucketize.py names torch.sgn): the sampled API
    cases = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or "test" not in node.name:
            continue
        found: list = []
        _walk(node.body, {}, found, {})
        seen = Counter()
        for case in found:
            test = node.name + case.pop("suffix")
            seen[test] += 1
            cases.append({"api": api, "test": test + (f"#{seen[test]}" if seen[test] > 1 else ""),
                          "file": path.name, **case})
    return cases


def sample_files(tests_dir: Path, limit: int | None) -> tuple[list[tuple[Path, str]], int]:
    """The test files of the sample, in the sample's order (the first `limit` present), and the rank in
    the shuffled list of the last one taken."""
    files, _, last = sample_ranks(tests_dir, limit)
    return files, last


def sample_ranks(tests_dir: Path, limit: int | None) -> tuple[list[tuple[Path, str]], int, int]:
    """sample_files() with the rank of the first file taken too (a later half starts past 1)."""
    present = {p.name: p for p in tests_dir.glob("test_*.py")}
    files, first, last = [], 0, 0
    for rank, api in enumerate(candidates(), 1):
        name = Path(test_file(api)).name
        if name in present and not (limit and len(files) == limit):
            files.append((present[name], api))
            first, last = first or rank, rank
    return files, first, last


# --- running and judging ------------------------------------------------------------------------------

def family(api: str) -> str:
    for prefix in ("torch.nn.functional", "torch.Tensor", "torch.nn"):
        if api.startswith(prefix + "."):
            return prefix
    return "torch" if api.count(".") == 1 else "others"  # torch.linalg, torch.fft, torch.special...


# draws of one number per channel (a whole feature map kept or zeroed): their elements are not independent
# draws, so the distribution test (analysis/verify/compare.py, one draw per element) does not apply to them
CHANNEL_DRAWS = re.compile(r"(?i)dropout[123]d|feature_?alpha")


def random_api(api: str) -> bool:
    from analysis.verify.generate import RANDOM_WORDS

    name = api.rsplit(".", 1)[-1]
    return any(word in name for word in RANDOM_WORDS) and not name.startswith("normalize")


def instrument(code: str, names: list[str], api: str = "") -> str | None:
    """The snippet as numbered chunks (blocks.prepare) plus a last record of the compared names; random
    constructors get fixed values, except when the case's own API is one of them (torch.rand's tests)."""
    from analysis.verify.blocks import RANDOM_CONSTRUCTORS, prepare

    prepared = prepare(code, keep_randoms=api.rsplit(".", 1)[-1] in RANDOM_CONSTRUCTORS)
    if prepared is None:
        return None
    return prepared + f"_record({FINAL}" + "".join(f", {n}={n}" for n in names) + ")\n"


def left_for_a_person(prepared: str, api: str) -> str:
    """The analyzer's status for the case's API when it leaves the call for a person ('' otherwise)."""
    from analysis.scan import analyze_source

    try:
        report = analyze_source(prepared, "case.py")
    except Exception:
        return ""
    for finding in report.findings:
        if finding.torch_api == api and finding.status.value in LEFT_FOR_A_PERSON:
            return finding.status.value
    return ""


def convert(prepared: str, lenient: bool) -> tuple[str, list[str]]:
    from analysis.convert import convert_source
    from analysis.verify.sample_verdicts import lenient_mode

    if lenient:
        with lenient_mode():
            result = convert_source(prepared, path="case.py")
    else:
        result = convert_source(prepared, path="case.py")
    return result.text, [f"{u.line}: {u.rule_id}: {u.action}"[:160] for u in result.unconverted]


def first_failure(tres: dict, mres: dict) -> str:
    """The first statement that ran in PyTorch but raised after conversion (its error), or ''."""
    for chunk in sorted(tres):
        if chunk != FINAL and tres[chunk][0] in ("ok", "unrecorded") and mres.get(chunk, ("ok",))[0] == "error":
            return f"statement {chunk}: {mres[chunk][1]}"
    return ""


def judge(case: dict, tres: dict, mres: dict | None, markers: list[str], person: str) -> tuple[str, str]:
    from analysis.verify.compare import difference

    if not case["names"]:
        return "excluded", "the test compares nothing"
    final = tres.get(FINAL)
    if final is None or final[0] != "ok":
        why = first_failure_torch(tres)
        return "excluded", f"PyTorch: {why}"[:200]
    drawn = random_api(case["api"])
    values = case["check_value"] and not drawn and not RANDOM_INIT.search(case["prepared"])
    problem = ""
    if mres is None:
        problem = "the conversion did not run"
    elif mres.get(FINAL, ("error", ""))[0] != "ok":
        problem = first_failure(tres, mres) or str(mres.get(FINAL, ("error", "not recorded"))[1])
    else:
        for name, value in final[1].items():
            gap = difference(value, mres[FINAL][1].get(name), values=values,
                             distribution=drawn and not CHANNEL_DRAWS.search(case["api"]))
            if gap:
                problem = f"{name}: {gap}"
                break
    if not problem:
        return "same", ""
    if markers or person:
        return "marked", problem if markers else f"{ANALYZER_ONLY}{person}; {problem}"
    return "silent", problem


def first_failure_torch(tres: dict) -> str:
    for chunk in sorted(tres):
        if tres[chunk][0] == "error":
            return str(tres[chunk][1])
    return "the compared names were not all set"


def measure(tests_dir: Path, limit: int | None, workers: int, log=print) -> dict:
    from analysis.verify.workers import run_all

    start = time.monotonic()
    files, first, looked = sample_ranks(tests_dir, limit)
    cases = [case for path, api in files for case in read_cases(path, api)]
    log(f"{len(files)} test files ({looked} candidates of the shuffled list), {len(cases)} cases")
    for case in cases:
        case["prepared"] = instrument(case["code"], case["names"], case["api"])
    cases = [c for c in cases if c["prepared"] is not None]
    for case in cases:
        case["person"] = left_for_a_person(case["prepared"], case["api"])
        case["text"], case["markers"] = convert(case["prepared"], lenient=False)
        case["lenient_text"], case["lenient_markers"] = convert(case["prepared"], lenient=True)
    log(f"({time.monotonic() - start:.0f} s) converted; running PyTorch")
    torch_runs = run_all("torch", "chunks", [c["prepared"] for c in cases], workers=workers, timeout=60)
    texts = sorted({c["text"] for c in cases} | {c["lenient_text"] for c in cases})
    log(f"({time.monotonic() - start:.0f} s) running MindSpore ({len(texts)} distinct conversions)")
    ms_runs = dict(zip(texts, run_all("mindspore", "chunks", texts, workers=workers, timeout=90)))
    again = [t for t, run in ms_runs.items() if run is not None and not run[0] and str(run[1]).startswith("Timeout")]
    if again:  # a busy machine is no verdict: once more, alone and longer
        for text, run in zip(again, run_all("mindspore", "chunks", again, workers=1, timeout=300)):
            ms_runs[text] = run
    rows = []
    for case, torch_run in zip(cases, torch_runs):
        tres = torch_run[1] if torch_run and torch_run[0] else {}
        row = {"api": case["api"], "family": family(case["api"]), "test": case["test"]}
        for mode, text, markers in (("verdict", case["text"], case["markers"]),
                                    ("lenient", case["lenient_text"], case["lenient_markers"])):
            run = ms_runs.get(text)
            mres = run[1] if run and run[0] else None
            verdict, reason = judge(case, tres, mres, markers, case["person"])
            row[mode] = verdict
            row["reason" if mode == "verdict" else "lenient_reason"] = reason[:200]
        if row["lenient_reason"] == row["reason"]:
            row.pop("lenient_reason")
        row["markers"] = case["markers"][:2]
        rows.append(row)
    return {"rows": rows, "files": [p.name for p, _ in files], "candidates_looked_up": looked,
            "first_candidate": first, "seconds": round(time.monotonic() - start)}


def rates(rows: list[dict], key: str) -> dict:
    counts = Counter(r[key] for r in rows)
    n = len(rows) - counts.get("excluded", 0)
    return {"cases": n, **{k: counts.get(k, 0) for k in ("same", "marked", "silent")},
            "excluded": counts.get("excluded", 0),
            "same_rate": round(counts.get("same", 0) / n, 3) if n else None,
            "silent_rate": round(counts.get("silent", 0) / n, 3) if n else None}


def in_code(row: dict) -> str:
    """The verdict for a reader of the converted file alone: marked only in the analyzer's report is silent."""
    return "silent" if row["verdict"] == "marked" and row["reason"].startswith(ANALYZER_ONLY) else row["verdict"]


def summarize(rows: list[dict], key: str) -> dict:
    out = {fam: rates([r for r in rows if r["family"] == fam], key) for fam in FAMILIES}
    out["all"] = rates(rows, key)
    return out


def with_half(old: dict, name: str, half: dict, versions: dict) -> dict:
    """The report with one half's measurement put in (the other half's kept as it was)."""
    return {**versions, "seed": SEED, "source": "PaddlePaddle/PaConvert tests/ (per-API test files)",
            "halves": {**old.get("halves", {}), name: half}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--half", choices=sorted(HALF_DIRS), default="dev",
                        help="which half of the sample (its folder, and by default its key in the JSON)")
    parser.add_argument("--key", default=None,
                        help="the report's key in the JSON (default: the half's name), e.g. test2_start")
    parser.add_argument("--tests-dir", type=Path, default=None,
                        help="the half's fetched test files (default: the half's folder, see above)")
    parser.add_argument("--files", type=int, default=None, help="only the first N files of the sample")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    parser.add_argument("--silent", type=Path, default=Path("/tmp/heldout-silent.txt"),
                        help="the silent cases with their reasons (no code), grouped by reason")
    args = parser.parse_args()
    args.tests_dir = args.tests_dir or HALF_DIRS[args.half]
    if not args.tests_dir.is_dir():
        parser.error(f"no test folder at {args.tests_dir} (set --tests-dir or HELDOUT_DIR)")
    result = measure(args.tests_dir, args.files, args.workers)
    rows = result["rows"]
    for row in rows:
        row["in_code"] = in_code(row)
    summary = {"default": summarize(rows, "verdict"), "lenient": summarize(rows, "lenient"),
               "converted_text_only": summarize(rows, "in_code")}
    for mode, table in summary.items():
        for fam, row in table.items():
            print(f"{mode:8} {fam:20} {row}")
    silent = sorted((r for r in rows if r["verdict"] == "silent"), key=lambda r: (r["reason"], r["api"]))
    args.silent.write_text("".join(f"{r['api']}  {r['test']}  {r['reason']}\n" for r in silent), encoding="utf-8")
    import mindspore
    import torch

    half = {"half": args.half, "files": len(result["files"]), "first_candidate": result["first_candidate"],
            "candidates_looked_up": result["candidates_looked_up"], "seconds": result["seconds"],
            "summary": summary,
            "cases": [{k: r[k] for k in ("api", "family", "test", "verdict", "lenient", "reason", "lenient_reason")
                       if k in r} for r in rows]}
    old = json.loads(args.json.read_text(encoding="utf-8")) if args.json.exists() else {}
    report = with_half(old, args.key or args.half, half, {"torch": torch.__version__, "mindspore": mindspore.__version__})
    args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"{result['seconds']} s; silent cases listed in {args.silent}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
