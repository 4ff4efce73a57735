"""What the converter writes must be a call MindSpore accepts, and whatever it does not convert exactly is
marked in the text, as the analyzer's report says it (scan/marker_check.py counts the two disagreeing).

After a call's rewrite (or where a tensor method is left as written because MindSpore has one of the same
name and takes it), its arguments are checked against the MindSpore signature of what it now calls (the introspected
table knowledge/data/signatures_classic.json, plus target_signatures.json for a few it lacks):
- a keyword the user passed that the MindSpore API does not take is dropped where its value provably
  changes no value computed (knowledge/placement_keywords.py), and otherwise the call is marked: MindSpore would raise
  "unexpected keyword argument", or the argument's effect would be lost;
- more positional arguments than the MindSpore API takes: marked (it would raise).
Keywords the converter itself writes are not judged here: its rewrites are checked by their own tests.
Then the call is marked where the analyzer's finding for it would leave it to a person for a reason the
converter can read the same way: running calls like it failed or differed (verdicts.call_verdict, one
decision for both; only for the table's call: a helper written since may fix what the verdict saw), a
torch name used as a value that nothing maps (scan.classify.unmapped_name; convert/calls.py).
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import libcst as cst

from analysis.knowledge.mapping import DATA_DIR
from analysis.knowledge.placement_keywords import harmless

from ..core import rules
from ..core.bound import tensor_receiver
from ..core.names import code, resolve
from ..core.result import Unconverted
from .verdict_hook import measured_problem

_SUPPLEMENT = Path(__file__).with_name("target_signatures.json")


@lru_cache(maxsize=1)
def _signatures() -> dict[str, tuple]:
    """MindSpore name -> its parameters (the union of every row that names it)."""
    out: dict[str, list] = {}
    raw = json.loads((DATA_DIR / "signatures_classic.json").read_text(encoding="utf-8"))["apis"]
    for row in raw.values():
        params = out.setdefault(row["mindspore_name"], [])
        params += [p for p in row["mindspore"] if p not in params]
    extra = json.loads(_SUPPLEMENT.read_text(encoding="utf-8"))["signatures"]
    for name, params in extra.items():
        out[name] = params
    return {name: tuple(tuple(p) for p in params) for name, params in out.items()}


def signature(ms_name: str) -> tuple | None:
    return _signatures().get(ms_name)


@lru_cache(maxsize=1)
def method_names() -> frozenset[str]:
    """Tensor method names whose arguments method() checks though nothing else rewrites them (the outline
    must walk their statements): those of MindSpore's Tensor methods with a known signature."""
    return frozenset(name.rsplit(".", 1)[1] for name in _signatures() if name.startswith("mindspore.Tensor."))


def unmapped_value(ctx, qualified: str) -> bool:
    """A torch name used as a value that the analyzer reports unmapped (scan.classify.unmapped_name)."""
    from analysis.scan.classify import unmapped_name

    return qualified.startswith("torch.") and unmapped_name(qualified, ctx.target)


def _harmless(ctx, name: str, value: cst.BaseExpression) -> bool:
    return harmless(name, resolve(value, ctx.aliases) or code(value))


def check(ctx, original: cst.Call, new: cst.BaseExpression, ms_name: str, torch_api: str) -> cst.BaseExpression:
    """new (the call as converted), with harmless PyTorch-only keywords dropped, marked where MindSpore's
    ms_name would not take its arguments."""
    params = signature(ms_name)
    if params is None or not isinstance(new, cst.Call) or any(a.star for a in new.args):
        return new
    kinds = {p[1] for p in params}
    names = {p[0] for p in params}
    passed = {a.keyword.value: a.value for a in original.args if a.keyword is not None}
    dropped, refused = [], []
    if "w" not in kinds:
        for arg in new.args:
            name = arg.keyword.value if arg.keyword is not None else None
            if name is None or name not in passed or name in names:
                continue
            (dropped if _harmless(ctx, name, passed[name]) else refused).append(name)
    problems = [f"{name}= is not an argument of {ms_name} (it would raise): translate or remove it"
                for name in refused]
    if "v" not in kinds:
        room = sum(1 for p in params if p[1] in "po")
        given = sum(1 for a in new.args if a.keyword is None)
        if given > room:
            problems.append(f"{ms_name} takes {room} positional argument{'s' if room != 1 else ''}, "
                            f"the call passes {given} (it would raise): pass the rest by keyword or drop them")
    if dropped:
        args = [a for a in new.args if a.keyword is None or a.keyword.value not in dropped]
        if args:
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        new = new.with_changes(args=args)
        ctx.change(original, rules.API_ARGS, torch_api, ms_name,
                   f"dropped {', '.join(n + '=' for n in dropped)} (no effect on the values in MindSpore)")
        record_dropped_values(ctx, original, dropped)
    if problems:
        ctx.caution(original, rules.API_DIFF, torch_api, "; ".join(problems))
    return new


def harmless_keywords(ctx, original: cst.Call, names) -> bool:
    """Whether every keyword of `names` the user passed to `original` may be dropped (placement_keywords)."""
    return all(_harmless(ctx, a.keyword.value, a.value) for a in original.args
               if a.keyword is not None and a.keyword.value in names)


def record_dropped_values(ctx, original: cst.Call, dropped) -> None:
    """A torch value given to a dropped keyword (layout=torch.strided) went with it: recorded as converted,
    so the report does not leave it for a person."""
    passed = {a.keyword.value: a.value for a in original.args if a.keyword is not None}
    for name in dropped:
        value = resolve(passed[name], ctx.aliases) if name in passed else None
        if value and value.startswith("torch."):
            ctx.change(original, rules.API_ARGS, value, "", f"{value}: dropped with {name}=")


def _marked(ctx, original: cst.Call) -> bool:
    """A marker was already written for this call (its own handler's): that one says what to do."""
    return any(node is original and isinstance(record, Unconverted) for record, node, _ in ctx.located)


def measured(ctx, original: cst.Call, api: str, signature: str) -> None:
    """A marker where running calls like this one showed a failure or other values (the verdict the
    analyzer's finding for this call reads), unless the call is marked already."""
    if _marked(ctx, original):
        return
    kept = [a for a in original.args if a.keyword is None or not _harmless(ctx, a.keyword.value, a.value)]
    problem = measured_problem(api, original.with_changes(args=kept), signature)
    if problem:
        ctx.caution(original, rules.API_DIFF, api, problem)


def method(ctx, original: cst.Call, updated: cst.Call, new: cst.BaseExpression) -> cst.BaseExpression:
    """check() for a tensor method call on a known tensor, written as a method of the same receiver, and
    measured() where that method is the table's."""
    if not (isinstance(updated.func, cst.Attribute) and tensor_receiver(ctx, original.func.value)) \
            or _marked(ctx, original):
        return new
    api = f"torch.Tensor.{original.func.attr.value}"
    entry = ctx.classic.get(api)
    if isinstance(new, cst.Call) and isinstance(new.func, cst.Attribute) \
            and code(new.func.value) == code(updated.func.value):
        new = check(ctx, original, new, f"mindspore.Tensor.{new.func.attr.value}", api)
        if entry is not None and entry.primary == f"mindspore.Tensor.{new.func.attr.value}":
            measured(ctx, original, api, entry.torch_signature)  # the table's method, as written
    return new


def function(ctx, original: cst.Call, new: cst.BaseExpression, entry) -> cst.BaseExpression:
    """check() and measured() for a torch function's call written as a call of its table's MindSpore
    counterpart."""
    if entry is None:
        return new
    # the table's MindSpore call as the converter spells it (a local helper of the same name is not it)
    if entry.primary and isinstance(new, cst.Call) and code(new.func) == code(ctx.ms_expr(entry.primary)) \
            and not _marked(ctx, original):
        new = check(ctx, original, new, entry.primary, entry.torch)
        measured(ctx, original, entry.torch, entry.torch_signature)
    return new  # a helper or another form: checked by its own tests (a verdict may predate it)
