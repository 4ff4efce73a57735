"""torch.op(..., out=buf) for element-wise ops whose result PyTorch computes in the inputs' own
types and then casts to buf's dtype exactly (bool results, bitwise ops): MindSpore has no out=.

- buf a name or attribute path: buf.assign_value(op(...).astype(buf.dtype)) writes into the same
  object (aliases see it, and the expression's value is buf, as in PyTorch; a buf of another shape
  takes the result's, as PyTorch resizes it);
- buf a tensor made in the call (torch.empty(4, dtype=torch.bool)): op(...).astype(<it>.dtype), the
  value PyTorch returns;
- anything else (part of a tensor, x[0], which PyTorch writes through) stays marked.

Other ops go to out_writes.py: where the output's dtype is wider than the inputs', PyTorch may compute
in it (a float32 sum into a float64 buffer), so a cast afterwards need not give its values."""
from __future__ import annotations

import libcst as cst

from ..apis.signatures import fix_commas
from ..core import rules
from ..core.names import dotted, resolve
from . import out_writes
from .inplace import NEW_TENSORS

EXACT = frozenset(f"torch.{name}" for name in (
    "logical_and", "logical_or", "logical_xor", "logical_not", "eq", "ne", "lt", "le", "gt", "ge", "greater",
    "greater_equal", "less", "less_equal", "not_equal", "isnan", "isinf", "isfinite", "isposinf", "isneginf",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not"))


def out_arg(call: cst.Call) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == "out"), None)


def rewrite(state, original: cst.Call, updated: cst.Call, qualified: str) -> cst.BaseExpression | None:
    """The call without out= converted by the usual dispatch (state.leave_Call), written into buf;
    None when this is no call of that kind (the dispatch goes on as before)."""
    out = out_arg(updated)
    if out is None or any(a.star for a in updated.args):
        return None
    if isinstance(out.value, cst.Name) and out.value.value == "None":  # PyTorch's default: no buffer
        return state.leave_Call(original, updated.with_changes(args=fix_commas([a for a in updated.args if a is not out])))
    if qualified not in EXACT:
        return out_writes.rewrite(state, original, updated, qualified, out)  # any other operator
    ctx = state.ctx
    buffer = out.value
    original_buffer = out_arg(original).value  # type: ignore[union-attr]
    path = dotted(buffer) is not None
    fresh = isinstance(original_buffer, cst.Call) and resolve(original_buffer.func, ctx.aliases) in NEW_TENSORS
    if not (path or fresh):
        ctx.mark(original, rules.API_DIFF, qualified,
                 "out= names part of a tensor (PyTorch writes through it): write x[...] = <the result>.astype(x.dtype)")
        return updated
    marks = len(ctx.unconverted)
    value = state.leave_Call(original, updated.with_changes(args=fix_commas([a for a in updated.args if a is not out])))
    if len(ctx.unconverted) > marks:
        return updated
    # a new tensor's dtype= is its dtype; any other buffer's is read from it
    dtype = next((a.value for a in buffer.args if a.keyword is not None and a.keyword.value == "dtype"), None) \
        if fresh and isinstance(buffer, cst.Call) else None
    cast = cst.Call(func=cst.Attribute(value=value, attr=cst.Name("astype")),
                    args=[cst.Arg(value=dtype or cst.Attribute(value=buffer, attr=cst.Name("dtype")))])
    if fresh:
        ctx.change(original, rules.API_ARGS, qualified, "mindspore.Tensor.astype",
                   "out=<new tensor> -> the result cast to its dtype (MindSpore has no out=)")
        return cast
    ctx.change(original, rules.API_ARGS, qualified, "mindspore.Tensor.assign_value",
               "out=buf -> buf.assign_value(<the result>.astype(buf.dtype)) (MindSpore has no out=)")
    return cst.Call(func=cst.Attribute(value=buffer, attr=cst.Name("assign_value")), args=[cst.Arg(value=cast)])
