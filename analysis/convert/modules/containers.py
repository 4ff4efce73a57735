"""Cell containers and cell traversal beyond renames: a ModuleDict holding containers (MindSpore's
CellDict refuses CellList/SequentialCell/CellDict values) becomes the ModuleDict helper class
written into the file (helpers.py), which keeps attribute reads, item access, iteration and
PyTorch's parameter names; modules()/named_modules()/children()/named_children() and
next(m.parameters()) become their Cell spellings."""
from __future__ import annotations

import libcst as cst

from ..core import rules
from ..core.context import ConversionContext
from ..core.names import code
from ..support import helpers
from . import layers


def module_dict(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry):
    nested = layers._nested_containers(updated)
    if not nested:
        return layers.container(ctx, original, updated, qualified, entry)
    local = helpers.use(ctx, "ModuleDict")
    ctx.change(original, rules.CONTAINERS, qualified, local,
               f"ModuleDict holding containers ({', '.join(nested)}) -> {local}, {helpers.where(ctx, 'a Cell')} "
               "that keeps each entry as an attribute (CellDict refuses container values)")
    return updated.with_changes(func=cst.Name(local))


# PyTorch traversal method (called without arguments) -> the Cell expression, {0} the receiver
TRAVERSALS = {
    "named_modules": ("{0}.cells_and_names()", "mindspore.nn.Cell.cells_and_names"),
    "modules": ("(cell for _, cell in {0}.cells_and_names())", "mindspore.nn.Cell.cells_and_names"),
    "children": ("{0}.cells()", "mindspore.nn.Cell.cells"),
    "named_children": ("{0}.name_cells().items()", "mindspore.nn.Cell.name_cells"),
}


def traversal(ctx: ConversionContext, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
    """m.named_modules() -> m.cells_and_names() and the like; None for any other call."""
    func = updated.func
    if updated.args or not isinstance(func, cst.Attribute) or func.attr.value not in TRAVERSALS:
        return None
    template, target = TRAVERSALS[func.attr.value]
    receiver = code(func.value)
    ctx.change(original, rules.CELL_API, f"torch.nn.Module.{func.attr.value}", target,
               f"{func.attr.value}() -> {template.format('m')}")
    return cst.parse_expression(template.format(receiver if _atomic(func.value) else f"({receiver})"))


def first_parameter(ctx: ConversionContext, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
    """next(m.parameters()): trainable_params() is a list, get_parameters() the generator next() needs."""
    if not (isinstance(original.func, cst.Name) and original.func.value == "next" and len(original.args) >= 1):
        return None
    inner = original.args[0].value
    if not (isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) and inner.func.attr.value == "parameters"
            and not inner.args):
        return None
    converted = updated.args[0].value
    if not (isinstance(converted, cst.Call) and isinstance(converted.func, cst.Attribute)):
        return None
    _forget(ctx, inner)  # the parameters() -> trainable_params() record is replaced by this one
    ctx.change(original, rules.CELL_API, "torch.nn.Module.parameters", "mindspore.nn.Cell.get_parameters",
               "next(parameters()) -> next(get_parameters()) (a generator, as in PyTorch)")
    call = converted.with_changes(func=converted.func.with_changes(attr=cst.Name("get_parameters")))
    return updated.with_changes(args=[updated.args[0].with_changes(value=call), *updated.args[1:]])


def _forget(ctx: ConversionContext, node: cst.CSTNode) -> None:
    records = {id(record) for record, located, _ in ctx.located if located is node}
    ctx.located[:] = [item for item in ctx.located if id(item[0]) not in records]
    ctx.changes[:] = [change for change in ctx.changes if id(change) not in records]


def _atomic(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript))


HANDLERS = {"torch.nn.ModuleDict": module_dict}
