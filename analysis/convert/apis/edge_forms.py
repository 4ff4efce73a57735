"""PyTorch calls whose MindSpore namesake fails or computes something else on edge inputs or argument
forms, found on PyTorch's OpInfo samples (issue 29). The calls become local helpers (support/
helper_edges.py) that take PyTorch's signature; every other form goes on to the mapping tables.

- torch.cross / x.cross: MindSpore's Cross is wrong for operands that broadcast      -> cross()
- torch.index_select / x.index_select: MindSpore's refuses a 0-d input or index      -> index_select()
- torch.squeeze / x.squeeze with dim=(): squeezes nothing in PyTorch, all in MindSpore -> squeeze_dims()
- torch.tensordot: MindSpore's tensor_dot pairs the contracted axes its own way      -> tensordot()
- torch.tensor_split / torch.hsplit (and methods): a tensor of indices or sections,
  and hsplit of a 1-D tensor, which MindSpore refuses                                -> tensor_split(), hsplit()
- x.rot90() without k or dims: MindSpore's method has no defaults                    -> rot90()
- x.any(dim=(1, 3)): MindSpore's method takes a tuple of axes only as axis=           -> any_dims()
- torch.index_put / x.index_put: boolean masks, values that broadcast (IndexPut refuses) -> index_put()
- torch.logdet / x.logdet of an empty matrix (0 in PyTorch)                          -> logdet()
- x.repeat_interleave(repeats) with repeats not an int: no CPU kernel for tensor repeats -> repeat_interleave()
- x.unfold(dimension, size, step): sliding windows along one axis; MindSpore's Tensor.unfold
  takes image patches (im2col)                                                        -> unfold_windows()

Dtypes MindSpore's kernels refuse or compute otherwise (PyTorch's real-dtype samples):
- torch.topk / x.topk of a 0-d tensor: MindSpore's TopK refuses it or crashes             -> topk()
- torch.addbmm / baddbmm (and methods) of integer tensors: float scalars cut to ints,
  products wrapped in the input's dtype; addbmm of float16 summed in float32             -> addbmm(), baddbmm()
- torch.searchsorted: sorter= (no CPU support), float16 and small integer dtypes          -> searchsorted()
- torch.lerp / x.lerp of float64: no float64 kernel                                       -> lerp()
- torch.mvlgamma / x.mvlgamma of integers and float16: float32/float64 kernel only          -> mvlgamma()
- torch.histc / x.histc of float64: no float64 kernel                                     -> histc()
- torch.var_mean / std_mean over nothing: MindSpore's mean of an empty input is 0 or
  whatever memory held, PyTorch's NaN; converted as usual, then through              -> empty_mean_nan()
"""
from __future__ import annotations

import libcst as cst

from ..core.context import ConversionContext
from . import compositions
from .compositions import Form, _helper_call, literal_argument, bind_arguments
from .mapped import convert_call
from ..support import helpers


def _empty_dims(bound: dict[str, cst.Arg]) -> bool:
    return literal_argument(bound, "dim") in ((), [])


def _tuple_dim(bound: dict[str, cst.Arg]) -> bool:
    arg = bound.get("dim")
    return arg is not None and isinstance(arg.value, (cst.Tuple, cst.List)) and set(bound) <= {"dim", "keepdim"}


def _tensor_repeats(bound: dict[str, cst.Arg]) -> bool:  # an int literal runs on MindSpore's method
    return "repeats" in bound and not isinstance(bound["repeats"].value, cst.Integer)


def _split_tensor(bound: dict[str, cst.Arg]) -> bool:  # ints written out run on MindSpore's tensor_split
    return "indices_or_sections" in bound and literal_argument(bound, "indices_or_sections") is ...


CROSS = "MindSpore's cross gives wrong values where the operands broadcast"
INDEX_SELECT = "MindSpore's index_select refuses a 0-d input or a 0-d index"
SQUEEZE = "dim=() squeezes no axis in PyTorch and every axis of size 1 in MindSpore"
SPLIT = "MindSpore's takes the indices or sections as Python ints only"
HSPLIT = "MindSpore's hsplit refuses 1-D tensors and indices given as a tensor"
# the names PyTorch's two split overloads give indices_or_sections (hsplit(x, sections=2), hsplit(x, indices=[1]))
SPLIT_ALIASES = (("sections", "indices_or_sections"), ("indices", "indices_or_sections"))
INDEX_PUT = "MindSpore's IndexPut takes integer indices and 1-D values only"
LOGDET = "MindSpore's logdet refuses an empty matrix"
TOPK = "MindSpore's TopK refuses a 0-d tensor"
ADDBMM = ("MindSpore's gives float32 for integer tensors with float scalars, wraps integer products in their own "
          "dtype and sums float16 in float16")
BADDBMM = "MindSpore's refuses float scalars with integer tensors, which PyTorch cuts to ints"
LERP = "MindSpore's Lerp kernel has no float64"
MVLGAMMA = "MindSpore's Mvlgamma kernel takes float32 and float64 only"
HISTC = "MindSpore's Histogram kernel has no float64"
FORMS = {
    "torch.cross": Form(("input", "other", "dim"), "cross", why=CROSS),
    "torch.index_select": Form(("input", "dim", "index"), "index_select", why=INDEX_SELECT),
    "torch.squeeze": Form(("input", "dim"), "squeeze_dims", _empty_dims, why=SQUEEZE),
    "torch.tensordot": Form(("a", "b", "dims"), "tensordot",
                            why="MindSpore's tensor_dot pairs the contracted axes its own way"),
    "torch.tensor_split": Form(("input", "indices_or_sections", "dim"), "tensor_split", _split_tensor, why=SPLIT),
    "torch.hsplit": Form(("input", "indices_or_sections"), "hsplit", why=HSPLIT, aliases=SPLIT_ALIASES),
    "torch.index_put": Form(("input", "indices", "values", "accumulate"), "index_put", why=INDEX_PUT),
    "torch.logdet": Form(("input",), "logdet", why=LOGDET),
    # dtypes MindSpore's kernels refuse or compute otherwise
    "torch.topk": Form(("input", "k", "dim", "largest", "sorted"), "topk", why=TOPK),
    "torch.addbmm": Form(("input", "batch1", "batch2", "beta", "alpha"), "addbmm", why=ADDBMM),
    "torch.baddbmm": Form(("input", "batch1", "batch2", "beta", "alpha"), "baddbmm", why=BADDBMM),
    "torch.searchsorted": Form(("sorted_sequence", "input", "out_int32", "right", "side", "sorter"), "searchsorted",
                               why="MindSpore's CPU kernel takes no sorter= and refuses float16 and small integers"),
    "torch.lerp": Form(("input", "end", "weight"), "lerp", why=LERP),
    "torch.mvlgamma": Form(("input", "p"), "mvlgamma", why=MVLGAMMA),
    "torch.histc": Form(("input", "bins", "min", "max"), "histc", why=HISTC),
}
# Tensor methods -> the helper, with the receiver as its input
METHODS = {
    "cross": Form(("other", "dim"), "cross", why=CROSS),
    "unfold": Form(("dimension", "size", "step"), "unfold_windows", lambda bound: len(bound) == 3,
                   why="MindSpore's Tensor.unfold takes image patches, not windows along one axis"),
    "index_select": Form(("dim", "index"), "index_select", why=INDEX_SELECT),
    "squeeze": Form(("dim",), "squeeze_dims", _empty_dims, why=SQUEEZE),
    "tensor_split": Form(("indices_or_sections", "dim"), "tensor_split", _split_tensor, why=SPLIT),
    "hsplit": Form(("indices_or_sections",), "hsplit", why=HSPLIT, aliases=SPLIT_ALIASES),
    "rot90": Form(("k", "dims"), "rot90", lambda bound: "k" not in bound or "dims" not in bound,
                  why="MindSpore's Tensor.rot90 has no defaults for k and dims"),
    "index_put": Form(("indices", "values", "accumulate"), "index_put", why=INDEX_PUT),
    "logdet": Form((), "logdet", why=LOGDET),
    "repeat_interleave": Form(("repeats", "dim", "output_size"), "repeat_interleave", _tensor_repeats,
                              why="MindSpore's Tensor.repeat_interleave has no CPU kernel for repeats given as a tensor"),
    "any": Form(("dim", "keepdim"), "any_dims", _tuple_dim, why="MindSpore's Tensor.any takes a tuple of axes as axis="),
    "topk": Form(("k", "dim", "largest", "sorted"), "topk", why=TOPK),
    "addbmm": Form(("batch1", "batch2", "beta", "alpha"), "addbmm", why=ADDBMM),
    "baddbmm": Form(("batch1", "batch2", "beta", "alpha"), "baddbmm", why=BADDBMM),
    "lerp": Form(("end", "weight"), "lerp", why=LERP),
    "mvlgamma": Form(("p",), "mvlgamma", why=MVLGAMMA),
    "histc": Form(("bins", "min", "max"), "histc", why=HISTC),
}


def rewrite(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry):
    form = FORMS[qualified]
    bound = bind_arguments(updated, form.params, form.aliases)
    if bound is None or not form.matches(bound):
        return convert_call(ctx, original, updated, qualified, entry)
    return _helper_call(ctx, original, qualified, form.helper, list(bound.values()), form.why)


def method_call(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str):
    """x.cross(y) -> cross(x, y), x.rot90() -> rot90(x), ...; None for any other call."""
    return compositions.method_call(ctx, original, updated, name, METHODS)


def mean_of_empty(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry):
    """torch.var_mean(x, ...) converted as usual (ops.var_mean(x, axis=, ddof=)), then called through
    empty_mean_nan(ops.var_mean, x, ...), which gives NaN means where the input is empty as PyTorch does."""
    marks = len(ctx.unconverted)
    new = convert_call(ctx, original, updated, qualified, entry)
    if len(ctx.unconverted) != marks or not isinstance(new, cst.Call) or new is updated or not new.args:
        return new
    head = cst.Arg(new.func, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    args = [head, *new.args[:-1], new.args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    return helpers.call(ctx, original, qualified, "empty_mean_nan", args, shown=qualified.rsplit(".", 1)[1],
                        why="MindSpore's mean of an empty input is 0 or garbage, PyTorch's NaN")


HANDLERS = {name: rewrite for name in FORMS}
HANDLERS.update({"torch.var_mean": mean_of_empty, "torch.std_mean": mean_of_empty})
