"""A torch.randint draw that the code only iterates, each element used only inside subscripts, becomes
host_randint (support/helper_speed.py): nanoGPT's get_batch, `ix = torch.randint(len(data) - block, (batch,))`
then `[data[i:i + block] for i in ix]` over a numpy memmap. Converted to ops.randint, that draw cost about
2 ms of CPU (a new random operator each call, MindSpore 2.10) and each 0-d Tensor it yields is read back
by numpy on its own; nanoGPT's batch took 4-5 ms of CPU against PyTorch's 0.1. The host draw has the same
distribution (values are not PyTorch's either way) and gives Python numbers, which index a numpy array
and a MindSpore tensor alike.

Only where nothing else reads the draw: the name is bound once in its scope, every other reference to it
is what a for loop or a comprehension iterates, and the loop variable appears only inside subscripts (an
index or a slice bound). Not inside a class (a Cell's construct runs as a graph). A function holding such
a draw is recorded (ctx.host_draws): a training step whose forward calls it stays uncompiled, since a
graph would run the numpy draw once, at compile time (hoist.jit_blocker's rule for numpy calls).
"""
from __future__ import annotations

import libcst as cst

from ..core import rules
from ..core.variables import VariableNames, target_names
from ..support import helpers

# PyTorch function -> (the helper its mapping writes, the host-side helper)
DRAWS = {"torch.randint": ("randint", "host_randint")}
KEYWORDS = frozenset({"low", "high", "size", "dtype"})  # what the host helper takes (not generator=)


def rewrite(walk, original: cst.Call, qualified: str, new: cst.BaseExpression) -> cst.BaseExpression:
    """new (the mapped call) calling host_randint where the draw is only iterated for indices; else new."""
    if qualified not in DRAWS or not isinstance(new, cst.Call) or walk.classes or not walk.scopes:
        return new
    ctx = walk.ctx
    mapped, helper = DRAWS[qualified]
    if mapped not in ctx.helpers or not (isinstance(new.func, cst.Name) and new.func.value == ctx.helpers[mapped][0]):
        return new
    if any(a.star for a in new.args) or any(a.keyword is not None and a.keyword.value not in KEYWORDS
                                            for a in new.args):
        return new
    name = iterated_for_indices(walk.scopes[-1][0], original)
    if name is None:
        return new
    helpers.release(ctx, mapped)
    local = helpers.use(ctx, helper)
    ctx.change(original, rules.API_ARGS, qualified, local,
               f"{qualified} -> {local}(), {helpers.where(ctx)}: `{name}` is only iterated for indices, so it is "
               "drawn with numpy (same distribution, Python numbers; ops.randint costs about 2 ms of CPU a call "
               "and each element it yields is read back on its own); reseeded by mindspore.set_seed")
    ctx.host_draws.add(local)
    if walk.functions:
        ctx.host_draws.add(walk.functions[-1])
    return new.with_changes(func=cst.Name(local))


def calls_host_draw(ctx, statements: list[cst.BaseStatement]) -> str:
    """The first function among ctx.host_draws that statements call by name, or ''."""
    if not ctx.host_draws:
        return ""
    found = []

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Name) and node.func.value in ctx.host_draws:
                found.append(node.func.value)

    for stmt in statements:
        stmt.visit(_Calls())
    return found[0] if found else ""


def iterated_for_indices(scope: cst.CSTNode, call: cst.Call) -> str | None:
    """The name `call` is assigned to in scope when that is its only binding there, some loop iterates it
    and every other reference to it is the iterable of a loop whose variable is read only inside
    subscripts; else None."""
    binding = _binding(scope, call)
    if binding is None:
        return None
    name, target = binding
    references = _References(name)
    scope.visit(references)
    if references.bindings != 1 or not references.iterated:  # a draw nothing reads here may be read elsewhere
        return None
    for ref in references.found:
        if ref is target:
            continue
        loop = references.iterated.get(id(ref))
        if loop is None or not _index_only(*loop):
            return None
    return name


def _binding(scope: cst.CSTNode, call: cst.Call) -> tuple[str, cst.Name] | None:
    found: list[tuple[str, cst.Name]] = []

    class _Find(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            if node.value is call and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
                found.append((node.targets[0].target.value, node.targets[0].target))

    scope.visit(_Find())
    return found[0] if found else None


class _References(VariableNames):
    """Every Name node spelling `name` in code positions (not attribute names nor keyword names), how many
    statements bind it, and which of them a loop iterates: id(reference) -> (loop variable, the parts of
    the loop that read it)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.found: list[cst.Name] = []
        self.bindings = 0
        self.iterated: dict[int, tuple[str, list[cst.CSTNode]]] = {}

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.found.append(node)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.bindings += self._binds(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.bindings += self._binds(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.bindings += self._binds(node.target)

    def visit_For(self, node: cst.For) -> None:
        self.bindings += self._binds(node.target)
        if isinstance(node.iter, cst.Name) and node.iter.value == self.name and isinstance(node.target, cst.Name):
            self.iterated[id(node.iter)] = (node.target.value, [node.body, *([node.orelse] if node.orelse else [])])

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._comprehension(node, [node.elt])

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self._comprehension(node, [node.elt])

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self._comprehension(node, [node.elt])

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self._comprehension(node, [node.key, node.value])

    def _comprehension(self, node, parts: list[cst.CSTNode]) -> None:
        comp = node.for_in
        if comp.inner_for_in is None and isinstance(comp.iter, cst.Name) and comp.iter.value == self.name \
                and isinstance(comp.target, cst.Name):
            self.iterated[id(comp.iter)] = (comp.target.value, [*parts, *comp.ifs])

    def _binds(self, target: cst.BaseExpression) -> int:
        return sum(1 for n in target_names(target) if n == self.name)


def _index_only(variable: str, parts: list[cst.CSTNode]) -> bool:
    """Whether `variable` is read in parts only inside a subscript's index or slice, never as the receiver
    of an attribute, and never rebound."""
    ok = True

    class _Scan(VariableNames):
        depth = 0

        def visit_SubscriptElement(self, node: cst.SubscriptElement) -> None:
            self.depth += 1

        def leave_SubscriptElement(self, node: cst.SubscriptElement) -> None:
            self.depth -= 1

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            nonlocal ok
            if isinstance(node.value, cst.Name) and node.value.value == variable:
                ok = False  # a method or attribute of the element (`i.item()`): a Tensor's, not an int's
            return super().visit_Attribute(node)

        def visit_Name(self, node: cst.Name) -> None:
            nonlocal ok
            if node.value == variable and not self.depth:
                ok = False

    for part in parts:
        part.visit(_Scan())
    return ok
