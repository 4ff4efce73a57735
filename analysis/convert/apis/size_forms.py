"""Sizes given as a list or a one-item tuple: PyTorch's x.tile([2, 2]) / x.repeat([2, 3]) / torch.tile(x, [2, 2])
and its pooling functions (F.avg_pool3d(x, [2, 2, 1]), F.adaptive_avg_pool2d(x, [3, 4])) take a list or a
tuple, MindSpore's a tuple only (a list raises); F.avg_pool1d(x, (2,)) takes an int or a one-item tuple,
MindSpore's avg_pool1d an int only. A list display in the converted call becomes the same tuple, a one-item
tuple or list of avg_pool1d its item; tile's sizes held in a variable (x.repeat(sizes)) go through the
sizes_tuple helper, since the variable may hold a list."""
from __future__ import annotations

import libcst as cst

from ..core.context import ConversionContext
from ..support import helpers

# MindSpore callees (last name) whose size arguments must be tuples (found on PyTorch's samples, issue 29)
TUPLE_ONLY = frozenset({"tile", "affine_grid", "avg_pool2d", "avg_pool3d", "max_pool2d", "max_pool3d",
                        "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool2d", "fractional_max_pool2d",
                        "fractional_max_pool3d", "FractionalMaxPool2d", "FractionalMaxPool3d"})
# ... and those whose size arguments must be ints
INT_ONLY = frozenset({"avg_pool1d"})


def _one_item(value: cst.BaseExpression) -> cst.BaseExpression | None:
    if isinstance(value, (cst.List, cst.Tuple)) and len(value.elements) == 1 \
            and not isinstance(value.elements[0], cst.StarredElement):
        return value.elements[0].value
    return None


def tuple_sizes(new: cst.BaseExpression) -> cst.BaseExpression:
    if not isinstance(new, cst.Call):
        return new
    func = new.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    if name in INT_ONLY:
        args = [a.with_changes(value=_one_item(a.value)) if _one_item(a.value) is not None else a for a in new.args]
        return new.with_changes(args=args)
    if name not in TUPLE_ONLY or not any(isinstance(a.value, cst.List) for a in new.args):
        return new
    args = []
    for arg in new.args:
        value = arg.value
        if isinstance(value, cst.List) and value.elements:
            elements = list(value.elements)
            if len(elements) == 1:  # (2,) keeps its comma
                elements[0] = elements[0].with_changes(comma=cst.Comma())
            value = cst.Tuple(elements=elements)
        args.append(arg.with_changes(value=value))
    return new.with_changes(args=args)


def _variable(value: cst.BaseExpression) -> bool:
    """A value read from a name, an item or an attribute (not .shape, a tuple already): its type is unknown."""
    if isinstance(value, cst.Attribute):
        return value.attr.value != "shape"
    return isinstance(value, (cst.Name, cst.Subscript))


def variable_sizes(ctx: ConversionContext, original: cst.Call, new: cst.BaseExpression) -> cst.BaseExpression:
    """x.tile(sizes) / ops.tile(x, sizes) with the sizes in a variable -> tile(sizes_tuple(sizes)): a list
    there (PyTorch's repeat and tile take one) would make MindSpore's tile raise."""
    if not (isinstance(new, cst.Call) and isinstance(new.func, cst.Attribute) and new.func.attr.value == "tile"
            and new is not original):
        return new
    args = list(new.args)
    at = len(args) - 1
    if not args or len(args) > 2 or any(a.keyword or a.star for a in args) or not _variable(args[at].value):
        return new
    name = helpers.use(ctx, "sizes_tuple")
    args[at] = args[at].with_changes(value=cst.Call(func=cst.Name(name), args=[cst.Arg(value=args[at].value)]))
    return new.with_changes(args=args)
