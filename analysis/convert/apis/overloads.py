"""Calls that fit two of PyTorch's overloads which convert differently, where the argument deciding
between them is a name whose type is known only at run time: torch.max(x, y) is the elementwise maximum
when y is a tensor and the (values, indices) along dim y when it is an int. Such a call goes to a local
function that decides as PyTorch does, by the argument's type (support/helper_source.py)."""
from __future__ import annotations

import libcst as cst

from ..core.context import ConversionContext
from ..support import helpers

# PyTorch API -> the helper deciding at run time, for a call of exactly (input, dim-or-other)
RUNTIME_DISPATCH = {
    "torch.max": "max_dim_or_other",
    "torch.Tensor.max": "max_dim_or_other",
    "torch.min": "min_dim_or_other",
    "torch.Tensor.min": "min_dim_or_other",
}

# ... and the helper of the elementwise overload alone (NaN where either operand holds one, as PyTorch)
ELEMENTWISE = {"max_dim_or_other": "maximum", "min_dim_or_other": "minimum"}


def dispatch_call(ctx: ConversionContext, original: cst.Call, api: str, args: list[cst.Arg]) -> cst.Call | None:
    """helper(input, x) for torch.max(input, x) / input.max(x) (args: the receiver first for a method);
    None where the API has no such helper or the call is not two positional arguments."""
    helper = RUNTIME_DISPATCH.get(api)
    if helper is not None and len(args) == 2 and args[0].keyword is None and not args[0].star \
            and args[1].keyword is not None and args[1].keyword.value == "other":
        helper = ELEMENTWISE[helper]  # torch.max(x, other=y): only the elementwise overload names other=
        args = [args[0], args[1].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)]
    elif helper is None or len(args) != 2 or any(a.keyword is not None or a.star for a in args):
        return None
    args = [args[0].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            args[1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    return helpers.call(ctx, original, api, helper, args,
                        why="the second argument's type, known at run time, picks PyTorch's overload")
