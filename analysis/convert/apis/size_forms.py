"""Sizes given as a list: PyTorch's x.tile([2, 2]) / x.repeat([2, 3]) / torch.tile(x, [2, 2]) take a list
or a tuple, MindSpore's tile a tuple only (a list raises). A list display in the converted tile call
becomes the same tuple."""
from __future__ import annotations

import libcst as cst

# MindSpore callees (last name) whose size argument must be a tuple
TUPLE_ONLY = frozenset({"tile"})


def tuple_sizes(new: cst.BaseExpression) -> cst.BaseExpression:
    if not isinstance(new, cst.Call):
        return new
    func = new.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
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
