"""Markers from PyTorch's own test inputs (analysis/verify/sample_verdicts.py): a converted call whose API,
in the form this call takes, gave other values than PyTorch's for some dtype class of those inputs keeps
its conversion and gets a marker naming the form and dtype classes. Where the code says the dtype (a
creation call's `dtype=` or its literals and default, a layer built without a cast) only that class
counts; elsewhere every class does (unknown = any)."""
from __future__ import annotations

import libcst as cst

from ..core import rules
from ..core.context import ConversionContext
from .stated_dtypes import expression_class, known_dtype_class
from .tensor_keywords import foreign_keyword


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
    _check(ctx, original, api, known_dtype_class(ctx, original, api))


def _check(ctx: ConversionContext, original: cst.Call, api: str, dtype_class: str | None) -> None:
    try:
        from analysis.verify.sample_verdicts import lenient, unverified
    except ImportError:  # verification data not installed
        return
    if lenient():
        return  # only casts of layers (layer_cast) are marked in lenient mode
    note = unverified(api, forms(original, api), dtype_class)
    if note:
        ctx.caution(original, rules.API_DIFF, api, note)


# MindSpore dtype of a cast -> the verdicts' dtype class (analysis/verify/samples.py)
CAST_CLASSES = {"mindspore.float64": "float64", "mindspore.float16": "float16", "mindspore.complex64": "complex",
                "mindspore.complex128": "complex"}


def layer_cast(ctx: ConversionContext, original: cst.Call, layer: str | None, dtype: str) -> None:
    """A torch.nn layer cast to `dtype` (net.to(torch.float64), net.double()): its inputs are that dtype, so
    a dtype class whose converted calls differed on PyTorch's samples (no float64 Conv2D kernel in MindSpore)
    is marked on the cast, whatever the strict mode."""
    dtype_class = CAST_CLASSES.get(dtype)
    if not layer or not dtype_class:
        return
    try:
        from analysis.verify.sample_verdicts import unverified
    except ImportError:  # verification data not installed
        return
    note = unverified(layer, ("module",), dtype_class)
    if note:
        ctx.caution(original, rules.API_DIFF, layer, f"{layer.rsplit('.', 1)[1]} cast to {dtype_class}: {note}")


def method(ctx: ConversionContext, original: cst.Call) -> None:
    """x.name(...) on anything but `self` or an imported module: checked as torch.Tensor.name."""
    func = original.func
    if not isinstance(func, cst.Attribute):
        return
    receiver = func.value
    if isinstance(receiver, cst.Name) and (receiver.value == "self" or receiver.value in ctx.aliases):
        return
    if foreign_keyword(original, func.attr.value):
        return  # items.sort(key=len), a.std(ddof=1): a keyword PyTorch's method does not take, another type's method
    api = f"torch.Tensor.{func.attr.value}"
    _check(ctx, original, api, expression_class(ctx, receiver))
