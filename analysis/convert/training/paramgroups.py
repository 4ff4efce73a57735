"""Parameter groups chosen by parameter name (issue 16, pattern 2: named_parameters() filters).

`named_parameters()` becomes `parameters_and_names()`, and the names differ where PyTorch and MindSpore
name a layer's parameters differently: a norm layer's weight/bias are gamma/beta, an Embedding's weight
is embedding_table, and BatchNorm's running statistics are parameters (moving_mean/moving_variance,
requires_grad False) instead of buffers. A test of the name against 'weight' or 'bias'
(`'bias' in n`, `n.endswith('weight')`, `n == 'fc.bias'`) then selects other parameters, which puts
them in the wrong weight-decay group without an error. Whether a user parameter is called gamma too
cannot be told from here, so such a test is marked with what to check, never rewritten. Groups chosen
by shape (`p.dim() >= 2`) or by requires_grad convert as they are.

plan() runs before the walk and notes the statements holding such tests; the walk marks them.
"""
from __future__ import annotations

import ast
import re

import libcst as cst

from ..core import astwalk, rules
from ..core.names import code, resolve

DIFFERING = ("weight", "bias")
# layers whose parameters MindSpore names as PyTorch does (weight, bias)
AGREEING = frozenset({"torch.nn.Linear", *(f"torch.nn.Conv{d}d" for d in (1, 2, 3)),
                      *(f"torch.nn.ConvTranspose{d}d" for d in (1, 2, 3))})  # PyTorch name parts MindSpore spells otherwise for some layers
NAME_TEST = ("names differ here: MindSpore calls a norm layer's weight/bias gamma/beta and an Embedding's "
             "weight embedding_table, and lists BatchNorm's moving_mean/moving_variance among the parameters "
             "(requires_grad False), so this test on {literal} selects other parameters than in PyTorch. "
             "Test the MindSpore names too (e.g. n.endswith(('bias', '.beta')), skip "
             "not p.requires_grad) after checking no parameter of yours is itself called gamma/beta")


def plan(ctx, module: cst.Module, source: str, tree: ast.AST | None = None) -> None:
    """Read with the stdlib ast (a libcst visit costs as much as the conversion's walk); the libcst pass
    that finds the statements to mark runs only when the ast found one. tree: the source's ast if parsed."""
    try:
        tree = tree if tree is not None else ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return
    layers: dict[str, set[str]] = {}
    sources: dict[str, set[str]] = {}
    built: dict[str, ast.AST] = {}
    for node in astwalk.nodes(tree):
        if not isinstance(node, ast.Assign):
            continue
        qualified = _ast_resolve(node.value.func, ctx.aliases) if isinstance(node.value, ast.Call) else None
        for target in node.targets:
            if isinstance(target, ast.Attribute):
                layers.setdefault(target.attr, set()).add(qualified or "?")
            elif isinstance(target, ast.Name):
                if qualified and qualified.startswith("torch.optim.") and ".lr_scheduler." not in qualified \
                        and node.value.args:
                    built[target.id] = node.value.args[0]
                elif isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute) \
                        and node.value.func.attr == "configure_optimizers":
                    # `opt = model.configure_optimizers(...)`: the idiom of a network building its own optimizer
                    ctx.optimizer_models.setdefault(target.id, ast.unparse(node.value.func.value))
                else:
                    sources.setdefault(target.id, set()).update(_ast_sources(node.value))
    for opt, model in _owners(built, sources).items():
        ctx.optimizer_models.setdefault(opt, model)
    if "named_parameters" not in source or not _Screen(layers).found(tree):
        return
    finder = _Find(layers)
    module.visit(finder)
    if finder.marks:
        ctx.outline = None  # the marked lines may hold no torch: the walk must visit them
    for stmt, literal in finder.marks.items():
        ctx.statement_marks.setdefault(stmt, []).append(
            (rules.PARAM_NAMES, "torch.nn.Module.named_parameters", NAME_TEST.format(literal=literal)))


def _ast_resolve(node: ast.AST, aliases: dict[str, str]) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in aliases:
        return None
    return ".".join([aliases[node.id], *reversed(parts)])


def _ast_sources(node: ast.AST) -> set[str]:
    """'network:X' for each X.parameters()/X.named_parameters() in node, and the plain names it reads."""
    found: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                and n.func.attr in ("parameters", "named_parameters"):
            found.add("network:" + ast.unparse(n.func.value))
        elif isinstance(n, ast.Name):
            found.add(n.id)
    return found


def _owners(built: dict[str, ast.AST], sources: dict[str, set[str]]) -> dict[str, str]:
    """The network an optimizer built from parameter groups trains: `opt = torch.optim.X(groups, ...)`
    where groups is built, through plain variables, from one network's (named_)parameters()."""
    found = {}
    for opt, params in built.items():
        networks, seen, todo = set(), set(), list(_ast_sources(params))
        while todo:
            item = todo.pop()
            if item in seen:
                continue
            seen.add(item)
            if item.startswith("network:"):
                networks.add(item[len("network:"):])
            else:
                todo += sources.get(item, ())
        if len(networks) == 1:
            found[opt] = networks.pop()
    return found


class _Screen:
    """Whether any name from named_parameters() is tested against 'weight'/'bias' (stdlib ast)."""

    def __init__(self, layers: dict[str, set[str]]) -> None:
        self.layers = layers
        self.dicts: set[str] = set()

    def found(self, tree: ast.AST) -> bool:
        return self._visit(tree, frozenset())

    def _visit(self, node: ast.AST, names: frozenset[str]) -> bool:
        if isinstance(node, ast.Assign) and _ast_named(node.value, self.dicts) == "dict":
            self.dicts.update(t.id for t in node.targets if isinstance(t, ast.Name))
        generators = [node] if isinstance(node, ast.For) else \
            node.generators if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)) else []
        bound = {g.target.elts[0].id for g in generators if _ast_named(g.iter, self.dicts)
                 and isinstance(g.target, ast.Tuple) and g.target.elts and isinstance(g.target.elts[0], ast.Name)}
        names = names | bound
        if names and self._test(node, names):
            return True
        return any(self._visit(child, names) for child in ast.iter_child_nodes(node))

    def _test(self, node: ast.AST, names: frozenset[str]) -> bool:
        parts: list[ast.AST] = []
        if isinstance(node, ast.Compare):
            candidates = [node.left, *node.comparators]
            if any(isinstance(p, ast.Name) and p.id in names for p in candidates):
                parts = candidates
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("endswith", "startswith", "find", "count", "split") \
                and isinstance(node.func.value, ast.Name) and node.func.value.id in names:
            parts = list(node.args)
        for part in parts:
            for n in ast.walk(part):
                if isinstance(n, ast.Constant) and isinstance(n.value, str) \
                        and any(w in n.value for w in DIFFERING) and not _agrees(n.value, self.layers):
                    return True
        return False


def _ast_named(node: ast.AST, dicts: set[str]) -> str:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "named_parameters":
            return "pairs"
        if node.func.attr == "items" and isinstance(node.func.value, ast.Name) and node.func.value.id in dicts:
            return "pairs"
    if isinstance(node, ast.DictComp) and _ast_named(node.generators[0].iter, dicts):
        return "dict"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict" \
            and len(node.args) == 1 and _ast_named(node.args[0], dicts):
        return "dict"
    return ""


def _agrees(literal: str, layers: dict[str, set[str]]) -> bool:
    """'c_proj.weight' where every c_proj this file binds is a layer named alike in both frameworks."""
    match = re.search(r"(\w+)\.(weight|bias)$", literal)
    if match is None:
        return False
    bound = layers.get(match.group(1))
    return bool(bound) and bound <= AGREEING


class _Find(cst.CSTVisitor):
    """Statements testing a name that comes from named_parameters() (directly, or through a dict built
    from it and iterated with .items())."""

    def __init__(self, layers: dict[str, set[str]]) -> None:
        self.layers = layers
        self.statements: list[cst.CSTNode] = []
        self.names: list[set[str]] = []  # variables holding parameter names, per open loop/comprehension
        self.scoped: set[int] = set()  # the loops and comprehensions that opened one
        self.dicts: set[str] = set()  # variables holding {name: parameter} dicts
        self.marks: dict[int, str] = {}

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.SimpleStatementLine, cst.If, cst.While, cst.For)):
            self.statements.append(node)
        if isinstance(node, cst.Assign) and _named_source(node.value, self.dicts) == "dict":
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self.dicts.add(target.target.value)
        bound = {g.target.elements[0].value.value for g in _generators(node)
                 if _named_source(g.iter, self.dicts) and isinstance(g.target, cst.Tuple) and g.target.elements
                 and isinstance(g.target.elements[0].value, cst.Name)}
        if bound:
            self.names.append(bound)
            self.scoped.add(id(node))
        literal = self._test(node)
        if literal is not None and self.statements:
            self.marks.setdefault(id(self.statements[-1]), literal)
        return True

    def on_leave(self, node: cst.CSTNode) -> None:
        if self.statements and node is self.statements[-1]:
            self.statements.pop()
        if id(node) in self.scoped:
            self.names.pop()

    def _test(self, node: cst.CSTNode) -> str | None:
        """The string literal when node tests a parameter-name variable against 'weight'/'bias'."""
        names = set().union(*self.names) if self.names else set()
        if not names:
            return None
        strings: list[cst.CSTNode] = []
        if isinstance(node, cst.Comparison):
            parts = [node.left, *(t.comparator for t in node.comparisons)]
            if any(isinstance(p, cst.Name) and p.value in names for p in parts):
                strings = parts
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                and node.func.attr.value in ("endswith", "startswith", "find", "count", "split") \
                and isinstance(node.func.value, cst.Name) and node.func.value.value in names:
            strings = [a.value for a in node.args]
        for part in strings:
            for literal in _literals(part):
                if any(word in literal for word in DIFFERING) and not _agrees(literal, self.layers):
                    return repr(literal)
        return None


def _generators(node: cst.CSTNode):
    """(iter, target) pairs a for statement or comprehension binds."""
    if isinstance(node, cst.For):
        return [node]
    if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
        found, comp = [], node.for_in
        while comp is not None:
            found.append(comp)
            comp = comp.inner_for_in
        return found
    return []


def _named_source(node: cst.BaseExpression, dicts: set[str]) -> str:
    """'pairs' for X.named_parameters() or D.items() of such a dict, 'dict' for a dict built from
    them, '' otherwise."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        method = node.func.attr.value
        if method == "named_parameters":
            return "pairs"
        if method == "items" and isinstance(node.func.value, cst.Name) and node.func.value.value in dicts:
            return "pairs"
    if isinstance(node, cst.DictComp) and _named_source(node.for_in.iter, dicts):
        return "dict"
    if isinstance(node, cst.Call) and code(node.func) == "dict" and len(node.args) == 1 \
            and _named_source(node.args[0].value, dicts):
        return "dict"
    return ""


def _literals(node: cst.CSTNode) -> list[str]:
    found: list[str] = []

    class _Strings(cst.CSTVisitor):
        def visit_SimpleString(self, s: cst.SimpleString) -> None:
            value = s.evaluated_value
            found.append(value if isinstance(value, str) else "")

    node.visit(_Strings())
    return found
