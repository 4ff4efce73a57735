"""Layer call forms MindSpore's namesake reads another way (support/helper_nn_forms.py holds the helpers).

- nn.Softmax / nn.Softmin / nn.LogSoftmax: PyTorch's dim=None picks an axis from the input's rank (0 for
  0-, 1- and 3-d inputs, else 1), MindSpore's axis defaults to the last one, and MindSpore's kernels refuse
  a 0-d input -> the local class of that name (MindSpore's layer, PyTorch's dim), every call: the rank is
  only known when the layer runs.
- F.softmax / F.softmin / F.log_softmax without dim (or dim=None) -> softmax_family(); with a dim they go
  on to the tables.
- nn.SmoothL1Loss with beta=0 (MindSpore's layer refuses it) or a beta known only when it runs -> the
  local SmoothL1Loss cell (beta 0 is the L1 loss).
A call with arguments PyTorch's signature does not name goes on to the tables, which mark it."""
from __future__ import annotations

import ast

import libcst as cst

from ..apis.compositions import bind_arguments
from ..apis.mapped import convert_call
from ..apis.signatures import kwarg
from ..core.context import ConversionContext
from ..support import helpers

SOFTMAX_LAYERS = {"torch.nn.Softmax": "Softmax", "torch.nn.Softmin": "Softmin", "torch.nn.LogSoftmax": "LogSoftmax"}
SOFTMAX_FUNCTIONS = {f"torch.nn.functional.{kind}": kind for kind in ("softmax", "softmin", "log_softmax")}
IMPLICIT = "PyTorch's dim=None takes axis 0 of a 0-, 1- or 3-d input and 1 otherwise, MindSpore's the last axis"


def _literal(bound: dict[str, cst.Arg], name: str, missing=None):
    """An argument's value where it is a literal, `missing` where it is not passed, Ellipsis otherwise."""
    arg = bound.get(name)
    if arg is None:
        return missing
    try:
        return ast.literal_eval(cst.Module([]).code_for_node(arg.value))
    except (ValueError, SyntaxError):
        return ...


def softmax_layer(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry):
    bound = bind_arguments(updated, ("dim",))
    if bound is None:
        return convert_call(ctx, original, updated, qualified, entry)
    why = f"{IMPLICIT}; MindSpore's kernel refuses a 0-d input"
    return helpers.call(ctx, original, qualified, SOFTMAX_LAYERS[qualified], list(updated.args), why=why,
                        template=updated, shown=qualified.rsplit(".", 1)[1])


def softmax_function(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry):
    bound = bind_arguments(updated, ("input", "dim", "_stacklevel", "dtype"))
    if bound is None or "input" not in bound or _literal(bound, "dim") is not None:
        return convert_call(ctx, original, updated, qualified, entry)
    args = [bound["input"].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)]
    args.append(kwarg("kind", f'"{SOFTMAX_FUNCTIONS[qualified]}"'))
    if "dtype" in bound:
        args.append(kwarg("dtype", bound["dtype"].value))
    args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in args]
    args = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in args[:-1]] + args[-1:]
    return helpers.call(ctx, original, qualified, "softmax_family", args, why=IMPLICIT,
                        shown=qualified.rsplit(".", 1)[1])


def smooth_l1_layer(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry):
    bound = bind_arguments(updated, ("size_average", "reduce", "reduction", "beta"))
    beta = _literal(bound, "beta", 1.0) if bound is not None else None
    if bound is None or "size_average" in bound or "reduce" in bound or not (beta is ... or beta == 0):
        return convert_call(ctx, original, updated, qualified, entry)
    return helpers.call(ctx, original, qualified, "SmoothL1Loss", list(updated.args), template=updated,
                        why="MindSpore's SmoothL1Loss refuses beta=0 (the L1 loss), which a beta known only when it "
                        "runs may be", shown="SmoothL1Loss")


HANDLERS = {**{name: softmax_layer for name in SOFTMAX_LAYERS},
            **{name: softmax_function for name in SOFTMAX_FUNCTIONS},
            "torch.nn.SmoothL1Loss": smooth_l1_layer}
