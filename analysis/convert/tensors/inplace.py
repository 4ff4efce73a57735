"""In-place tensor methods (x.add_(1), x.zero_(), x.clamp_(0, 1)). On MindSpore 2.10's CPU they
either have no kernel (InplaceZero, InplaceFillScalar...), are missing, or return a new tensor and
leave x as it was (add_, mul_, exp_): run as they are, they raise or silently change nothing. The
out-of-place method's result is written back with assign_value, which keeps x the same object
(aliases and Parameters see the change, as in PyTorch), returns it, and keeps gradients flowing
under value_and_grad. Methods that change the shape in place rebind the name where they make up a
statement (_reshaped); random fills are drawn afresh (random_fills.py).
inplace_methods.json (measured by python -m analysis.verify.inplace_probe) decides per method: one that
mutates is left alone, one whose out-of-place form was not measured equal to PyTorch's is marked."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import libcst as cst

from ..apis import compositions
from ..apis.verdict_hook import known_broken, verified
from ..core import fresh, rules
from ..core.context import ConversionContext
from ..core.names import code, dotted, resolve
from . import random_fills

TABLE_PATH = Path(__file__).with_name("inplace_methods.json")
# what to write where the out-of-place form is not a drop-in (bool result, other argument order)
HINTS = {
    **{n: f"x.{n}(y) keeps x's dtype: write x.assign_value(x.{n[:-1]}(y).astype(x.dtype))"
       for n in ("eq_", "ne_", "not_equal_", "lt_", "le_", "gt_", "ge_", "less_", "less_equal_", "greater_",
                 "greater_equal_", "logical_and_", "logical_or_", "logical_xor_", "logical_not_")},
    **{n: f"write x.assign_value(ops.{n[:-1]}(...)) after checking MindSpore's argument order"
       for n in ("index_copy_", "scatter_add_", "put_")},
    # measured (helper_source.index_add/index_fill): int32 indices, and IndexAdd adds into its input in place
    "index_add_": "write ops.index_add(x, index.astype(mindspore.int32), source * alpha, dim): MindSpore's adds "
                  "into x in place (float16/32/64 and int8/16/32 tensors) and takes int32 indices only",
    "index_fill_": "write x.assign_value(x.index_fill(dim, index.astype(mindspore.int32), value)): MindSpore's "
                   "takes int32 indices only (and has no bool or complex kernel)",
}

# in-place methods written back cast to x's dtype, x.assign_value(x.lt(y).astype(x.dtype)): comparisons and
# logical ones give bool where PyTorch keeps x's dtype; the integer ones (bitwise, shifts, gcd, lcm) went unprobed
# (the probe fills float tensors), their out-of-place forms keep the ints' dtype and the cast is a no-op
SAME_DTYPE = frozenset({"eq_", "ne_", "not_equal_", "lt_", "le_", "gt_", "ge_", "less_", "less_equal_", "greater_",
                        "greater_equal_", "logical_and_", "logical_or_", "logical_xor_", "logical_not_",
                        "bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_not_", "bitwise_left_shift_",
                        "bitwise_right_shift_", "gcd_", "lcm_",
                        "copysign_"})  # copysign() promotes as PyTorch's function does (float16 with float32 is float32)

# In-place methods that work as they are on MindSpore (or change no values)
KEEP = frozenset({"copy_", "requires_grad_", "share_memory_", "retain_grad_", "fill_diagonal_", "scatter_",
                  "cauchy_"})  # the last three: the mapping tables' own entries (_mapped() below)
SHAPE = frozenset({"unsqueeze_", "squeeze_", "t_", "transpose_", "resize_", "resize_as_", "swapaxes_",
                   "swapdims_", "as_strided_", "set_"})
# the ones whose out-of-place method gives the new tensor (resize_ keeps or invents elements, set_ shares storage)
REBINDABLE = frozenset({"unsqueeze_", "squeeze_", "t_", "transpose_", "swapaxes_", "swapdims_"})
RANDOM = frozenset(random_fills.FILLS)  # drawn afresh and written back (random_fills.py)
# in-place methods whose new value is built from x itself: name -> (MindSpore function, arguments it takes,
# the keyword the argument may be given by)
FRESH = {"zero_": ("mindspore.ops.zeros_like", 0, None), "fill_": ("mindspore.ops.full_like", 1, "value")}
# torch functions whose result is a new tensor of its own (no view of another): an in-place call on it
# can simply return the new value
NEW_TENSORS = frozenset({"torch.zeros", "torch.ones", "torch.empty", "torch.full", "torch.tensor", "torch.eye",
                         "torch.arange", "torch.linspace", "torch.rand", "torch.randn", "torch.randint",
                         "torch.zeros_like", "torch.ones_like", "torch.empty_like", "torch.full_like",
                         "torch.rand_like", "torch.randn_like"})


@lru_cache(maxsize=1)
def table() -> dict:
    return json.loads(TABLE_PATH.read_text())["methods"]


def names(classic) -> frozenset[str]:
    """In-place method names this module acts on (outline.py walks the lines naming them)."""
    mapped = {entry.torch.rsplit(".", 1)[1] for entry in classic
              if entry.torch.startswith("torch.Tensor.") and entry.torch.count(".") == 2}
    return frozenset({f"{m}_" for m in mapped if not m.endswith("_")} | set(table()) | SHAPE | RANDOM | set(FRESH))


def _mutates(row: dict) -> bool:
    return row.get("tensor") == "mutates" and row.get("parameter") == "mutates"


def _status(row: dict, name: str) -> str:
    return {"missing": f"MindSpore's Tensor has no {name}", "raises": f"MindSpore's {name} raises on CPU",
            "returns-only": f"MindSpore's {name} returns the value but leaves the tensor unchanged"}.get(
        row.get("tensor"), f"MindSpore's {name} was not measured to update the tensor")


def _mentions_grad(nodes) -> bool:
    found = []

    class Visitor(cst.CSTVisitor):
        def visit_Attribute(self, attr: cst.Attribute) -> None:
            if attr.attr.value == "grad":
                found.append(attr)

    for node in nodes:
        node.visit(Visitor())
    return bool(found)


def _assigned_path(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """P for P.assign_value(...) on a path: an in-place call converted already (a.mul_(m).add_(x))."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
            and node.func.attr.value == "assign_value" and dotted(node.func.value) is not None:
        return node.func.value
    return None


def is_in_place(name: str) -> bool:
    return name.endswith("_") and not name.endswith("__") and not name.startswith("_") and name not in KEEP


def _target(ctx: ConversionContext, original: cst.Call, receiver: cst.BaseExpression, source=None):
    """What the in-place call writes to: (kind, receiver) with kind 'path' for a name or attribute chain
    (x.data is a copy in MindSpore, so x itself), 'grad' for a gradient (MindSpore has none: marked),
    'self' for the object itself, 'new' for a tensor just built (torch.zeros(3).fill_(1)), and 'part'
    for part of a tensor or a computed one (x[1:], x.view(-1), make()), which may share x's memory.
    source: the receiver before conversion, where it is no method's (torch.relu_(x): inplace_functions.py)."""
    if isinstance(receiver, cst.Attribute) and receiver.attr.value == "data":
        receiver = receiver.value
    if isinstance(receiver, cst.Attribute) and receiver.attr.value == "grad":
        return "grad", receiver
    if dotted(receiver) is not None:
        return ("self" if code(receiver) in ("self", "cls") else "path"), receiver
    if (chained := _assigned_path(receiver)) is not None:
        return "chain", chained
    source = original.func.value if source is None else source  # type: ignore[union-attr]
    if isinstance(source, cst.Call) and (resolve(source.func, ctx.aliases) in NEW_TENSORS
                                         or fresh.is_fresh(ctx, source)):
        return "new", receiver
    if isinstance(receiver, (cst.BinaryOperation, cst.UnaryOperation)):
        return "new", receiver  # (a - b).clamp_(0, 1): a new tensor nothing else sees
    return "part", receiver


def method(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str, out_of_place, known):
    """The one entry for a tensor method call, in place or not. An in-place method the tables do not
    map: its out-of-place form, converted by out_of_place(ctx, original, call, name), written back
    (_rewrite). Any other: known(finish) converts it as the tables say and hands the result to finish,
    which writes it back when the tables turned an in-place method into an out-of-place one (_mapped)."""
    if is_in_place(name) and ctx.classic.get(f"torch.Tensor.{name}") is None \
            and f"torch.Tensor.{name}" not in ctx.classic.manual:  # a curated instruction: known() marks it
        return _rewrite(ctx, original, updated, name, out_of_place)
    return known(lambda new: _mapped(ctx, original, name, new))


def _rewrite(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str, mapped) -> cst.BaseExpression | None:
    """x.op_(args) -> x.assign_value(<x.op(args) converted>); marked when that cannot be said;
    None when op is no tensor method the tables know (another object's method) or one measured to mutate."""
    api = f"torch.Tensor.{name}"
    if name in SHAPE:
        return _reshaped(ctx, original, updated, name, mapped)
    if name in RANDOM:
        kind, target = _target(ctx, original, updated.func.value)  # type: ignore[union-attr]
        if kind == "grad":
            return _mark_grad(ctx, original, updated, name)
        return random_fills.rewrite(ctx, original, updated, name, kind, target)
    row = table().get(name)
    if (row is not None and _mutates(row)) or \
            (row is None and name not in FRESH and ctx.classic.get(f"torch.Tensor.{name[:-1]}") is None):
        return None  # mutates as it is, or no tensor method (another object's)
    receiver = updated.func.value  # type: ignore[union-attr]
    kind, target = _target(ctx, original, receiver)
    if kind == "grad" or _mentions_grad(a.value for a in updated.args):
        return _mark_grad(ctx, original, updated, name)
    if name not in FRESH:
        if name not in SAME_DTYPE and (row is None or row.get("tensor") == "unprobed" or not row.get("out_of_place_ok")) \
                and not _curated_out_of_place(ctx, name):
            hint = HINTS.get(name) or f"write x.assign_value(x.{(row or {}).get('out_of_place', name[:-1])}(...))"
            ctx.mark(original, rules.TENSOR_METHOD, api,
                     f"{_status(row or {}, name)} and its out-of-place form was not measured equal to PyTorch's: "
                     f"{hint}")
            return updated
        broken = known_broken(api, [])
        if broken:
            ctx.mark(original, rules.TENSOR_METHOD, api, broken)
            return updated
    # a chain (a.assign_value(...).add_(x)) keeps its converted receiver as the value's source
    source = receiver if kind == "chain" else target
    receiver, kind = target, ("path" if kind == "chain" else kind)
    updated = updated.with_changes(func=updated.func.with_changes(value=source))  # type: ignore[union-attr]
    if name in FRESH:
        function, count, keyword = FRESH[name]
        if len(updated.args) != count or any(a.star or (a.keyword and a.keyword.value != keyword)
                                             for a in updated.args):
            return None
        value = cst.Call(func=ctx.ms_expr(function),
                         args=[cst.Arg(value=source), *[cst.Arg(value=a.value) for a in updated.args]])
        if count:
            value = value.with_changes(args=[value.args[0].with_changes(
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), *value.args[1:]])
        return _write_back(ctx, original, updated, receiver, value, name, function.rsplit(".", 1)[1], kind)
    base = (row or {}).get("out_of_place") or name[:-1]
    entry = ctx.classic.get(f"torch.Tensor.{base}")
    out_of_place = updated.with_changes(func=updated.func.with_changes(attr=cst.Name(base)))  # type: ignore[union-attr]
    marks = len(ctx.unconverted)
    value = mapped(ctx, original, out_of_place, base)
    if len(ctx.unconverted) > marks:
        return updated  # the out-of-place call was marked: the in-place one stays as it was
    if value is None:  # left as it is: fine where the tables say so, or the verification ran it so
        if entry is not None and (entry.category != "consistent" or entry.primary != f"mindspore.Tensor.{base}") \
                and not verified(f"torch.Tensor.{base}"):
            ctx.mark(original, rules.TENSOR_METHOD, api,
                     f"MindSpore's in-place {name}() fails on CPU or leaves the tensor as it was, and {base}() "
                     f"differs ({entry.primary or 'no counterpart'}): compute the new value and write it with "
                     "x.assign_value(...)")
            return updated
        value = out_of_place
    if name in SAME_DTYPE:
        value = cst.Call(func=cst.Attribute(value=value, attr=cst.Name("astype")),
                         args=[cst.Arg(value=cst.Attribute(value=receiver, attr=cst.Name("dtype")))])
    return _write_back(ctx, original, updated, receiver, value, name, base, kind)


def _reshaped(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str, mapped) -> cst.BaseExpression:
    """x.squeeze_(): MindSpore tensors cannot change their shape in place. On a new tensor (torch.zeros(2, 1)
    .squeeze_()) the out-of-place result is the same; on a name that makes up a statement
    (x.squeeze_(), y = x.squeeze_()) the statement rebinds it to that result (assignments.py); else marked.
    Other names for x's tensor (an earlier z = x) are not followed."""
    api, base = f"torch.Tensor.{name}", name[:-1]
    kind, target = _target(ctx, original, updated.func.value)  # type: ignore[union-attr]
    # a plain name only: an attribute may hold a Parameter, which a cell cannot have rebound to a tensor
    rebound = kind == "path" and isinstance(target, cst.Name) and id(original) in ctx.statement_calls
    if name in REBINDABLE and (kind == "new" or rebound):
        marks = len(ctx.unconverted)
        func = updated.func.with_changes(attr=cst.Name(base))  # type: ignore[union-attr]
        out_of_place = updated.with_changes(func=func)
        value = mapped(ctx, original, out_of_place, base) or out_of_place
        if len(ctx.unconverted) == marks:
            if rebound:
                ctx.shape_rebinds[id(original)] = target
            ctx.change(original, rules.TENSOR_METHOD, api, f"mindspore.Tensor.{base}",
                       f"{name}() -> {base}()" + (f", {code(target)} bound to the result" if rebound else ""))
            return value
        return updated
    ctx.mark(original, rules.TENSOR_METHOD, api,
             f"{name}() changes the shape in place, which MindSpore tensors cannot: rebind the name, "
             f"x = x.{base}(...)")
    return updated


def _curated_out_of_place(ctx: ConversionContext, name: str) -> bool:
    """Whether the tables rewrite the out-of-place method to a MindSpore function or a helper (x.exp2() ->
    ops.exp2(x), x.addcdiv(...) -> addcdiv(x, ...)) that the verification found equal to PyTorch on every
    call: its result is what the in-place method writes, even where MindSpore's own method of that name
    (what the probe measured) is missing or fails."""
    entry = ctx.classic.get(f"torch.Tensor.{name[:-1]}")
    composed = name[:-1] in compositions.METHODS  # x.index_fill(...) -> index_fill(x, ...)
    return entry is not None and bool(entry.helper or entry.primary.startswith("mindspore.ops.") or composed) \
        and verified(f"torch.Tensor.{name[:-1]}")


def _mapped(ctx: ConversionContext, original: cst.Call, name: str, new):
    """An in-place method the tables map to an out-of-place one (x.fill_diagonal_(v) -> x.fill_diagonal(v),
    a new tensor that leaves x alone): written back to x the same way."""
    if not (isinstance(new, cst.Call) and name.endswith("_") and not name.endswith("__")
            and isinstance(new.func, cst.Attribute) and not new.func.attr.value.endswith("_")):
        row = table().get(name)
        still_in_place = new is None or (isinstance(new, cst.Call) and isinstance(new.func, cst.Attribute)
                                         and new.func.attr.value == name)
        if still_in_place and name in KEEP and row is not None and not _mutates(row):
            # a form the mapping did not take: as it is, the measured method fails on MindSpore. The mark
            # names the method only, so a converted receiver (torch.zeros(3) -> ops.zeros) keeps no torch import.
            ctx.mark(original.func.attr if isinstance(original.func, cst.Attribute) else original,
                     rules.TENSOR_METHOD, f"torch.Tensor.{name}",
                     f"{_status(row, name)}: write x.assign_value(x.{row.get('out_of_place', name[:-1])}(...))")
        return new
    kind, receiver = _target(ctx, original, new.func.value)
    if kind == "grad":
        return _mark_grad(ctx, original, None, name)
    return _write_back(ctx, original, original, receiver, new, name, new.func.attr.value, kind)


def _mark_grad(ctx, original, updated, name: str):
    ctx.mark(original, rules.TENSOR_METHOD, f"torch.Tensor.{name}",
             f"{name} on or with .grad: MindSpore has no .grad; take gradients from mindspore.value_and_grad "
             f"and update with p.assign_value(p.{name[:-1]}(grad, ...)) or an optimizer")
    return updated


def _write_back(ctx, original, updated, receiver, value, name: str, base: str, kind: str, api: str | None = None):
    """value (x's new value) written to the receiver (of the kind _target found); `updated` stays when marked.
    api: the torch API the records name (an in-place function's; a method's by default)."""
    shown = f"x.{name}(...)" if api is None else f"{api}(x, ...)"
    api = api or f"torch.Tensor.{name}"
    if kind == "new":  # its new value is the result
        ctx.change(original, rules.TENSOR_METHOD, api, f"mindspore.Tensor.{base}",
                   f"in-place {name}() on a new tensor -> {base}() (MindSpore's in-place methods fail on CPU)")
        return value
    if kind == "self":
        ctx.mark(original, rules.TENSOR_METHOD, api,
                 f"in-place {name}() on the object itself: write the new value with self.assign_value(...)")
        return updated
    if kind == "part":
        ctx.mark(original, rules.TENSOR_METHOD, api,
                 f"MindSpore's in-place {name}() fails on CPU or leaves the tensor as it was: for a whole tensor "
                 f"write x.assign_value(<its new value>), for part of one x[index] = value "
                 f"(x[index] = x[index].{base}(...))")
        return updated
    ctx.change(original, rules.TENSOR_METHOD, api, "mindspore.Tensor.assign_value",
               f"{shown} -> x.assign_value(<{base}(...)>) (MindSpore's in-place methods fail on CPU or "
               "return a new tensor)")
    return cst.Call(func=cst.Attribute(value=receiver, attr=cst.Name("assign_value")), args=[cst.Arg(value=value)])


def write_in_place(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str, base: str, value_of):
    """x.name(...) whose new value value_of(source) builds (source: the receiver as the value's input, or
    None from value_of when it marked the call): written back as _rewrite() writes an out-of-place value."""
    receiver = updated.func.value  # type: ignore[union-attr]
    kind, target = _target(ctx, original, receiver)
    if kind == "grad" or _mentions_grad(a.value for a in updated.args):
        return _mark_grad(ctx, original, updated, name)
    value = value_of(receiver if kind == "chain" else target)
    if value is None:
        return updated
    return _write_back(ctx, original, updated, target, value, name, base, "path" if kind == "chain" else kind)
