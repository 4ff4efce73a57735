"""Variables in libcst code: the names an expression or statement reads, and the names a store target binds.

An attribute's name (`shape` in `x.shape`) and a keyword argument's (`dim` in `f(x, dim=1)`) are Name
nodes too, but no variable: the rewrites that ask which variables code reads (a training step's inputs,
the uses of a random draw) subclass VariableNames and see only the others in visit_Name."""
from __future__ import annotations

import libcst as cst


class VariableNames(cst.CSTVisitor):
    """Visits what code reads, skipping attribute names and keyword names; subclasses define visit_Name
    (and may extend visit_Attribute, calling this one, to look at the receiver)."""

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False


def target_names(target: cst.BaseExpression) -> list[str]:
    """The plain names a store target binds (`a`, `a, (b, *c)`), in order; none for `x[i]` or `x.y`."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in target_names(element.value)]
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return []
