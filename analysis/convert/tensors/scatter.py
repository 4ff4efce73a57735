"""scatter and scatter_add, as torch functions and tensor methods, in place or not -> the local
helper `scatter(input, dim, index, src, reduce=None)` (helper_source.py). On MindSpore's CPU the
in-place forms have no kernel, Tensor.scatter wants src shaped like index and ignores reduce=, and
the tables' tensor_scatter_elements for scatter_add writes instead of summing; the helper cuts src
to index's shape (PyTorch reads no more of it), fills a number in input's dtype, and sums with the
"add" reduction, multiplies each target once for "multiply" (raising where an index repeats, which
PyTorch multiplies in turn). In-place forms write the result back as inplace.py does
(x.assign_value(...)). A reduce given by a variable stays marked."""
from __future__ import annotations

import libcst as cst

from ..apis.exact_forms import bind
from ..core.bound import tensor_receiver
from ..apis.signatures import fix_commas
from ..core import rules
from ..core.context import ConversionContext
from ..support import helpers
from . import inplace

# method name -> (sums, in place)
METHODS = {"scatter": (False, False), "scatter_": (False, True), "scatter_add": (True, False),
           "scatter_add_": (True, True)}
FUNCTIONS = {"torch.scatter": False, "torch.scatter_add": True}
WHY = "MindSpore's scatter kernels on CPU need src shaped like index and ignore reduce="


def _bound(args, add: bool, with_input: bool) -> dict[str, cst.BaseExpression] | None:
    """PyTorch's arguments by name; a number passed as value= is src to the helper."""
    positional = (("input",) if with_input else ()) + ("dim", "index", "src")
    values = bind(args, positional, () if add else ("value", "reduce"))
    if values is None or ("value" in values) == ("src" in values):
        return None
    if "value" in values:
        values["src"] = values.pop("value")
    if not all(name in values for name in positional):
        return None
    return values


def _value(ctx: ConversionContext, original: cst.Call, values: dict, add: bool, api: str,
           source: cst.BaseExpression) -> cst.Call | None:
    """scatter(source, dim, index, src[, "add"]), or None (marked) for a reduction the helper lacks."""
    reduce = values.get("reduce")
    text = reduce.evaluated_value if isinstance(reduce, cst.SimpleString) else None
    if reduce is not None and not (isinstance(reduce, cst.Name) and reduce.value == "None") \
            and text not in ("add", "multiply"):
        # a method's mark names the method only: a converted receiver (torch.zeros -> ops.zeros) keeps no torch import
        node = original.func.attr if api.startswith("torch.Tensor.") else original  # type: ignore[union-attr]
        ctx.mark(node, rules.API_DIFF, api, "reduce= given by a variable: pass the helper scatter() 'add' or "
                                            "'multiply' as a string (x.assign_value(scatter(x, ...)) for scatter_)")
        return None
    args = [source, values["dim"], values["index"], values["src"]]
    if add or text:
        args.append(cst.SimpleString(f'"{"add" if add else text}"'))
    return cst.Call(func=cst.Name(helpers.use(ctx, "scatter")), args=fix_commas([cst.Arg(value=v) for v in args]))


def function(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry) -> cst.BaseExpression:
    from ..apis.mapped import convert_call

    add = FUNCTIONS[qualified]
    values = _bound(updated.args, add, with_input=True)
    if values is None:
        return convert_call(ctx, original, updated, qualified, entry)
    value = _value(ctx, original, values, add, qualified, values["input"])
    if value is None:
        return updated
    local = value.func.value  # type: ignore[union-attr]
    ctx.change(original, rules.API_ARGS, qualified, local, f"{qualified} -> {local}(), {helpers.where(ctx)} ({WHY})")
    return value


def method(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str) -> cst.BaseExpression | None:
    """x.scatter(...), x.scatter_(...), x.scatter_add(...), x.scatter_add_(...); None when the call does
    not bind to PyTorch's method (another object's method of that name)."""
    if name not in METHODS:
        return None
    add, in_place = METHODS[name]
    values = _bound(updated.args, add, with_input=False)
    if values is None:
        return None
    dim = values["dim"]
    literal = isinstance(dim.expression if isinstance(dim, cst.UnaryOperation) else dim, cst.Integer)
    if name == "scatter" and not (literal or any(a.keyword and a.keyword.value == "dim" for a in updated.args)
                                  or tensor_receiver(ctx, original.func.value)):  # type: ignore[union-attr]
        return None  # ax.scatter(x, y, sizes) of matplotlib binds too: a tensor's dim is an int
    api = f"torch.Tensor.{name}"
    if in_place:
        return inplace.write_in_place(ctx, original, updated, name, name[:-1],
                                      lambda source: _value(ctx, original, values, add, api, source))
    value = _value(ctx, original, values, add, api, updated.func.value)  # type: ignore[union-attr]
    if value is None:
        return updated
    local = value.func.value  # type: ignore[union-attr]
    ctx.change(original, rules.TENSOR_METHOD, api, local, f"x.{name}(...) -> {local}(x, ...), {helpers.where(ctx)} ({WHY})")
    return value


HANDLERS = {api: function for api in FUNCTIONS}
