"""Which statements of a training step only fetch data (or build an object), so they can stay outside
the forward function.

A statement before backward() that the loss depends on goes into the forward function, unless it only
fetches or reshapes data (`images, labels = next(it)`, `if i % n == 0: it = iter(loader)`,
`x = x.view(n, -1)`). Moving it out is right only if no trainable parameter reaches its result, since
value_and_grad differentiates what happens inside the forward alone. So the test errs towards keeping a
statement in: it must read no name that may hold parameters (see parameter_holders) and call nothing
but builtins that cannot reach them, methods of the data it reads, and functions of numeric modules.
"""
from __future__ import annotations

import ast

import libcst as cst

from . import astwalk
from .names import dotted_ast, resolve_text

# builtins that cannot reach a network's parameters unless given one (and a holder is never given)
SAFE_BUILTINS = frozenset({
    "next", "iter", "len", "range", "int", "float", "bool", "str", "list", "tuple", "dict", "set", "zip",
    "enumerate", "min", "max", "abs", "sum", "sorted", "reversed", "isinstance", "round", "print",
})
# modules whose functions are pure numerics (a user's own module may reach a global model)
NUMERIC_MODULES = frozenset({"torch", "numpy", "math", "random", "mindspore", "operator"})
# classes whose instances hold data, never parameters
DATA_CLASSES = ("torch.utils.data.", "torchvision.datasets.", "torchvision.transforms.")
# methods whose receiver is a network
NETWORK_METHODS = frozenset({"parameters", "named_parameters", "state_dict", "train", "eval", "forward",
                             "children", "modules", "apply", "zero_grad", "trainable_params"})


def parameter_holders(tree: ast.Module | None, aliases: dict[str, str]) -> set[str]:
    """Names that may hold (or be computed from) trainable parameters: `self`; names bound to an
    instance of a class (a capitalized callable: a network, a loss, an optimizer), but for the data
    classes (DataLoader, datasets, transforms and the file's own Dataset subclasses); names called like a
    function that the file does not define (a network passed as an argument); receivers of network
    methods; then every name assigned from an expression that reads one of those."""
    holders = {"self"}
    if tree is None:
        return holders
    defined = {n.name for n in astwalk.nodes(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                      ast.ClassDef))}
    data_classes = {n.name for n in astwalk.nodes(tree) if isinstance(n, ast.ClassDef)
                    and any((resolve_text(dotted_ast(b) or "", aliases) or "").startswith(DATA_CLASSES) for b in n.bases)}
    assigns: list[tuple[set[str], set[str]]] = []
    for node in astwalk.nodes(tree):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id not in defined and node.func.id not in SAFE_BUILTINS:
                holders.add(node.func.id)
            elif isinstance(node.func, ast.Attribute) and node.func.attr in NETWORK_METHODS:
                root = _root(node.func.value)
                if root:
                    holders.add(root)
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for names, value in _pairs(target, node.value):
                    if _instantiates(value, aliases, data_classes):
                        holders |= names
                    assigns.append((names, _differentiable_reads(value)))
        elif isinstance(node, (ast.For, ast.comprehension)):
            names = {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
            assigns.append((names, _differentiable_reads(node.iter)))
    changed = True
    while changed:  # a name computed from a holder holds what it holds
        changed = False
        for names, reads in assigns:
            if reads & holders and not names <= holders:
                holders |= names
                changed = True
    return holders


def foreign_modules(tree: ast.Module | None) -> set[str]:
    """Local names of imports from modules other than numeric ones (the user's own code may reach a
    global network)."""
    names: set[str] = set()
    for node in astwalk.nodes(tree) if tree is not None else ():
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] not in NUMERIC_MODULES:
                    names.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            if (node.module or "").split(".")[0] not in NUMERIC_MODULES or node.level:
                names.update(alias.asname or alias.name for alias in node.names)
    return names


def variables(tree: ast.Module | None) -> set[str]:
    """Every name the file binds as a variable (assignment, loop, parameter, with/except target): a
    capitalized one (`D = Discriminator()`, then `D(x)`) is an instance, not a class."""
    names: set[str] = set()
    for node in astwalk.nodes(tree) if tree is not None else ():
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def builds_object(stmt: cst.CSTNode, variables: set[str]) -> bool:
    """`name = Class(...)` (through chained calls such as .to(device)): building a network or a loss is
    no part of the computation from the inputs to the loss, and inside the forward function a network
    would be built again at every step, out of the optimizer's reach. A class is a capitalized name
    the file never binds as a variable, or such an attribute of a module (nn.Linear)."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)):
        return False
    value = stmt.body[0].value
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and not value.func.attr.value[:1].isupper():
        value = value.func.value
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    if isinstance(func, cst.Name):
        return func.value[:1].isupper() and func.value not in variables
    if not (isinstance(func, cst.Attribute) and func.attr.value[:1].isupper()):
        return False
    root = func.value
    while isinstance(root, cst.Attribute):
        root = root.value
    return isinstance(root, cst.Name) and root.value not in variables and root.value not in ("self", "cls")


def fetches_data(stmt: cst.CSTNode, holders: set[str], foreign: set[str], draws: frozenset[str] = frozenset()) -> bool:
    """Whether stmt reads no holder and calls only safe builtins, the draw helpers named in draws, methods of
    what it reads, and numeric modules' functions (see the module docstring)."""
    ok = True

    class _Check(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            nonlocal ok
            if node.value in holders or node.value in foreign:
                ok = False

        def visit_Call(self, node: cst.Call) -> None:
            nonlocal ok
            if isinstance(node.func, cst.Name) and node.func.value not in SAFE_BUILTINS and node.func.value not in draws:
                ok = False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            nonlocal ok
            ok = False
            return False

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            nonlocal ok
            ok = False
            return False

    stmt.visit(_Check())
    return ok


# results that no gradient flows through: a name read only inside them holds no parameter
DETACHING = frozenset({"item", "detach", "numpy", "tolist", "asnumpy", "size", "dim"})


def _pairs(target: ast.AST, value: ast.AST) -> list[tuple[set[str], ast.AST]]:
    """(names, the value they get) for a target: `a, b = x, y` pairs element by element."""
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
            and len(target.elts) == len(value.elts) and not any(isinstance(e, ast.Starred) for e in target.elts):
        return [pair for t, v in zip(target.elts, value.elts) for pair in _pairs(t, v)]
    return [({n.id for n in ast.walk(target) if isinstance(n, ast.Name)}, value)]


def _differentiable_reads(value: ast.AST) -> set[str]:
    """Names value reads, but for those read only under .item(), .detach(), .numpy()..."""
    names: set[str] = set()
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in DETACHING:
            stack += [*node.args, *(k.value for k in node.keywords)]
            continue
        if isinstance(node, ast.Name):
            names.add(node.id)
        stack += list(ast.iter_child_nodes(node))
    return names


def _instantiates(value: ast.AST, aliases: dict[str, str], data_classes: set[str]) -> bool:
    """`X(...)` or `a.b.X(...)` with a capitalized X that is not a data class, through chained calls
    such as .to(device)."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and not value.func.attr[:1].isupper():
        value = value.func.value
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if not name[:1].isupper() or name in data_classes:
        return False
    return not (resolve_text(dotted_ast(func) or "", aliases) or "").startswith(DATA_CLASSES)


def _root(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None
