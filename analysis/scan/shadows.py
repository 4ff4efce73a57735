"""Names a function binds in its own scope, which hide a module-level import of the same name inside it:
`def collate_fn(data): data.sort(...)` sorts a list even where the file did `import torch.utils.data as
data`. Used by the scanner (findings) and the converter (rewrites) so that neither reads such a name as
the module."""
from __future__ import annotations

import libcst as cst


class _Bindings(cst.CSTVisitor):
    """Targets bound directly in one function body (nested functions and classes bind their own names
    only), with `global`/`nonlocal` declarations and plain alias rebinds (F = torch.nn.functional) apart."""

    def __init__(self) -> None:
        self.bound: set[str] = set()
        self.declared: set[str] = set()
        self.rebinds: set[str] = set()  # names assigned a dotted name: they may still be the module
        self.other: set[str] = set()

    def _target(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Name):
            self.bound.add(node.value)
        elif isinstance(node, (cst.Tuple, cst.List)):
            for element in node.elements:
                self._target(element.value)
        elif isinstance(node, cst.StarredElement):
            self._target(node.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.bound.add(node.name.value)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.bound.add(node.name.value)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        dotted = isinstance(node.value, (cst.Name, cst.Attribute))
        for target in node.targets:
            if dotted and isinstance(target.target, cst.Name):
                self.rebinds.add(target.target.value)
            else:
                self._target(target.target)
                if isinstance(target.target, cst.Name):
                    self.other.add(target.target.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._target(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._target(node.asname.name)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._target(node.name.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._target(node.target)

    def visit_Global(self, node: cst.Global) -> None:
        self.declared.update(item.name.value for item in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.declared.update(item.name.value for item in node.names)


def local_names(function: cst.FunctionDef) -> set[str]:
    """The names `function` binds itself: its parameters and what its body assigns, except names declared
    global/nonlocal and names only ever assigned a dotted name (an alias rebind keeps the module's meaning).
    Imports inside the function are not counted: they bind the name to a module, which callers resolve."""
    params = function.params
    names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            names.add(star.name.value)
    walk = _Bindings()
    function.body.visit(walk)
    names |= walk.bound | (walk.rebinds & walk.other)
    return names - walk.declared
