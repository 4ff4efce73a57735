"""Sizes given as a list or a one-item tuple: PyTorch's x.tile([2, 2]) / x.repeat([2, 3]) / torch.tile(x, [2, 2])
and its pooling functions (F.avg_pool3d(x, [2, 2, 1]), F.adaptive_avg_pool2d(x, [3, 4])) take a list or a
tuple, MindSpore's a tuple only (a list raises); F.avg_pool1d(x, (2,)) takes an int or a one-item tuple,
MindSpore's avg_pool1d an int only. A list display in the converted call becomes the same tuple, a one-item
tuple or list of avg_pool1d its item."""
from __future__ import annotations

import libcst as cst

# MindSpore callees (last name) whose size arguments must be tuples (found on PyTorch's samples, issue 29)
TUPLE_ONLY = frozenset({"tile", "avg_pool2d", "avg_pool3d", "max_pool2d", "max_pool3d", "adaptive_avg_pool2d",
                        "adaptive_avg_pool3d", "adaptive_max_pool2d", "fractional_max_pool2d", "fractional_max_pool3d",
                        "FractionalMaxPool2d", "FractionalMaxPool3d"})
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
