"""Verdicts per (API, call form, dtype class), measured on PyTorch's own test inputs (OpInfo/ModuleInfo
samples, bench/opinfo_samples.py --verdicts): for each, how many converted calls gave PyTorch's values
and, where some did not, what differed. Stored as data (knowledge/data/sample_verdicts.json).

Two uses by the converter:
- never_passed(api): a function or method no converted sample of which ran, for want of a MindSpore CPU
  kernel (torch.ormqr), is left unconverted and marked (always on, through convert/verdict_hook.py);
- unverified(api, forms, dtype_class): a form or dtype class whose converted calls differed is named in a
  marker on the converted call. The converter passes the dtype class where the code says it (a creation
  call's dtype= or literals, a layer built without a cast, a layer cast with .to(torch.float64)); with the
  dtype unknown (None) every class counts. Lenient mode (environment PORTING_STRICT_DTYPES=0;
  bench/opinfo_samples.py --lenient) marks only a layer cast to another dtype (the converter's behaviour
  before dtypes were inferred): it leaves unmarked the calls that differ on some class (complex inputs of
  abs, say, or a layer's unbatched float32 input).
A pair no sample reached says nothing (the tables and the generated verification decide, as before).
Forms: positional, keyword, method, ints, list, tuple, varargs, module. Dtype classes: bool, int,
float16, float32, float64, complex."""
from __future__ import annotations

import json
import os
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

PATH = Path(__file__).resolve().parents[1] / "knowledge" / "data" / "sample_verdicts.json"
_SUSPENDED = {"value": False}


def suspend(value: bool = True) -> None:
    """Answer nothing from now on (the bench measuring the converter the verdicts are built from)."""
    _SUSPENDED["value"] = value


def build(rows: list[dict]) -> dict:
    """{api: {form: {dtype_class: [passed, calls, note]}}} from the bench's rows (the converter measured
    with verdicts off); a call the converter marked itself counts as passed here (it needs no second marker)."""
    out: dict = {}
    for r in rows:
        cell = out.setdefault(r["api"], {}).setdefault(r["form"], {}).setdefault(r["dtype_class"], [0, 0, ""])
        cell[1] += 1
        if r["verdict"] != "silent":
            cell[0] += 1
        elif not cell[2]:
            cell[2] = f"{r['dtype']}: {r['problem'][:150]}"
    return out


@lru_cache(maxsize=1)
def load() -> dict:
    if not PATH.exists():
        return {}
    return json.loads(PATH.read_text(encoding="utf-8")).get("apis", {})


_LENIENT = {"depth": 0}


def lenient() -> bool:
    return _LENIENT["depth"] > 0 or os.environ.get("PORTING_STRICT_DTYPES") == "0"


@contextmanager
def lenient_mode():
    """Lenient mode for the conversions inside the block, whatever the environment says."""
    _LENIENT["depth"] += 1
    try:
        yield
    finally:
        _LENIENT["depth"] -= 1


def unverified(api: str, forms: tuple[str, ...], dtype_class: str | None = None) -> str | None:
    """What PyTorch's samples showed wrong for this call, or None: the dtype classes (all when `dtype_class`
    is None, strict mode only) of the given forms whose converted calls did not give PyTorch's values."""
    if _SUSPENDED["value"] or (dtype_class is None and lenient()):
        return None
    entry = load().get(api)
    if not entry:
        return None
    bad, notes = [], []
    for form in forms:
        for dclass, (passed, calls, note) in sorted(entry.get(form, {}).items()):
            if passed < calls and (dtype_class is None or dclass == dtype_class) and dclass not in bad:
                bad.append(dclass)
                notes.append(note)
    if not bad:
        return None
    return (f"on PyTorch's test inputs the converted {'/'.join(forms)} call differs for {', '.join(bad)} inputs "
            f"(e.g. {notes[0]}); check it for yours")


def all_passed(api: str) -> bool:
    """Every converted call of `api` on PyTorch's samples (every form and dtype class, three calls at
    least) gave PyTorch's values."""
    entry = load().get(api)
    cells = [cell for form in (entry or {}).values() for cell in form.values()]
    return sum(c[1] for c in cells) >= 3 and all(c[0] == c[1] for c in cells)


def _failed_everywhere(api: str) -> str | None:
    entry = load().get(api)
    if not entry:
        return None
    cells = [cell for form in entry.values() for cell in form.values()]
    if sum(c[1] for c in cells) < 3 or any(c[0] for c in cells):
        return None
    return next(c[2] for c in cells if c[2])


def never_passed(api: str) -> str | None:
    """The missing kernel, where no converted call of a function or method on PyTorch's samples (every form and
    dtype, three at least) ran for want of a MindSpore CPU kernel: the conversion is known not to work. A missing kernel found on the
    method holds for the function too, and the other way round (torch.ormqr's samples all pass left=, which
    the converter marks; x.ormqr(...) showed MindSpore has no Ormqr kernel on CPU). Layers are left out: a
    layer failing on every sample may still work on other inputs (an RNN on batched ones)."""
    from .compare import NO_KERNEL

    name = api.rsplit(".", 1)[-1]
    if _SUSPENDED["value"] or (api.startswith("torch.nn.") and not api.startswith("torch.nn.functional.")
                               and name[:1].isupper()):
        return None
    # only a missing kernel: a sample set of edge values (0-d inputs, empty ones) failing everywhere says
    # little about the usual call
    for candidate in (api, f"torch.{name}" if api.startswith("torch.Tensor.") else
                      f"torch.Tensor.{name}" if api.count(".") == 1 else ""):
        failed = _failed_everywhere(candidate) if candidate else None
        if failed and NO_KERNEL.search(failed):
            return failed
    return None


def write(rows: list[dict], versions: dict, apis: set[str] | None = None) -> Path:
    """Store the verdicts of `rows`; with `apis` (a partial run) only those APIs are replaced."""
    fresh = build(rows)
    if apis is not None and PATH.exists():
        kept = {k: v for k, v in json.loads(PATH.read_text(encoding="utf-8")).get("apis", {}).items() if k not in apis}
        fresh = {**kept, **fresh}
    data = {"about": "Verdicts per (API, call form, dtype class) on PyTorch's OpInfo/ModuleInfo samples: "
                     "[passed, calls, first difference]. Written by `python bench/opinfo_samples.py --verdicts`; "
                     "see analysis/verify/sample_verdicts.py.",
            "versions": versions, "apis": dict(sorted(fresh.items()))}
    lines = [json.dumps({k: v for k, v in data.items() if k != "apis"}, indent=1)[:-2] + ',\n "apis": {']
    rows_out = [f" {json.dumps(api)}: {json.dumps(entry, separators=(',', ':'))}" for api, entry in data["apis"].items()]
    PATH.write_text("\n".join(lines) + "\n" + ",\n".join(rows_out) + "\n }\n}\n", encoding="utf-8")
    load.cache_clear()
    return PATH
