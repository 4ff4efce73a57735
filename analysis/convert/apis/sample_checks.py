"""Markers from PyTorch's own test inputs (analysis/verify/sample_verdicts.py): a converted call whose API,
in the form this call takes, gave other values than PyTorch's for some dtype class of those inputs keeps
its conversion and gets a marker naming the form and dtype classes. Where the code says the dtype (a
creation call's `dtype=` or its literals and default, a layer built without a cast) only that class
counts; elsewhere every class does (unknown = any)."""
from __future__ import annotations

import libcst as cst

from ..core import rules
from ..core.context import ConversionContext
from ..core.names import resolve


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


# torch dtype names (the attribute written after `torch.`) -> the verdicts' dtype class
DTYPE_CLASSES = {**{n: "int" for n in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                       "int", "long", "short")},
                 "bool": "bool", "float16": "float16", "half": "float16", "float32": "float32", "float": "float32",
                 "float64": "float64", "double": "float64",
                 **{n: "complex" for n in ("complex64", "complex128", "cfloat", "cdouble")}}
# creation functions whose result is the default float dtype unless `dtype=` says otherwise
DEFAULT_FLOAT = {"torch.randn", "torch.rand", "torch.zeros", "torch.ones", "torch.empty", "torch.eye", "torch.linspace",
                 "torch.logspace", "torch.range"}  # (torch.range is float even of ints, unlike arange)
INTEGER_RESULTS = {"torch.randint", "torch.randperm"}


def _literal_class(node: cst.BaseExpression) -> str | None:
    """The dtype class PyTorch infers from a literal (nested lists/tuples of numbers): None if not all literal."""
    if isinstance(node, cst.UnaryOperation):
        return _literal_class(node.expression)
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return "bool"
    if isinstance(node, cst.Integer):
        return "int"
    if isinstance(node, cst.Float):
        return "float32"
    if isinstance(node, cst.Imaginary):
        return "complex"
    if isinstance(node, (cst.List, cst.Tuple)) and node.elements:
        classes = {_literal_class(e.value) for e in node.elements}
        if None in classes:
            return None
        for widest in ("complex", "float32", "int", "bool"):  # PyTorch's promotion of mixed literals
            if widest in classes:
                return widest
    return None


# Tensor methods that cast: x.float() is float32 whatever x was
CAST_METHODS = {"float": "float32", "double": "float64", "half": "float16", "long": "int", "int": "int",
                "short": "int", "bool": "bool", "cfloat": "complex", "cdouble": "complex"}


def _dtype_keyword(call: cst.Call) -> cst.BaseExpression | None:
    return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "dtype"), None)


def _created_class(call: cst.Call, api: str) -> str | None:
    """The dtype class of what a creation call (or a layer's parameters) holds, where the code says it."""
    keyword = _dtype_keyword(call)
    name = api.rsplit(".", 1)[-1]
    is_layer = api.startswith("torch.nn.") and not api.startswith("torch.nn.functional.") and name[:1].isupper()
    creates = is_layer or api in DEFAULT_FLOAT or api in INTEGER_RESULTS or api in (
        "torch.arange", "torch.full", "torch.tensor")
    if not creates:
        return None
    if keyword is not None:
        return DTYPE_CLASSES.get(keyword.attr.value) if isinstance(keyword, cst.Attribute) else None
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    if is_layer or api in DEFAULT_FLOAT:
        return "float32"  # a cast layer (net.double()) is checked on the cast (layer_cast)
    if api in INTEGER_RESULTS:
        return "int"
    if api == "torch.arange" and positional:
        classes = {_literal_class(v) for v in positional}
        return "float32" if "float32" in classes else "int" if classes == {"int"} else None
    if api == "torch.full" and len(positional) >= 2:
        return _literal_class(positional[1])
    if api == "torch.tensor" and positional:
        return _literal_class(positional[0])
    return None


def expression_class(ctx: ConversionContext, node: cst.BaseExpression) -> str | None:
    """The dtype class of a tensor expression where the code alone says it: a creation call, or a cast
    method (x.float()); None (any) otherwise, and wherever the file changes the default float dtype."""
    if ctx.default_dtype_set or not isinstance(node, cst.Call):
        return None
    if isinstance(node.func, cst.Attribute) and not node.args and node.func.attr.value in CAST_METHODS:
        return CAST_METHODS[node.func.attr.value]
    api = resolve(node.func, ctx.aliases)
    return _created_class(node, api) if api else None


def known_dtype_class(ctx: ConversionContext, call: cst.Call, api: str) -> str | None:
    """The dtype class the verdicts should be read for: the class of what this call creates, or of its input."""
    if ctx.default_dtype_set:
        return None
    own = _created_class(call, api)
    if own is not None or api.rsplit(".", 1)[-1][:1].isupper():
        return own
    first = next((a.value for a in call.args if not a.star), None)  # the input, positional or by keyword
    return expression_class(ctx, first) if first is not None else None


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
    api = f"torch.Tensor.{func.attr.value}"
    _check(ctx, original, api, expression_class(ctx, receiver))
