"""Snippet corpus harness: convert every snippet, run the originals with torch and the
conversions with MindSpore (one subprocess per framework), compare the named variables.

A snippet is PyTorch source with header comments:
    # api: torch.nn.Conv2d, torch.Tensor.view     (the APIs it covers)
    # compare: y, z                               (variables compared after running)
    # tolerance: 1e-4                             (optional absolute tolerance)
Snippets may call fill(layer), which both runners define: it sets every trainable
parameter, in order, to the same fixed values, so layers start from equal weights.
"""
from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from analysis.convert import convert_source

CORPUS = Path(__file__).parent / "corpus"
FAMILIES = ("torch", "torch.Tensor", "torch.nn", "torch.nn.functional", "torch.optim", "torch.utils.data")

RUNNER = r'''
import json, pickle, sys, traceback
import numpy as np
framework, payload_path, out_path = sys.argv[1:4]
payload = json.load(open(payload_path))

def values(shape, i):
    n = int(np.prod(shape)) if len(shape) else 1
    return (np.sin(np.arange(n, dtype=np.float64) * 0.37 + i) * 0.5).astype(np.float32).reshape(shape)

if framework == "torch":
    import torch
    torch.manual_seed(0)
    def fill(module):
        with torch.no_grad():
            for i, p in enumerate(p for p in module.parameters() if p.requires_grad):
                p.copy_(torch.from_numpy(values(tuple(p.shape), i)))
        return module
    def to_np(v):
        if isinstance(v, torch.Tensor):
            return v.detach().cpu().numpy()
        if isinstance(v, (list, tuple)):
            return [to_np(x) for x in v]
        return np.asarray(v)
else:
    import mindspore
    mindspore.set_seed(0)
    def fill(cell):
        for i, p in enumerate(cell.trainable_params()):
            p.set_data(mindspore.Tensor(values(tuple(p.shape), i)))
        return cell
    def to_np(v):
        if isinstance(v, mindspore.Tensor):
            return v.asnumpy()
        if isinstance(v, (list, tuple)):
            return [to_np(x) for x in v]
        return np.asarray(v)

import linecache, types
results = {}
for item in payload:
    # a registered module with its source readable, as a real file's: MindSpore's graph mode
    # (mindspore.vmap, ops.jacrev, jit) imports a function's module and parses its source
    module = types.ModuleType("__snippet__")
    module.__file__ = item["name"]
    linecache.cache[item["name"]] = (len(item["source"]), None, item["source"].splitlines(True), item["name"])
    sys.modules["__snippet__"] = module
    ns = module.__dict__
    ns["fill"] = fill
    try:
        exec(compile(item["source"], item["name"], "exec"), ns)
        results[item["name"]] = {"values": {k: to_np(ns[k]) for k in item["compare"]}}
    except BaseException as exc:
        results[item["name"]] = {"error": f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ''}"}
pickle.dump(results, open(out_path, "wb"))
'''


@dataclass
class Snippet:
    name: str
    source: str
    apis: list[str]
    compare: list[str]
    tolerance: float = 1e-4
    converted: str = ""
    leftover: list[str] = field(default_factory=list)  # unconverted items


def family(api: str) -> str:
    for prefix in ("torch.nn.functional", "torch.nn", "torch.Tensor", "torch.optim", "torch.utils.data"):
        if api == prefix or api.startswith(prefix + "."):
            return prefix
    return "torch"


def parse_snippet(name: str, source: str) -> Snippet:
    header = {}
    for line in source.splitlines():
        if line.startswith("# ") and ":" in line:
            key, _, value = line[2:].partition(":")
            header[key.strip()] = value.strip()
    return Snippet(
        name=name,
        source=source,
        apis=[a.strip() for a in header.get("api", "").split(",") if a.strip()],
        compare=[c.strip() for c in header.get("compare", "").split(",") if c.strip()],
        tolerance=float(header.get("tolerance", "1e-4")),
    )


def load_corpus() -> list[Snippet]:
    from tests.convert.corpus import generated

    # snippet files sit in the subfolders; the modules at the top generate the others
    snippets = [parse_snippet(p.relative_to(CORPUS).as_posix(), p.read_text()) for p in sorted(CORPUS.rglob("*.py"))
                if p.parent != CORPUS]
    snippets += [parse_snippet(name, source) for name, source in generated()]
    return snippets


def _run(framework: str, items: list[dict], workdir: Path, timeout: int) -> dict:
    payload = workdir / f"{framework}.json"
    out = workdir / f"{framework}.pkl"
    payload.write_text(json.dumps(items))
    script = workdir / "runner.py"
    script.write_text(RUNNER)
    env = {**os.environ, "GLOG_v": "3", "PYTHONWARNINGS": "ignore"}
    proc = subprocess.run([sys.executable, str(script), framework, str(payload), str(out)], cwd=workdir,
                          capture_output=True, text=True, timeout=timeout, env=env)
    if proc.returncode != 0 or not out.exists():
        raise RuntimeError(f"{framework} runner failed: {proc.stderr[-2000:]}")
    return pickle.loads(out.read_bytes())


def _same(a, b, tol: float) -> str:
    if isinstance(a, list) or isinstance(b, list):
        if not (isinstance(a, list) and isinstance(b, list)) or len(a) != len(b):
            return "different structure"
        for x, y in zip(a, b):
            problem = _same(x, y, tol)
            if problem:
                return problem
        return ""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return f"shape {a.shape} vs {b.shape}"
    if a.dtype == bool or b.dtype == bool:
        return "" if np.array_equal(a.astype(bool), b.astype(bool)) else "boolean values differ"
    if not np.allclose(a.astype(np.float64), b.astype(np.float64), rtol=1e-4, atol=tol, equal_nan=True):
        return f"max abs difference {np.nanmax(np.abs(a.astype(np.float64) - b.astype(np.float64))):.3g}"
    return ""


def run_corpus(snippets: list[Snippet], timeout: int = 900) -> dict[str, str]:
    """snippet name -> '' when it passes, else why it failed."""
    for s in snippets:
        result = convert_source(s.source, path=s.name)
        s.converted = result.text
        s.leftover = [f"{u.rule_id}: {u.action}" for u in result.unconverted]
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        originals = _run("torch", [{"name": s.name, "source": s.source, "compare": s.compare} for s in snippets],
                         workdir, timeout)
        converted = _run("mindspore", [{"name": s.name, "source": s.converted, "compare": s.compare}
                                       for s in snippets], workdir, timeout)
    verdicts = {}
    for s in snippets:
        a, b = originals.get(s.name, {}), converted.get(s.name, {})
        if "error" in a:
            verdicts[s.name] = f"original failed: {a['error']}"
        elif s.leftover:
            verdicts[s.name] = f"not converted: {s.leftover[0]}"
        elif "import torch" in s.converted or "from torch" in s.converted:
            verdicts[s.name] = "conversion still imports torch"
        elif "error" in b:
            verdicts[s.name] = f"converted failed: {b['error']}"
        else:
            problems = [f"{k}: {p}" for k in s.compare if (p := _same(a["values"][k], b["values"][k], s.tolerance))]
            verdicts[s.name] = "; ".join(problems)
    return verdicts


def pass_rates(snippets: list[Snippet], verdicts: dict[str, str]) -> dict[str, dict]:
    """Per family: distinct APIs covered and how many pass (an API passes when all its snippets do)."""
    api_ok: dict[str, bool] = {}
    for s in snippets:
        for api in s.apis:
            api_ok[api] = api_ok.get(api, True) and not verdicts[s.name]
    rates: dict[str, dict] = {}
    for fam in FAMILIES:
        apis = sorted(a for a in api_ok if family(a) == fam)
        passed = sum(1 for a in apis if api_ok[a])
        rates[fam] = {"apis": len(apis), "passed": passed,
                      "rate": round(passed / len(apis), 3) if apis else None,
                      "failing": [a for a in apis if not api_ok[a]]}
    total = len(api_ok)
    ok = sum(api_ok.values())
    rates["total"] = {"apis": total, "passed": ok, "rate": round(ok / total, 3) if total else None,
                      "snippets": len(snippets), "snippets_passed": sum(1 for v in verdicts.values() if not v)}
    return rates


def dtype_problems(expected, actual, where: str, only: set[str] | None = None) -> list[str]:
    """Each output in exactly PyTorch's dtype (compare.difference checks the dtype's class only); `only`:
    the dtype names held to that (None: all)."""
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{where}: {type(actual).__name__} where PyTorch gives a sequence of {len(expected)}"]
        return [p for i, (e, a) in enumerate(zip(expected, actual)) for p in dtype_problems(e, a, f"{where}[{i}]", only)]
    if isinstance(expected, np.ndarray) and (only is None or expected.dtype.name in only) and \
            (not isinstance(actual, np.ndarray) or actual.dtype != expected.dtype):
        return [f"{where}: dtype {getattr(actual, 'dtype', type(actual))} where PyTorch gives {expected.dtype}"]
    return []


def block_value_problems(cases: list[tuple[str, str]], exact_dtypes: bool | set[str] = False) -> list[str]:
    """Run each (name, PyTorch source) case in torch and its conversion in MindSpore, statement
    by statement (analysis.verify's block runners), and list every value that differs or fails;
    with `exact_dtypes`, also every output not in PyTorch's exact dtype (True: all; a set: those names)."""
    from analysis.verify.blocks import prepare
    from analysis.verify.compare import difference
    from analysis.verify.workers import run_all

    prepared = [prepare(source) for _, source in cases]
    converted = [convert_source(p, path="example.py").text for p in prepared]
    torch_runs = run_all("torch", "chunks", prepared, workers=1, timeout=120)
    ms_runs = run_all("mindspore", "chunks", converted, workers=1, timeout=120)
    problems = []
    for (name, _), (tok, tres), (mok, mres) in zip(cases, torch_runs, ms_runs):
        assert tok and all(r[0] == "ok" for r in tres.values()), (name, tres)  # the PyTorch side must run
        for chunk, (_, expected) in tres.items():
            got = mres.get(chunk) if mok else None
            if got is None or got[0] != "ok":
                problems.append(f"{name}: statement {chunk}: {got}")
                continue
            for var, value in expected.items():
                problem = difference(value, got[1].get(var))
                if problem:
                    problems.append(f"{name}: {var}: {problem}")
                elif exact_dtypes:
                    only = None if exact_dtypes is True else exact_dtypes
                    problems += dtype_problems(value, got[1].get(var), f"{name}: {var}", only)
    return problems
