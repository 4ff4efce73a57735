"""Tensor methods called in forms MindSpore's namesake does not take, written as calls that compute
PyTorch's result (helpers in support/helper_tensor_forms.py):
- factories on a tensor: x.new_ones(2, 3), x.new_zeros(n, requires_grad=True), x.new_empty(2, 3),
  x.new_full(size, v) (MindSpore's new_full is Ascend only; its new_* take one size and dtype= only):
  new_filled(x, size, fill, dtype=...), sizes gathered into one tuple and placement keywords dropped;
- x.type() (PyTorch's type string), x.type(dtype, non_blocking) and x.type('torch.DoubleTensor'):
  tensor_type(x, dtype) (MindSpore's type() answers 'Float32' and takes no non_blocking or type names);
- x.min(other=y) / x.max(other=y): the elementwise overload by keyword -> minimum(x, y) / maximum(x, y);
- x.argmax(keepdim=True), x.argmin(None, True), x.any(keepdim=True): a reduction over every element kept as
  (1,) * ndim (MindSpore's argmax answers a 0-d tensor, its any refuses keepdim= without an axis);
- x.any(dim) / torch.any(x, dim): cast to bool first (MindSpore's any along an axis is wrong for other dtypes).
Forms MindSpore takes as written (x.new_zeros((2, 3), dtype=d), x.type(torch.int32)) stay."""
from __future__ import annotations

import libcst as cst

from analysis.knowledge.placement_keywords import HARMLESS

from ..apis.legacy import CONSTRUCTORS
from ..apis.mapped import convert_call, dtype_name
from ..core import rules
from ..core.context import ConversionContext
from ..apis import target_args
from ..core.names import code, resolve
from ..support import helpers

# method -> the fill value its tensor holds (None: new_full's own argument)
FACTORIES = {"new_ones": "1", "new_zeros": "0", "new_empty": "0", "new_full": None}
# keywords of a placement or autograd detail, dropped where their value changes nothing (placement_keywords)
PLACEMENT = frozenset(HARMLESS)
EXTREMES = {"min": "minimum", "max": "maximum"}
# reductions whose keepdim= without a dim MindSpore answers with another shape (argmax, argmin) or refuses (any)
WHOLE = frozenset({"argmax", "argmin", "any"})
METHODS = frozenset(FACTORIES) | {"type"} | frozenset(EXTREMES) | WHOLE

_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def method(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str) -> cst.BaseExpression | None:
    """The rewritten call, or None where the form is MindSpore's own (or not one of these)."""
    if name not in METHODS or any(a.star == "**" for a in updated.args):
        return None
    receiver = updated.func.value  # type: ignore[union-attr]
    text = code(receiver)
    if text in ("self", "cls") or text.startswith("self.") and name not in FACTORIES:
        return None  # a class's own method of that name
    if name in FACTORIES:
        return _factory(ctx, original, updated, name, receiver)
    if name == "type":
        return _type(ctx, original, updated, receiver)
    if name in WHOLE:
        return _whole(ctx, original, updated, name, receiver)
    return _extreme(ctx, original, updated, name, receiver)


def _arg(value: cst.BaseExpression, keyword: str | None = None) -> cst.Arg:
    return cst.Arg(value=value, keyword=cst.Name(keyword) if keyword else None,
                   equal=_EQUAL if keyword else cst.MaybeSentinel.DEFAULT)


def _call(ctx: ConversionContext, original: cst.Call, api: str, helper: str, values: list[cst.Arg], why: str):
    args = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in values[:-1]]
    return helpers.call(ctx, original, api, helper, args + values[-1:], why=why, rule_id=rules.TENSOR_METHOD)


def _factory(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str, receiver):
    """x.new_ones(2, 3, requires_grad=True) -> new_filled(x, (2, 3), 1)."""
    positional = [a for a in updated.args if a.keyword is None]
    keywords = {a.keyword.value: a.value for a in updated.args if a.keyword is not None}
    if set(keywords) - PLACEMENT - {"size", "dtype", "fill_value"} or "fill_value" in keywords and name != "new_full":
        return None  # a keyword PyTorch's method does not take: another object's method
    if not target_args.harmless_keywords(ctx, original, PLACEMENT):
        return None  # requires_grad=True: a person decides how MindSpore takes that gradient (target_args marks it)
    fill: cst.BaseExpression | None = cst.Integer(FACTORIES[name]) if FACTORIES[name] else keywords.get("fill_value")
    if name == "new_full" and fill is None:
        if len(positional) != 2 or positional[1].star:
            return None
        fill, positional = positional[1].value, positional[:1]
    if "size" in keywords:
        if positional:
            return None
        size = keywords["size"]
    elif len(positional) == 1 and not positional[0].star:
        size = positional[0].value
    elif positional:  # several sizes, or *shape: one tuple
        size = cst.Tuple(elements=[cst.StarredElement(value=a.value) if a.star else cst.Element(value=a.value)
                                   for a in positional])
    else:
        return None
    native = name != "new_full" and not set(keywords) - {"size", "dtype"} and len(positional) <= 1 \
        and not any(a.star for a in positional)
    if native:
        return None  # MindSpore's new_ones/new_zeros/new_empty(size, dtype=) as written
    values = [_arg(receiver), _arg(size), _arg(fill)] + ([_arg(keywords["dtype"], "dtype")] if "dtype" in keywords else [])
    dropped = sorted(set(keywords) & PLACEMENT)
    target_args.record_dropped_values(ctx, original, dropped)
    return _call(ctx, original, f"torch.Tensor.{name}", "new_filled", values,
                 f"MindSpore's {name} takes one size and dtype= only" + (", and runs on Ascend only" if name == "new_full"
                                                                          else "")
                 + (f"; dropped {', '.join(k + '=' for k in dropped)} (no placement or autograd flag on a MindSpore "
                    "tensor)" if dropped else "") + ("; new_empty's values are unspecified in PyTorch, zeros here"
                                                     if name == "new_empty" else ""))


def _is_dtype(ctx: ConversionContext, node: cst.BaseExpression) -> bool:
    """torch.float64, or a legacy type class (torch.cuda.FloatTensor), which the converter writes as a dtype."""
    qualified = resolve(node, ctx.aliases)
    return bool(qualified and (dtype_name(qualified) or qualified in CONSTRUCTORS))


def _type(ctx: ConversionContext, original: cst.Call, updated: cst.Call, receiver):
    """x.type() -> tensor_type(x); x.type(d, True) / x.type(d, non_blocking=b) / x.type('torch.DoubleTensor')
    -> tensor_type(x, d); x.type(torch.float64) stays (MindSpore's type(dtype) casts the same)."""
    slots = ("dtype", "non_blocking")
    bound: dict[str, cst.Arg] = {}
    for index, arg in enumerate(updated.args):
        key = arg.keyword.value if arg.keyword is not None else slots[index] if index < len(slots) else None
        if key not in slots or key in bound or arg.star:
            return None  # not torch.Tensor.type's form
        bound[key] = arg
    given = [i for i, a in enumerate(original.args) if (a.keyword.value if a.keyword else slots[min(i, 1)]) == "dtype"]
    if "dtype" in bound and "non_blocking" not in bound and given and _is_dtype(ctx, original.args[given[0]].value):
        return None
    values = [_arg(receiver)] + ([_arg(bound["dtype"].value)] if "dtype" in bound else [])
    why = ("PyTorch's type string, such as 'torch.FloatTensor'" if "dtype" not in bound else
           "a cast that also reads PyTorch's type names ('torch.DoubleTensor'); non_blocking has no meaning here")
    return _call(ctx, original, "torch.Tensor.type", "tensor_type", values, why)


def _extreme(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str, receiver):
    """x.min(other=y) -> minimum(x, y): the elementwise overload, which only it names other= (MindSpore's
    Tensor.min takes no other=)."""
    if len(updated.args) != 1 or updated.args[0].keyword is None or updated.args[0].keyword.value != "other":
        return None
    return _call(ctx, original, f"torch.Tensor.{name}", EXTREMES[name], [_arg(receiver), _arg(updated.args[0].value)],
                 f"the elementwise {EXTREMES[name]}, which other= selects; NaN where either operand holds one, as "
                 "PyTorch gives it")


def _whole(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str, receiver,
           slots: tuple[str, ...] = ("dim", "keepdim"), api: str = ""):
    """x.argmax(keepdim=True) / x.argmin(dim=None, keepdim=k) -> whole_reduction(x, 'argmax', k): only the
    forms with keepdim and no dim (or dim=None); with a dim MindSpore's method keeps the axis as PyTorch."""
    bound: dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(updated.args):
        key = arg.keyword.value if arg.keyword is not None else slots[index] if index < len(slots) else None
        if key not in slots or key in bound or arg.star:
            return None
        bound[key] = arg.value
    dim = bound.get("dim")
    if dim is not None and not (isinstance(dim, cst.Name) and dim.value == "None"):
        if name != "any":
            return None  # with a dim MindSpore's argmax/argmin keep the axis as PyTorch
        values = [_arg(receiver if receiver is not None else bound["input"]), _arg(dim)] \
            + ([_arg(bound["keepdim"])] if "keepdim" in bound else [])
        return _call(ctx, original, api or "torch.Tensor.any", "any_along", values,
                     "MindSpore's any along an axis answers wrongly for a non-bool tensor: cast to bool first")
    if "keepdim" not in bound:
        return None
    values = [_arg(receiver if receiver is not None else bound["input"]), _arg(cst.SimpleString(f'"{name}"')),
              _arg(bound["keepdim"])]
    return _call(ctx, original, api or f"torch.Tensor.{name}", "whole_reduction", values,
                 f"{name} over every element with keepdim: PyTorch keeps each axis as 1")


def whole_function(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry):
    """torch.argmax(x, keepdim=True) -> whole_reduction(x, 'argmax', True); any other form as the tables say."""
    name = qualified.rsplit(".", 1)[1]
    new = _whole(ctx, original, updated, name, None, ("input", "dim", "keepdim"), qualified)
    return new if new is not None else convert_call(ctx, original, updated, qualified, entry)


# torch functions of the same forms (calls.py registers them)
HANDLERS = {"torch.argmax": whole_function, "torch.argmin": whole_function, "torch.any": whole_function}
