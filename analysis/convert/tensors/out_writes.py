"""torch.op(..., out=buf) for any operator the converter maps (outargs.py keeps its exact cast for the
bool and bitwise ones): the call without out=, converted by the usual dispatch, written into buf by a
support helper (support/helper_callforms.py):

- write_out(buf, <result>, "torch.op"): buf a name or attribute path, or a tensor made in the call
  (torch.empty(0, dtype=...)); buf is returned, keeps its identity (aliases see the values) and takes
  the result's shape, as PyTorch resizes it. A result of another dtype than buf's raises at run time,
  naming the case: PyTorch casts for some operators, computes in buf's dtype for others (cumsum, mean
  into a wider buffer) and raises for most, so nothing but the equal-dtype write is certain;
- sum, cumsum, cumprod into a path: PyTorch computes in buf's dtype, which
  their dtype= says, so dtype=buf.dtype is passed and the result has buf's dtype;
- buf.assign_value(<result>) with no helper where the code states the dtypes (stated_dtypes.py): an
  operator of the cast table whose tensor arguments and buffer are all of one float dtype (a new buffer
  then is the result itself);
- write_out_cast: the same, casting first, for the operators measured to compute in their inputs'
  dtype and cast afterwards (out_cast.json, python -m analysis.verify.out_probe);
- write_outs((a, b), <results>, "torch.op"): a tuple of buffers for an operator with several results
  (torch.max(x, 0, out=(values, indices)), torch.sort, torch.linalg.eigh...);
- buf part of a tensor (x[0], PyTorch writes through it) or anything else: marked.

Creation functions (torch.zeros(2, out=buf), torch.arange, torch.randperm...) take their dtype from
buf in PyTorch: they stay with the mapping tables, which mark out=."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import libcst as cst

from ..apis.signatures import fix_commas
from ..apis.stated_dtypes import DEFAULT_FLOAT, INTEGER_RESULTS, expression_class
from ..core import rules
from ..core.names import dotted, resolve
from ..support import helpers
from .inplace import NEW_TENSORS

CAST_TABLE = Path(__file__).with_name("out_cast.json")
# the result's dtype comes from out= (PyTorch's factory functions): no write afterwards can say it
CREATION = NEW_TENSORS | DEFAULT_FLOAT | INTEGER_RESULTS | {"torch.arange", "torch.full", "torch.tensor",
                                                          "torch.empty_strided", "torch.normal", "torch.poisson",
                                                          "torch.multinomial", "torch.randint_like"}
# operators PyTorch computes in the out= tensor's dtype (sum of int8 into int64 does not wrap around): their
# dtype= says the same, so buf's dtype is passed as dtype= (measured: out_probe's "wide", and the tests)
# (mean, prod, nansum and nanmean compute so too, but their MindSpore forms take no dtype= or cast after
# computing: write_out checks them)
IN_BUFFER_DTYPE = frozenset({"torch.sum", "torch.cumsum", "torch.cumprod"})
PART_OF_A_TENSOR = ("out= names part of a tensor (PyTorch writes through it): write x[...] = <the result> "
                    "in x's dtype")


@lru_cache(maxsize=1)
def cast_after() -> frozenset[str]:
    return frozenset(json.loads(CAST_TABLE.read_text(encoding="utf-8"))["cast"])


def applies(qualified: str | None) -> bool:
    return bool(qualified) and qualified.startswith("torch.") and qualified not in CREATION \
        and not qualified.startswith("torch.Tensor.")


def _buffer(ctx, original: cst.BaseExpression, updated: cst.BaseExpression) -> bool:
    """A buffer the result can be written into as a whole: a path, or a tensor made right there."""
    if dotted(original) is not None:
        return True
    return isinstance(original, cst.Call) and resolve(original.func, ctx.aliases) in NEW_TENSORS


def _stated_same_float(ctx, original: cst.Call, buffer: cst.BaseExpression) -> bool:
    """Whether the code says the result has buffer's dtype: an operator of the cast table (computed in its
    inputs' dtype), every tensor argument and the buffer of one float dtype by stated_dtypes.py (creation
    calls, casts, variables only ever assigned such), the other arguments number literals."""
    float_class = expression_class(ctx, buffer)
    if float_class not in ("float16", "float32", "float64"):
        return False
    for arg in original.args:
        if arg.keyword is not None and arg.keyword.value == "out":
            continue
        value = arg.value.expression if isinstance(arg.value, cst.UnaryOperation) else arg.value
        if isinstance(value, (cst.Integer, cst.Float)):
            continue
        if arg.star or expression_class(ctx, arg.value) != float_class:
            return False
    return True


def rewrite(state, original: cst.Call, updated: cst.Call, qualified: str, out: cst.Arg) -> cst.BaseExpression | None:
    """The call written into its out= buffer(s); `updated` when marked; None to leave the call to the
    mapping tables (which mark out=)."""
    if not applies(qualified):
        return None
    ctx = state.ctx
    original_out = next(a for a in original.args if a.keyword is not None and a.keyword.value == "out")
    several = isinstance(original_out.value, (cst.Tuple, cst.List))
    pairs = list(zip((e.value for e in original_out.value.elements), (e.value for e in out.value.elements))) \
        if several and isinstance(out.value, (cst.Tuple, cst.List)) else [(original_out.value, out.value)]
    if (several and not pairs) or any(isinstance(e, cst.StarredElement) for e in getattr(out.value, "elements", ())) \
            or not all(_buffer(ctx, o, u) for o, u in pairs):
        ctx.mark(original, rules.API_DIFF, qualified, PART_OF_A_TENSOR)
        return updated
    marks = len(ctx.unconverted)
    kept = [a for a in updated.args if a is not out]
    if qualified in IN_BUFFER_DTYPE and not several and dotted(out.value) is not None \
            and not any(a.keyword is not None and a.keyword.value == "dtype" for a in kept):
        kept.append(cst.Arg(keyword=cst.Name("dtype"), value=cst.Attribute(value=out.value, attr=cst.Name("dtype")),
                            equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                  whitespace_after=cst.SimpleWhitespace(""))))
    stripped = updated.with_changes(args=fix_commas(kept))
    value = state.leave_Call(original, stripped)
    if value is stripped:  # the call itself stays marked (the mark says why), or as it was: the tables mark out=
        return updated if len(ctx.unconverted) > marks else None
    # converted, perhaps with a caution above it (a dtype PyTorch's samples found different): it stays
    if not several and qualified in cast_after() and _stated_same_float(ctx, original, original_out.value):
        # the result's dtype is the buffer's: written as it is (a new buffer is the result itself)
        ctx.change(original, rules.API_ARGS, qualified, "mindspore.Tensor.assign_value",
                   "out=buf -> buf.assign_value(<the result>), which has buf's dtype (MindSpore has no out=)")
        if dotted(original_out.value) is None:
            return value
        return cst.Call(func=cst.Attribute(value=out.value, attr=cst.Name("assign_value")), args=[cst.Arg(value=value)])
    name = "write_outs" if several else "write_out_cast" if qualified in cast_after() else "write_out"
    buffers = cst.Tuple(elements=[cst.Element(value=u) for _, u in pairs]) if several else out.value
    helper = helpers.use(ctx, name)
    ctx.change(original, rules.API_ARGS, qualified, f"{name} (local helper)",
               f"out=buf -> {name}(buf, <the result>) writes it into buf, the same object (MindSpore has no "
               "out=); a result of another dtype than buf's raises at run time"
               + (" unless PyTorch casts it" if name == "write_out_cast" else ""))
    return cst.Call(func=cst.Name(helper), args=[
        cst.Arg(value=buffers, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
        cst.Arg(value=value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
        cst.Arg(value=cst.SimpleString(f'"{qualified}"'))])
