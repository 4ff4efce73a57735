"""Generate, convert, run both frameworks, compare, and turn the outcomes into verdicts."""
from __future__ import annotations

import json
import re
import sys
import time
from collections import Counter, defaultdict
from datetime import datetime, timezone
from pathlib import Path

from analysis.knowledge.mapping import load_mapping

from .compare import NO_KERNEL, difference
from .generate import Call, family
from .verdicts import (DIFFERS, FAILS, MARKED, NO_CPU_KERNEL, SEVERITY, UNTESTED, VERDICTS_PATH, VERIFIED)
from .workers import run_all

FAMILIES = ("torch", "torch.nn", "torch.nn.functional", "torch.Tensor")


def converted_apis(target: str = "classic") -> list[str]:
    """Every API the knowledge base converts in the four call families."""
    out = []
    for entry in load_mapping(target):
        if not (entry.primary or entry.template or entry.constant):
            continue
        if not entry.torch.startswith("torch.") or family(entry.torch) == "torch" and entry.torch.count(".") > 1:
            continue
        if family(entry.torch) == "torch.nn" and entry.torch.count(".") > 2:
            continue  # torch.nn.init.*, torch.nn.utils.*: other families
        out.append(entry.torch)
    from analysis.convert.apis.mapped import SUPPLEMENT  # renames the tables omit (torch.tensor -> mindspore.tensor)

    out += [name for name in SUPPLEMENT if name not in out and name != "torch.Tensor"]
    from analysis.convert.tensors.inplace import table as in_place  # rewritten by measurement, not by the tables

    out += [f"torch.Tensor.{name}" for name in in_place() if f"torch.Tensor.{name}" not in out]
    return sorted(out)


def outcome(call: Call, ran: tuple[bool, object]) -> tuple[str, str]:
    """(status, note) of one call after conversion."""
    if call.unconverted:
        return MARKED, call.unconverted[0]
    ok, value = ran
    if not ok:
        text = str(value)
        if text.startswith(("Crash", "Timeout")):
            return FAILS, text
        return (NO_CPU_KERNEL if NO_KERNEL.search(text) else FAILS), text
    problem = difference(call.torch, value, values=not call.random, distribution=call.random)
    return (DIFFERS, problem) if problem else (VERIFIED, "")


def _line(call: Call) -> str:
    lines = call.source.splitlines()
    if lines[-1].startswith("out = (out, "):  # the receiver of an in-place call, compared too
        lines = lines[:-1]
    if lines[-1].startswith("out = layer("):
        return lines[-4].replace("layer = ", "") + "; " + lines[-1].replace("out = ", "")
    return lines[-1].replace("out = ", "")


def _group(items: list[tuple[Call, str, str]]) -> dict:
    worst = max(items, key=lambda it: SEVERITY[it[1]])
    status = worst[1]
    out = {"status": status, "calls": len(items), "passed": sum(1 for _, s, _ in items if s == VERIFIED)}
    if status != VERIFIED:
        out["note"] = f"{_line(worst[0])}: {worst[2]}" if worst[2] else _line(worst[0])
    return out


def _positional(api: str) -> list[str]:
    from .signature import KEYWORD_ONLY, VAR, torch_params

    try:
        params = torch_params(api) or []
    except Exception:
        return []
    out = []
    for p in params:
        if p.kind in (KEYWORD_ONLY, VAR):
            break
        out.append(p.name)
    return out


def aggregate(api: str, results: list[tuple[Call, str, str]], why: str) -> dict:
    entry: dict = {"family": family(api), "positional": _positional(api)}
    if not results:
        entry.update(status=UNTESTED, calls=0, passed=0, note=why or "no call generated")
        return entry
    base = [r for r in results if r[0].kind == "base"]
    entry.update(_group(base or results))
    entry["calls"], entry["passed"] = len(results), sum(1 for _, s, _ in results if s == VERIFIED)
    params: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    dtypes: dict[str, list] = defaultdict(list)
    for item in results:
        call = item[0]
        if call.dtype != "float32" or call.kind == "dtype":
            dtypes[call.dtype].append(item)
            continue
        if call.kind == "base":
            dtypes["float32"].append(item)
        # an argument's verdict comes from the calls about it: the base and spelling calls for the
        # required ones, the calls that add it for the optional ones
        names = call.params if call.kind in ("base", "spelling") else \
            [n for n in call.params if n.rstrip("=") == call.focus]
        for name in names:
            spelling = "keyword" if name.endswith("=") else "positional"
            params[name.rstrip("=")][spelling].append(item)
    entry["params"] = {}
    for name, spellings in sorted(params.items()):
        both = [it for items in spellings.values() for it in items]
        row = _group(both)
        for spelling, items in spellings.items():
            row[spelling] = _group(items)
        entry["params"][name] = row
    entry["dtypes"] = {dtype: _group(items) for dtype, items in sorted(dtypes.items())}
    return entry


def regenerate(apis: list[str] | None = None, *, workers: int = 2, out: Path | None = VERDICTS_PATH,
               log=print) -> dict:
    start = time.monotonic()
    partial = apis is not None
    apis = apis if apis is not None else converted_apis()
    log(f"generating calls for {len(apis)} APIs with {workers} PyTorch workers")
    generated = run_all("torch", "generate", apis, workers=workers, timeout=180,
                        progress=lambda n: n % 50 == 0 and log(f"  {n}/{len(apis)} APIs"))
    calls_by_api: dict[str, list[Call]] = {}
    why: dict[str, str] = {}
    for api, (ok, value) in zip(apis, generated):
        if ok:
            calls_by_api[api], why[api] = value
        else:
            calls_by_api[api], why[api] = [], f"generation failed: {value}"
    to_run = [c for calls in calls_by_api.values() for c in calls if not c.unconverted]
    log(f"{sum(map(len, calls_by_api.values()))} calls kept; running {len(to_run)} converted ones in MindSpore")
    ran = run_all("mindspore", "run", [c.converted for c in to_run], workers=workers, timeout=60,
                  progress=lambda n: n % 500 == 0 and log(f"  {n}/{len(to_run)} calls"))
    results_of = {id(c): r for c, r in zip(to_run, ran)}
    apis_out = {}
    for api, calls in calls_by_api.items():
        results = []
        for call in calls:
            status, note = outcome(call, results_of.get(id(call), (False, "not run")))
            results.append((call, status, note))
        apis_out[api] = aggregate(api, results, why.get(api, ""))
    elapsed = time.monotonic() - start
    data = {
        "about": "Verdicts of verification by execution: generated PyTorch calls, converted by this project's "
                 "converter, run on CPU in both frameworks and compared. Regenerate with `python -m analysis.verify`."
                 " See analysis/verify/verdicts.py for what each status means.",
        "generated": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%MZ"),
        "versions": _versions(),
        "seconds": round(elapsed),
        "workers": workers,
        "calls": sum(v["calls"] for v in apis_out.values()),
        "summary": summary(apis_out),
        "apis": dict(sorted(apis_out.items())),
    }
    if out is not None:
        if partial and out.exists():
            old = json.loads(out.read_text())  # a partial run updates only its APIs
            merged = {**old.get("apis", {}), **data["apis"]}
            data["apis"] = dict(sorted(merged.items()))
            data["summary"] = summary(data["apis"])
            data["calls"] = sum(v["calls"] for v in data["apis"].values())
        out.write_text(dumps(data), encoding="utf-8")
    log(f"done in {elapsed:.0f} s")
    return data


def dumps(data: dict) -> str:
    """One API per line: small diffs when verdicts change."""
    head = {k: v for k, v in data.items() if k != "apis"}
    lines = [json.dumps(head, indent=1)[:-2] + ',\n "apis": {']
    rows = [f" {json.dumps(api)}: {json.dumps(entry, separators=(',', ':'))}" for api, entry in data["apis"].items()]
    return "\n".join(lines) + "\n" + ",\n".join(rows) + "\n }\n}\n"


def summary(apis: dict) -> dict:
    out: dict = {}
    for fam in FAMILIES:
        rows = [v for v in apis.values() if v.get("family") == fam]
        counts = Counter(v["status"] for v in rows)
        out[fam] = {"apis": len(rows), "calls": sum(v["calls"] for v in rows), **dict(sorted(counts.items()))}
    return out


def _versions() -> dict:
    from importlib.metadata import version

    out = {}
    for name in ("torch", "mindspore"):
        try:
            out[name] = version(name)
        except Exception:
            out[name] = "?"
    out["python"] = sys.version.split()[0]
    return out
