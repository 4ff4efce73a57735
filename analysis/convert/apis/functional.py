"""Functional PyTorch calls with no classic-API counterpart on CPU that a few lines of MindSpore
compute exactly: F.scaled_dot_product_attention and F.layer_norm become calls of local helper
functions (helpers.py), with the same signature. Also the feature checks around such calls
(`hasattr(torch.nn.functional, "scaled_dot_product_attention")`): the converted file provides the
function, so the check is True and the code keeps the branch that calls it."""
from __future__ import annotations

import libcst as cst

from ..core import rules
from ..core.context import ConversionContext
from ..core.names import code, resolve
from ..support import helpers

# PyTorch function -> (helper, the parameters it takes in PyTorch's order so that a call binds the
# same way, PyTorch's parameters after those that it leaves out: name -> (default, what to do instead))
FUNCTIONS = {
    "torch.nn.functional.scaled_dot_product_attention": (
        "scaled_dot_product_attention",
        ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale"),
        {"enable_gqa": ("False", "grouped-query attention (enable_gqa) is not written out: repeat key and value "
                                 "along the head axis first (k.repeat_interleave(q.shape[-3] // k.shape[-3], "
                                 "axis=-3)), then call scaled_dot_product_attention without it")}),
    "torch.nn.functional.layer_norm": ("layer_norm", ("input", "normalized_shape", "weight", "bias", "eps"), {}),
}


def helper_call(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry):
    name, params, left_out = FUNCTIONS[qualified]
    extra = list(left_out)
    kept, position = [], 0
    for arg in updated.args:
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword is None and not arg.star:
            if position >= len(params):  # past the helper's parameters: PyTorch's next ones, or too many
                keyword = extra[position - len(params)] if position - len(params) < len(extra) else "?"
            position += 1
        if keyword is not None and keyword not in params:
            default, action = left_out.get(keyword, (None, f"{keyword}= has no counterpart in the helper"))
            if code(arg.value) != default:
                ctx.mark(original, rules.API_UNMAPPED, qualified, action)
                return updated
            continue  # PyTorch's default, spelled out: dropped
        kept.append(arg)
    if kept and len(kept) < len(updated.args):
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return helpers.call(ctx, original, qualified, name, kept, shown=qualified.rsplit(".", 1)[1], template=updated,
                        why="classic MindSpore ops: no CPU kernel for the fused one")


def provided(call: cst.Call, aliases: dict[str, str]) -> str | None:
    """The API a `hasattr(<torch module>, "name")` feature check asks for, when this converter
    writes that API into the file (the check then holds); None for any other call."""
    if not (isinstance(call.func, cst.Name) and call.func.value == "hasattr" and len(call.args) == 2
            and all(a.keyword is None and not a.star for a in call.args)
            and isinstance(call.args[1].value, cst.SimpleString)):
        return None
    module = resolve(call.args[0].value, aliases)
    if module is None:
        return None
    api = f"{module}.{call.args[1].value.evaluated_value}"
    return api if api in FUNCTIONS else None


def feature_check(ctx: ConversionContext, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
    api = provided(original, ctx.aliases)
    if api is None:
        return None
    ctx.change(original, rules.API_ARGS, f"hasattr({api})", "True",
               f"feature check for {api.rsplit('.', 1)[1]}: True, the converted file defines it")
    return cst.Name("True", lpar=updated.lpar, rpar=updated.rpar)


HANDLERS = {name: helper_call for name in FUNCTIONS}
