"""PyTorch calls whose MindSpore namesake computes something else for some of their forms: those
forms become a call of a local helper (helper_source.py) that computes PyTorch's values; every
other form goes on to the mapping tables as before.

- torch.diag(x, k) / x.diag(k): ops.diag builds a matrix of any input and takes no k -> diag()
- torch.max(x) / torch.min(x) / torch.median(x) / torch.nanmedian(x) over the whole tensor:
  MindSpore's return (values, indices) along an axis, and its max/min skip NaN -> max_all() ...
- torch.copysign(x, other): MindSpore reads -0.0 (and -nan) in other as positive -> copysign()
- torch.repeat_interleave(repeats): no such MindSpore form -> repeat_interleave_index();
  output_size= (a hint that saves a device sync) is dropped
- torch.bucketize(x, boundaries): MindSpore's takes the boundaries as a list -> bucketize()
  (ops.searchsorted)
- torch.combinations: MindSpore's gives a float (0,) tensor or fails where PyTorch's is empty
- torch.narrow / x.narrow: MindSpore's takes neither a negative start nor a tensor one -> narrow()
- F.multilabel_margin_loss / nn.MultiLabelMarginLoss: no CPU kernel (and no mindspore.nn class)
  -> multilabel_margin_loss() / a MultiLabelMarginLoss cell written out with classic ops
- torch.masked_scatter / x.masked_scatter: PyTorch broadcasts input and mask together, MindSpore
  only mask to input -> masked_scatter()
- x.median() / x.nanmedian() with no argument: as the functions above
- x.copysign(other) (and x.copysign_(other), written back): as torch.copysign
- torch.range: inclusive of end and float32 in PyTorch, MindSpore's excludes end -> range_inclusive()
- F.relu6 / nn.ReLU6, F.hardshrink, F.softshrink...: kernels without float64 -> compositions
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable

import libcst as cst

from ..core import rules
from ..core.context import ConversionContext
from ..support import helpers
from .mapped import convert_call


def bind_arguments(call: cst.Call, params: tuple[str, ...], aliases: tuple[tuple[str, str], ...] = ()
                   ) -> dict[str, cst.Arg] | None:
    """The call's arguments by PyTorch parameter name; None for *args/**kwargs, an unknown keyword
    (out= ...) or too many positional arguments: such calls go on to the tables, which mark them.
    aliases: (keyword, parameter) pairs of the other names PyTorch's overloads take (torch.hsplit(x,
    sections=2)): such an argument is bound, and written, under the parameter's name."""
    bound: dict[str, cst.Arg] = {}
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args) or len(positional) > len(params):
        return None
    bound.update(zip(params, positional))
    renamed = dict(aliases)
    for arg in call.args:
        if arg.keyword is not None:
            name = renamed.get(arg.keyword.value, arg.keyword.value)
            if name not in params or name in bound:
                return None
            bound[name] = arg if name == arg.keyword.value else arg.with_changes(keyword=cst.Name(name))
    return bound


@dataclass(frozen=True)
class Form:
    """A PyTorch function's parameters, the helper its matching calls become, and which calls match."""

    params: tuple[str, ...]
    helper: str
    matches: Callable[[dict[str, cst.Arg]], bool] = lambda bound: True
    why: str = ""
    aliases: tuple[tuple[str, str], ...] = ()  # other keywords PyTorch's overloads take (bind_arguments)


def _only(*names: str) -> Callable[[dict[str, cst.Arg]], bool]:
    return lambda bound: set(bound) == set(names)


def literal_argument(bound: dict[str, cst.Arg], name: str, missing=None):
    """An argument's value where it is written as a literal (a string, a number, True/False/None), `missing`
    where it is not passed, Ellipsis for any other expression."""
    arg = bound.get(name)
    if arg is None:
        return missing
    try:
        return ast.literal_eval(cst.Module([]).code_for_node(arg.value))
    except (ValueError, SyntaxError):
        return ...


def _no_legacy(bound: dict[str, cst.Arg]) -> bool:  # size_average=/reduce= by keyword are folded already (legacy.py)
    return "size_average" not in bound and "reduce" not in bound


NO_KERNEL = "MindSpore's multilabel_margin_loss has no CPU kernel"
NO_FLOAT64 = "MindSpore's {} kernel has no float64"
SCATTER = "PyTorch broadcasts input and mask together, MindSpore only mask to input"
INT32_INDEX = "MindSpore's kernel takes int32 indices only (PyTorch's are int64)"
WHOLE = "over the whole tensor: MindSpore's works along an axis and returns (values, indices)"
FORMS = {
    "torch.diag": Form(("input", "diagonal"), "diag",
                       why="ops.diag builds a matrix of any input and takes no diagonal offset"),
    "torch.max": Form(("input",), "max_all", _only("input"), why=f"{WHOLE}; its max skips NaN"),
    "torch.min": Form(("input",), "min_all", _only("input"), why=f"{WHOLE}; its min skips NaN"),
    "torch.median": Form(("input",), "median_all", _only("input"), why=WHOLE),
    "torch.nanmedian": Form(("input",), "nanmedian_all", _only("input"), why=WHOLE),
    "torch.copysign": Form(("input", "other"), "copysign",
                           why="MindSpore's copysign reads -0.0 in other as positive"),
    "torch.repeat_interleave": Form(("repeats",), "repeat_interleave_index",
                                    why="MindSpore has no repeats-only form"),
    "torch.bucketize": Form(("input", "boundaries", "out_int32", "right"), "bucketize",
                            why="MindSpore's bucketize takes the boundaries as a list of floats"),
    "torch.combinations": Form(("input", "r", "with_replacement"), "combinations",
                               why="MindSpore's answers an empty result with a float (0,) tensor or an error"),
    "torch.narrow": Form(("input", "dim", "start", "length"), "narrow",
                         why="MindSpore's narrow takes neither a negative start nor a tensor one"),
    "torch.nn.functional.multilabel_margin_loss": Form(
        ("input", "target", "size_average", "reduce", "reduction"), "multilabel_margin_loss", _no_legacy,
        why=NO_KERNEL),
    "torch.nn.MultiLabelMarginLoss": Form(("size_average", "reduce", "reduction"), "MultiLabelMarginLoss", _no_legacy,
                                          why=f"mindspore.nn has none and {NO_KERNEL}"),
    "torch.masked_scatter": Form(("input", "mask", "source"), "masked_scatter", _only("input", "mask", "source"),
                                 why=SCATTER),
    # torch.nn.functional (issue 29, PyTorch's samples): kernels without PyTorch's dtypes or forms
    "torch.nn.functional.relu6": Form(("input", "inplace"), "relu6",
                                      lambda bound: literal_argument(bound, "inplace", False) is False,
                                      why="MindSpore's ReLU6 kernel takes float16/float32 only"),
    "torch.range": Form(("start", "end", "step", "dtype", "device"), "range_inclusive",
                        lambda bound: "start" in bound and "end" in bound,
                        why="MindSpore's range stops before end and keeps integer bounds integer"),
    "torch.nn.ReLU6": Form(("inplace",), "ReLU6", why="MindSpore's ReLU6 kernel takes float16/float32 only"),
    "torch.nn.functional.hardshrink": Form(("input", "lambd"), "hardshrink", why=NO_FLOAT64.format("HShrink")),
    "torch.nn.functional.softshrink": Form(("input", "lambd"), "softshrink", why=NO_FLOAT64.format("SoftShrink")),
    "torch.nn.functional.pad": Form(("input", "pad", "mode", "value"), "circular_pad",
                                    lambda bound: literal_argument(bound, "mode") == "circular" and "value" not in bound,
                                    why="MindSpore's circular PadV3 refuses booleans and some shapes PyTorch pads"),
    "torch.nn.functional.smooth_l1_loss": Form(
        ("input", "target", "size_average", "reduce", "reduction", "beta"), "smooth_l1_loss",
        lambda bound: _no_legacy(bound) and literal_argument(bound, "beta", 1.0) in (0, ...),
        why="MindSpore's smooth_l1_loss has no CPU kernel for beta=0 (the L1 loss), which a beta known only when "
            "it runs may be"),
    "torch.nn.functional.multi_margin_loss": Form(
        ("input", "target", "p", "margin", "weight", "size_average", "reduce", "reduction"), "multi_margin_loss",
        _no_legacy, why="MindSpore's takes an int margin only and refuses PyTorch's unbatched form"),
    **{f"torch.nn.functional.dropout{n}d": Form(("input", "p", "training", "inplace"), f"dropout{n}d",
                                                lambda bound: literal_argument(bound, "inplace", False) is False,
                                                why=f"MindSpore's dropout{n}d takes {n + 2}-D inputs only")
       for n in (2, 3)},
    "torch.nn.functional.cosine_embedding_loss": Form(
        ("input1", "input2", "target", "margin", "size_average", "reduce", "reduction"), "cosine_embedding_loss",
        _no_legacy, why="MindSpore's refuses the unbatched form (0-d target) and integer or boolean inputs"),
}
# Tensor methods -> (the helper, with the receiver as its input, the method's parameters)
METHODS = {
    "diag": Form(("diagonal",), "diag", why="ops.diag builds a matrix of any input and takes no diagonal offset"),
    "median": Form((), "median_all", why=WHOLE),
    "nanmedian": Form((), "nanmedian_all", why=WHOLE),
    "narrow": Form(("dim", "start", "length"), "narrow", _only("dim", "start", "length"),
                   why="MindSpore's narrow takes neither a negative start nor a tensor one"),
    "masked_scatter": Form(("mask", "source"), "masked_scatter", _only("mask", "source"), why=SCATTER),
    "index_add": Form(("dim", "index", "source", "alpha"), "index_add", why=INT32_INDEX),
    "index_fill": Form(("dim", "index", "value"), "index_fill", why=INT32_INDEX),
    "copysign": Form(("other",), "copysign", why="MindSpore's copysign reads -0.0 in other as positive"),
}


def rewrite(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry):
    if qualified == "torch.repeat_interleave":
        updated = _without_output_size(ctx, updated)
    form = FORMS.get(qualified)
    bound = bind_arguments(updated, form.params, form.aliases) if form is not None else None
    if form is not None and any(a.star for a in updated.args):
        # which arguments `*args`/`**kwargs` hold is known at run time only: neither the form nor the
        # table's call can be vouched for (nn.MultiLabelMarginLoss(*args) became a class MindSpore lacks)
        ctx.mark(original, rules.API_DIFF, qualified, f"arguments passed with * or ** hide which form this call "
                                                      f"takes ({form.why}): write them out, or convert it by hand")
        return updated
    if form is None or bound is None or not form.matches(bound):
        return convert_call(ctx, original, updated, qualified, entry)
    return _helper_call(ctx, original, qualified, form.helper, list(bound.values()), form.why)


def method_call(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str, methods=None):
    """x.median() -> median_all(x), x.narrow(0, -1, 1) -> narrow(x, 0, -1, 1); None for any other call.
    `methods`: another name -> Form table written the same way (edge_forms.METHODS)."""
    form = (METHODS if methods is None else methods).get(name)
    if form is None or not isinstance(updated.func, cst.Attribute):
        return None
    bound = bind_arguments(updated, form.params, form.aliases)
    if bound is None or not form.matches(bound):
        return None
    receiver = updated.func.value
    if getattr(receiver, "lpar", None):
        receiver = receiver.with_changes(lpar=[], rpar=[])  # now an argument: its parentheses go
    first = cst.Arg(value=receiver, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return _helper_call(ctx, original, f"torch.Tensor.{name}", form.helper, [first, *bound.values()], form.why)


def _helper_call(ctx: ConversionContext, original: cst.Call, qualified: str, helper: str, args: list[cst.Arg],
                 why: str) -> cst.Call:
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return helpers.call(ctx, original, qualified, helper, args, why=why, shown=qualified.rsplit(".", 1)[1])


def _without_output_size(ctx: ConversionContext, call: cst.Call) -> cst.Call:
    """output_size= only spares PyTorch a device sync (a wrong one is an error there): dropped."""
    args = [a for a in call.args if not (a.keyword is not None and a.keyword.value == "output_size")]
    if len(args) == len(call.args):
        return call
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=args)


HANDLERS = {name: rewrite for name in FORMS}
