"""In-place tensor methods (x.add_(1), x.zero_(), x.clamp_(0, 1)). On MindSpore 2.10's CPU they
either have no kernel (InplaceZero, InplaceFillScalar...), are missing, or return a new tensor and
leave x as it was (add_, mul_, exp_): run as they are, they raise or silently change nothing. The
out-of-place method's result is written back with assign_value, which keeps x the same object
(aliases and Parameters see the change, as in PyTorch), returns it, and keeps gradients flowing
under value_and_grad. Methods that change the shape in place, or draw random values, are marked."""
from __future__ import annotations

import libcst as cst

from . import rules
from .context import ConversionContext
from .names import code, dotted

# In-place methods that work as they are on MindSpore (or change no values)
KEEP = frozenset({"copy_", "requires_grad_", "share_memory_", "retain_grad_", "fill_diagonal_", "scatter_",
                  "cauchy_"})  # the last three: the mapping tables' own entries (tensors._in_place)
SHAPE = frozenset({"unsqueeze_", "squeeze_", "t_", "transpose_", "resize_", "resize_as_", "swapaxes_",
                   "swapdims_", "as_strided_", "set_"})
RANDOM = frozenset({"uniform_", "normal_", "bernoulli_", "random_", "exponential_", "geometric_", "log_normal_"})
# in-place methods whose new value is built from x itself: name -> (MindSpore function, arguments it takes)
FRESH = {"zero_": ("mindspore.ops.zeros_like", 0), "fill_": ("mindspore.ops.full_like", 1)}


def names(classic) -> frozenset[str]:
    """In-place method names this module acts on (outline.py walks the lines naming them)."""
    mapped = {entry.torch.rsplit(".", 1)[1] for entry in classic
              if entry.torch.startswith("torch.Tensor.") and entry.torch.count(".") == 2}
    return frozenset({f"{m}_" for m in mapped if not m.endswith("_")} | SHAPE | RANDOM | set(FRESH))


def is_in_place(name: str) -> bool:
    return name.endswith("_") and not name.endswith("__") and not name.startswith("_") and name not in KEEP


def rewrite(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str, mapped) -> cst.BaseExpression | None:
    """x.op_(args) -> x.assign_value(<x.op(args) converted>); marked when that cannot be said;
    None when op is no tensor method the tables know (another object's method)."""
    api = f"torch.Tensor.{name}"
    receiver = updated.func.value  # type: ignore[union-attr]
    if name in SHAPE:
        ctx.mark(original, rules.TENSOR_METHOD, api,
                 f"{name}() changes the shape in place, which MindSpore tensors cannot: rebind the name, "
                 f"x = x.{name[:-1]}(...)")
        return updated
    if name in RANDOM:
        ctx.mark(original, rules.TENSOR_METHOD, api,
                 f"{name}() has no MindSpore CPU kernel: draw the values with mindspore.ops (uniform, normal, "
                 "bernoulli...) and write them with x.assign_value(...)")
        return updated
    if name in FRESH:
        function, count = FRESH[name]
        if len(updated.args) != count or any(a.keyword or a.star for a in updated.args):
            return None
        value = cst.Call(func=ctx.ms_expr(function),
                         args=[cst.Arg(value=receiver), *[a.with_changes(comma=cst.MaybeSentinel.DEFAULT)
                                                          for a in updated.args]])
        if count:
            value = value.with_changes(args=[value.args[0].with_changes(
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), *value.args[1:]])
        return _write_back(ctx, original, updated, value, name, function.rsplit(".", 1)[1])
    base = name[:-1]
    entry = ctx.classic.get(f"torch.Tensor.{base}")
    if entry is None:
        return None
    out_of_place = updated.with_changes(func=updated.func.with_changes(attr=cst.Name(base)))  # type: ignore[union-attr]
    marks = len(ctx.unconverted)
    value = mapped(ctx, original, out_of_place, base)
    if len(ctx.unconverted) > marks:
        return updated  # the out-of-place call was marked: the in-place one stays as it was
    if value is None:
        if entry.category != "consistent" or entry.primary != f"mindspore.Tensor.{base}":
            ctx.mark(original, rules.TENSOR_METHOD, api,
                     f"MindSpore's in-place {name}() fails on CPU or leaves the tensor as it was, and {base}() "
                     f"differs ({entry.primary or 'no counterpart'}): compute the new value and write it with "
                     "x.assign_value(...)")
            return updated
        value = out_of_place
    return _write_back(ctx, original, updated, value, name, base)


def _write_back(ctx, original, updated, value, name: str, base: str):
    receiver = updated.func.value
    if dotted(receiver) is None:  # a temporary (torch.zeros(3).fill_(1)): its new value is the result
        ctx.change(original, rules.TENSOR_METHOD, f"torch.Tensor.{name}", f"mindspore.Tensor.{base}",
                   f"in-place {name}() on a temporary -> {base}() (MindSpore's in-place methods fail on CPU)")
        return value
    if code(receiver) in ("self", "cls"):
        ctx.mark(original, rules.TENSOR_METHOD, f"torch.Tensor.{name}",
                 f"in-place {name}() on the object itself: write the new value with self.assign_value(...)")
        return updated
    ctx.change(original, rules.TENSOR_METHOD, f"torch.Tensor.{name}", "mindspore.Tensor.assign_value",
               f"x.{name}(...) -> x.assign_value(<{base}(...)>) (MindSpore's in-place methods fail on CPU or "
               "return a new tensor)")
    return cst.Call(func=cst.Attribute(value=receiver, attr=cst.Name("assign_value")), args=[cst.Arg(value=value)])
