"""Markers from PyTorch's own test inputs (analysis/verify/sample_verdicts.py): a converted call whose API,
in the form this call takes, gave other values than PyTorch's for some dtype class of those inputs keeps
its conversion and gets a marker naming the form and dtype classes. The dtype is not known from the code
here, so every class counts (unknown = any)."""
from __future__ import annotations

import libcst as cst

from ..core import rules
from ..core.context import ConversionContext


def _last_positional(call: cst.Call):
    given = [a for a in call.args if a.keyword is None and not a.star]
    return given[-1].value if given else None


def forms(call: cst.Call, api: str) -> tuple[str, ...]:
    """The bench's names for the form of this call (samples.py): the ones it may match."""
    name = api.rsplit(".", 1)[-1]
    if api.startswith("torch.nn.") and not api.startswith("torch.nn.functional.") and name[:1].isupper():
        return ("module",)
    last = _last_positional(call)
    if api.startswith("torch.Tensor."):
        given = [a for a in call.args if a.keyword is None]
        if len(given) > 1 and all(isinstance(a.value, (cst.Integer, cst.UnaryOperation)) for a in given):
            return ("ints",)
        return ("list",) if isinstance(last, cst.List) and len(given) == 1 else ("method",)
    if call.args and call.args[0].keyword is not None:
        return ("keyword",)
    if isinstance(last, cst.List):
        return ("list",)
    return ("positional", "varargs") if len([a for a in call.args if a.keyword is None]) > 1 else ("positional",)


def check(ctx: ConversionContext, original: cst.Call, api: str) -> None:
    try:
        from analysis.verify.sample_verdicts import unverified
    except ImportError:  # verification data not installed
        return
    note = unverified(api, forms(original, api))
    if note:
        ctx.caution(original, rules.API_DIFF, api, note)


def method(ctx: ConversionContext, original: cst.Call) -> None:
    """x.name(...) on anything but `self` or an imported module: checked as torch.Tensor.name."""
    func = original.func
    if not isinstance(func, cst.Attribute):
        return
    receiver = func.value
    if isinstance(receiver, cst.Name) and (receiver.value == "self" or receiver.value in ctx.aliases):
        return
    check(ctx, original, f"torch.Tensor.{func.attr.value}")
