"""The dtype class a tensor expression has where the code alone says it: a creation call's `dtype=`, its
literals or its default (torch.randn is float32, torch.tensor([1, 2]) int), a cast method (x.float()), a
layer's parameters (float32 unless cast). None means unknown (any class). The classes are the sample
verdicts' (analysis/verify/samples.py): bool, int, float16, float32, float64, complex. Read by the sample
verdicts' markers (sample_checks.py) and the kernel dtype bridge (kernel_dtypes.py)."""
from __future__ import annotations

import ast

import libcst as cst

from ..core.bound import bindings
from ..core.context import ConversionContext
from ..core.names import dotted, resolve

# every spelling of a torch dtype after `torch.` -> its canonical name
TORCH_DTYPES = {
    "float16": "float16", "half": "float16", "float32": "float32", "float": "float32", "float64": "float64",
    "double": "float64", "int8": "int8", "uint8": "uint8", "int16": "int16", "short": "int16", "int32": "int32",
    "int": "int32", "int64": "int64", "long": "int64", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "bool": "bool", "complex64": "complex64", "cfloat": "complex64", "complex128": "complex128",
    "cdouble": "complex128",
}


def dtype_class(name: str) -> str:
    """A dtype name's class (`int16`, `mindspore.uint8` -> int): float16/32/64 apart, ints together."""
    name = TORCH_DTYPES.get(name.rsplit(".", 1)[-1], name.rsplit(".", 1)[-1])
    return "int" if name.startswith(("int", "uint")) else "complex" if name.startswith("complex") else name


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
CAST_METHODS = {name: dtype_class(name) for name in ("float", "double", "half", "long", "int", "short", "bool",
                                                     "cfloat", "cdouble")}


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
        known = isinstance(keyword, cst.Attribute) and keyword.attr.value in TORCH_DTYPES
        return dtype_class(keyword.attr.value) if known else None
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


def _call_class(node: cst.BaseExpression, aliases: dict[str, str]) -> str | None:
    """A creation call's or a cast method's class (see expression_class)."""
    if not isinstance(node, cst.Call):
        return None
    if isinstance(node.func, cst.Attribute) and not node.args and node.func.attr.value in CAST_METHODS:
        return CAST_METHODS[node.func.attr.value]
    api = resolve(node.func, aliases)
    return _created_class(node, api) if api else None


def _assigned_class(value: ast.AST, aliases: dict[str, str]) -> str | None:
    return _call_class(cst.parse_expression(ast.unparse(value)), aliases) if isinstance(value, ast.Call) else None


def _variable_class(ctx: ConversionContext, node: cst.BaseExpression) -> str | None:
    """The class of a variable (a name, self.x) every assignment of which, anywhere in the file, states the
    same class (x = torch.randn(3); x = x.float()); None where any binding says nothing (a parameter, a loop
    target, x = x + y, x = model(x)): the map errs towards knowing nothing, as core/bound.py does."""
    key = dotted(node)
    if key is None or ctx.tree is None:
        return None
    if ctx.stated_classes is None:
        ctx.stated_classes = bindings(ctx.tree, ctx.aliases, kind=_assigned_class, self_returning=False)
    return ctx.stated_classes.get(key)


def expression_class(ctx: ConversionContext, node: cst.BaseExpression) -> str | None:
    """The dtype class of a tensor expression where the code alone says it: a creation call, a cast
    method (x.float()), or a variable all of whose assignments are such calls of one class; None (any)
    otherwise, and wherever the file changes the default float dtype."""
    if ctx.default_dtype_set:
        return None
    if isinstance(node, (cst.Name, cst.Attribute)):
        return _variable_class(ctx, node)
    return _call_class(node, ctx.aliases)


def known_dtype_class(ctx: ConversionContext, call: cst.Call, api: str) -> str | None:
    """The dtype class the verdicts should be read for: the class of what this call creates, or of its input."""
    if ctx.default_dtype_set:
        return None
    own = _created_class(call, api)
    if own is not None or api.rsplit(".", 1)[-1][:1].isupper():
        return own
    first = next((a.value for a in call.args if not a.star), None)  # the input, positional or by keyword
    return expression_class(ctx, first) if first is not None else None
