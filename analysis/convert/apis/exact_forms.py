"""PyTorch calls whose MindSpore counterpart has no CPU kernel for the form used, or gives another
dtype, written as calls of local helpers (helper_source.py, each checked against PyTorch there and
by tests/convert/test_exact_forms.py) that compute PyTorch's values with kernels MindSpore has:

- torch.einsum, every form (MindSpore's Einsum has no CPU kernel)          -> einsum(...)
- torch.roll / x.roll (no Roll kernel)                                     -> roll(x, shifts, dims)
- torch.angle / x.angle (the Angle kernel takes complex input only)        -> angle(x)
- torch.nonzero / x.nonzero with as_tuple=True, torch.where(condition)     -> nonzero_tuple(x)
- torch.nonzero / x.nonzero otherwise (no kernel for 0-d or complex input) -> nonzero(x)
- torch.round / x.round with decimals= other than 0                        -> round_decimals(x, d)
- torch.bincount / x.bincount (MindSpore's counts are float32)             -> bincount(x, ...)
- torch.diff / x.diff with n other than 1 (MindSpore's diff takes n=1)     -> diff(x, n=...)

Each is bound to PyTorch's parameters first; a call that does not bind (a starred argument, a
keyword PyTorch has no such parameter for) goes on to the mapping tables as before."""
from __future__ import annotations

import libcst as cst

from ..core import rules
from ..core.bound import SIZE, tensor_receiver
from ..core.context import ConversionContext
from ..core.names import code, dotted, resolve
from ..support import helpers
from .mapped import convert_call
from .signatures import fix_commas

# PyTorch's parameters of each function form: (positional-or-keyword, keyword-only); the method
# forms are the same without the first
PARAMS = {
    "torch.roll": (("input", "shifts", "dims"), ()),
    "torch.angle": (("input",), ()),
    "torch.nonzero": (("input",), ("as_tuple",)),
    "torch.round": (("input",), ("decimals",)),
    "torch.bincount": (("input", "weights", "minlength"), ()),
    "torch.diff": (("input", "n", "dim", "prepend", "append"), ()),
}


def bind(args, positional: tuple[str, ...], keyword_only: tuple[str, ...] = ()) -> dict[str, cst.BaseExpression] | None:
    """The call's arguments by PyTorch parameter name, or None when they do not bind (a starred
    argument, too many positional ones, an unknown or repeated keyword)."""
    values: dict[str, cst.BaseExpression] = {}
    given = [a for a in args if a.keyword is None]
    if any(a.star for a in args) or len(given) > len(positional):
        return None
    values.update((name, arg.value) for name, arg in zip(positional, given))
    for arg in args:
        if arg.keyword is None:
            continue
        name = arg.keyword.value
        if name in values or (name not in positional and name not in keyword_only):
            return None
        values[name] = arg.value
    return values


# method names numpy arrays or pandas objects share with PyTorch's tensors: converted only where the
# receiver is known to be a tensor (numpy's a.round(decimals=2) is no tensor call)
SHARED_NAMES = frozenset({"round"})


def helper_call(ctx: ConversionContext, original: cst.Call, helper: str, values: list[cst.BaseExpression],
                keywords: dict[str, cst.BaseExpression] | None = None, *, api: str, why: str,
                rule_id: str = rules.API_ARGS) -> cst.Call:
    """helper(values..., keyword=value...): the bound values as the helper's arguments (helpers.call)."""
    args = [cst.Arg(value=v) for v in values]
    args += [cst.Arg(value=v, keyword=cst.Name(k), equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
        for k, v in (keywords or {}).items()]
    return helpers.call(ctx, original, api, helper, fix_commas(args), why=why, rule_id=rule_id,
                        shown=api.replace("torch.Tensor.", "x."))


def _literal(node: cst.BaseExpression) -> str | None:
    return code(node) if isinstance(node, (cst.Integer, cst.Float, cst.Name, cst.UnaryOperation)) else None


def _form(api: str, values: dict[str, cst.BaseExpression]) -> tuple[str, list, dict, str] | None:
    """(helper, its positional values, its keyword values, why) for a bound call of api (function
    form: values holds input), or None when the mapping tables' call computes PyTorch's values."""
    name = api.rsplit(".", 1)[1]
    x = values["input"]
    if name == "roll":
        if "shifts" not in values:
            return None
        rest = [values["shifts"]] + ([values["dims"]] if "dims" in values else [])
        return "roll", [x, *rest], {}, "MindSpore's Roll has no CPU kernel"
    if name == "angle":
        return "angle", [x], {}, "MindSpore's Angle kernel takes complex input only on CPU"
    if name == "nonzero":
        flag = values.get("as_tuple")
        if flag is None or _literal(flag) == "False":
            return "nonzero", [x], {}, "MindSpore's NonZero kernel fails on 0-d and complex tensors"
        if _literal(flag) != "True":
            return "", [], {}, "as_tuple= given by a variable: call nonzero_tuple(x) where it is True"
        return "nonzero_tuple", [x], {}, "nonzero(as_tuple=True) has no CPU kernel in MindSpore"
    if name == "round":
        decimals = values.get("decimals")
        if decimals is None or _literal(decimals) == "0":
            return None
        return "round_decimals", [x, decimals], {}, "MindSpore's Round kernel takes decimals=0 only"
    if name == "bincount":
        keywords = {k: values[k] for k in ("weights", "minlength") if k in values}
        return "bincount", [x], keywords, "MindSpore's bincount counts in float32; PyTorch gives int64 counts"
    if name == "diff":
        n = values.get("n")
        if n is None or _literal(n) == "1":
            return None
        keywords = {k: values[k] for k in ("n", "dim", "prepend", "append") if k in values}
        return "diff", [x], keywords, "MindSpore's diff takes n=1 only"
    return None


def function(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry) -> cst.BaseExpression:
    positional, keyword_only = PARAMS[qualified]
    values = bind(updated.args, positional, keyword_only)
    form = _form(qualified, values) if values is not None and "input" in values else None
    if form is None:
        return convert_call(ctx, original, updated, qualified, entry)
    helper, args, keywords, why = form
    if not helper:
        ctx.mark(original, rules.API_DIFF, qualified, why)
        return updated
    return helper_call(ctx, original, helper, args, keywords, api=qualified, why=why)


def method(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str, *,
           in_place: bool = False) -> cst.BaseExpression | None:
    """x.roll(...), x.angle(), x.nonzero(as_tuple=True), x.round(decimals=d), x.bincount(...) -> the helper
    with x first; None for any other call (left to tensors.method_call). in_place: `updated` is the
    out-of-place form of x.round_(...), a name only a torch tensor's method has."""
    api = f"torch.{name}"
    if api not in PARAMS or (name in SHARED_NAMES and not in_place
                             and not tensor_receiver(ctx, original.func.value)):  # type: ignore[union-attr]
        return None
    positional, keyword_only = PARAMS[api]
    values = bind(updated.args, positional[1:], keyword_only)
    if values is None:
        return None
    values["input"] = updated.func.value  # type: ignore[union-attr]
    form = _form(api, values)
    if form is None:
        return None
    helper, args, keywords, why = form
    if not helper:
        ctx.mark(original.func.attr, rules.TENSOR_METHOD, f"torch.Tensor.{name}", why)  # type: ignore[union-attr]
        return updated
    return helper_call(ctx, original, helper, args, keywords, api=f"torch.Tensor.{name}", why=why,
                       rule_id=rules.TENSOR_METHOD)


def einsum(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry) -> cst.BaseExpression:
    """torch.einsum(...) -> einsum(...) with the same arguments: the helper reads every PyTorch form."""
    if not updated.args or any(a.keyword is not None for a in updated.args):
        return convert_call(ctx, original, updated, qualified, entry)
    return helpers.call(ctx, original, qualified, "einsum", list(updated.args), shown="einsum", template=updated,
                        why="MindSpore's Einsum has no CPU kernel", note=": batched matrix products")


def where(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry) -> cst.BaseExpression:
    """torch.where(condition) is torch.nonzero(condition, as_tuple=True); the three-argument form maps as before."""
    values = bind(updated.args, ("condition",))
    if values is None or len(updated.args) != 1:
        return convert_call(ctx, original, updated, qualified, entry)
    return helper_call(ctx, original, "nonzero_tuple", [values["condition"]], api=qualified,
                       why="torch.where(condition) is nonzero(condition, as_tuple=True), which has no CPU kernel")


HANDLERS = {**{api: function for api in PARAMS}, "torch.einsum": einsum, "torch.where": where}
METHODS = frozenset(api.rsplit(".", 1)[1] for api in PARAMS)
