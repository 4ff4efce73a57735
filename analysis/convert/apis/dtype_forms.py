"""Floating-point functions of integer and boolean tensors: PyTorch computes torch.exp(int_tensor) in
float32 (its OpInfo database says so: `promotes_int_to_float`), while MindSpore's CPU kernels refuse
integer inputs or keep the integer type. The converted call reads its tensor arguments through
float_input() (helper_source.py), which casts only integer and boolean tensors: exact for every dtype,
so the call needs no dtype the converter cannot know. An argument that is float already by its form
(a float literal in it, a layer's output) is left as it is.

The APIs are data (knowledge/data/int_to_float.json, written by analysis/verify/promotion.py from
PyTorch's OpInfo database, less the ones whose integer result rules differ)."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import libcst as cst

from ..support import helpers
from ..core.context import ConversionContext
from ..core.names import dotted

# how the converter writes MindSpore's modules: a call on one of them is a function call, not a method
MINDSPORE_MODULES = frozenset({"ops", "mint", "nn", "mindspore", "mindspore.ops", "mindspore.mint", "mindspore.nn"})
DATA = Path(__file__).resolve().parents[2] / "knowledge" / "data" / "int_to_float.json"


@lru_cache(maxsize=1)
def _data() -> dict:
    return json.loads(DATA.read_text(encoding="utf-8")) if DATA.exists() else {}


@lru_cache(maxsize=1)
def table() -> dict[str, int]:
    """torch name (torch.exp, torch.Tensor.exp) -> how many leading tensor arguments are read as float."""
    data = _data()
    if not data:
        return {}
    out = {}
    for name, count in data["apis"].items():
        out[f"torch.{name}"] = count
        if "." not in name:
            out[f"torch.Tensor.{name}"] = count
    return out


def _float_already(node: cst.BaseExpression) -> bool:
    """A float by its form: a float literal, arithmetic with one, or the output of a layer (self.fc(x))."""
    if isinstance(node, cst.Float):
        return True
    if isinstance(node, cst.BinaryOperation):
        return _float_already(node.left) or _float_already(node.right) or isinstance(node.operator, cst.Divide)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name) \
            and node.func.value.value == "self":
        return True
    return False


def _wrap(ctx: ConversionContext, node: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)) or _float_already(node):
        return node
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == ctx.helpers.get(
            "float_input", ("",))[0]:
        return node
    return cst.Call(func=cst.Name(helpers.use(ctx, "float_input")), args=[cst.Arg(value=node)])


def function(ctx: ConversionContext, api: str, new: cst.BaseExpression) -> cst.BaseExpression:
    """The converted call of `api` (function form) with its leading tensor arguments read as float."""
    count = table().get(api)
    if not count or not isinstance(new, cst.Call) or not new.args or new.args[0].star:
        return new
    args = list(new.args)
    for i in range(min(count, len(args))):
        if args[i].star:  # a keyword is fine: float_input passes anything but a tensor through
            break
        args[i] = args[i].with_changes(value=_wrap(ctx, args[i].value))
    return new.with_changes(args=args)


def method(ctx: ConversionContext, original: cst.Call, new: cst.BaseExpression) -> cst.BaseExpression:
    """x.exp() converted (still a method, or a function call now): the receiver, and the arguments the API reads
    as float, go through float_input. Only PyTorch's own arity counts (x.exp(), x.atan2(y)), and not on `self`
    or an imported module (a Lightning module's self.log("loss", v), math.exp is no tensor method)."""
    func = original.func
    if not isinstance(func, cst.Attribute) or not isinstance(new, cst.Call):
        return new
    api = f"torch.Tensor.{func.attr.value}"
    count = table().get(api)
    receiver = func.value
    if not count or len(original.args) != count - 1 or any(a.keyword or a.star for a in original.args) \
            or (isinstance(receiver, cst.Name) and (receiver.value == "self" or receiver.value in ctx.aliases)):
        return new
    # still the method (x.exp() kept as it is), not the MindSpore function of the same name (ops.exp2(x))
    if isinstance(new.func, cst.Attribute) and new.func.attr.value == api.rsplit(".", 1)[1] \
            and dotted(new.func.value) not in MINDSPORE_MODULES:
        receiver = _wrap(ctx, new.func.value)
        args = list(new.args)
        if count > 1 and args and args[0].keyword is None and not args[0].star:
            args[0] = args[0].with_changes(value=_wrap(ctx, args[0].value))
        return new.with_changes(func=new.func.with_changes(value=receiver), args=args)
    return function(ctx, api, new)
