"""`with` blocks that do nothing to a training step's computation once converted.

nanoGPT-style scripts run the forward in `with ctx:`, ctx being `nullcontext()` on CPU and autocast on a
GPU; autocast converts to contextlib.nullcontext() (modern.py). Neither context changes what the block
computes, but a compiled graph does not take a `with` statement, so inside a step's forward such a block
is replaced by its statements and the step compiles. A name counts only when every binding of it in the
file is such an expression (`nullcontext()`, an autocast call, or a conditional choosing between them).
"""
from __future__ import annotations

import ast

import libcst as cst

from ..core import astwalk
from ..core.names import resolve, resolve_text

NULL = "contextlib.nullcontext"
# torch's autocast context managers (modern.py converts each to contextlib.nullcontext())
AUTOCAST = frozenset({"torch.autocast", "torch.amp.autocast", "torch.cuda.amp.autocast", "torch.cpu.amp.autocast",
                      "torch.amp.autocast_mode.autocast"})


def plan(ctx, tree: ast.AST) -> None:
    """Note in ctx.inert_contexts the names every binding of which is an inert context expression."""
    if tree is None:
        return
    imports = _contextlib_names(tree)
    inert: dict[str, bool] = {}
    for node in astwalk.nodes(tree):
        if isinstance(node, ast.Assign):
            ok = _inert_ast(node.value, imports, ctx.aliases)
            for target in node.targets:
                for name in _bound(target):
                    inert[name] = inert.get(name, True) and ok and isinstance(target, ast.Name)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            for name in _bound(node.target):
                inert[name] = inert.get(name, True) and isinstance(node, ast.AnnAssign) \
                    and node.value is not None and _inert_ast(node.value, imports, ctx.aliases)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            for name in _bound(node.target):
                inert[name] = False
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                for name in _bound(item.optional_vars) if item.optional_vars is not None else ():
                    inert[name] = False
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            inert[node.name] = False
            if not isinstance(node, ast.ClassDef):
                for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs,
                            node.args.vararg, node.args.kwarg]:
                    if arg is not None:
                        inert[arg.arg] = False
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                inert[name] = False
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                inert[(alias.asname or alias.name).split(".")[0]] = False
    ctx.inert_contexts.update(name for name, ok in inert.items() if ok)


def _contextlib_names(tree: ast.AST) -> dict[str, str]:
    """Local names bound to contextlib or its nullcontext by the file's imports."""
    names: dict[str, str] = {}
    for node in astwalk.nodes(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "contextlib":
                    names[alias.asname or "contextlib"] = "contextlib"
        elif isinstance(node, ast.ImportFrom) and node.module == "contextlib":
            for alias in node.names:
                if alias.name == "nullcontext":
                    names[alias.asname or "nullcontext"] = NULL
    return names


def _inert_ast(node: ast.expr, imports: dict[str, str], aliases: dict[str, str]) -> bool:
    if isinstance(node, ast.IfExp):
        return _inert_ast(node.body, imports, aliases) and _inert_ast(node.orelse, imports, aliases)
    if not isinstance(node, ast.Call):
        return False
    try:
        name = ast.unparse(node.func)
    except Exception:  # noqa: BLE001 - an expression unparse cannot write is no context name
        return False
    return _inert_name(name, imports, aliases, node.args, node.keywords)


def _inert_name(name: str, imports: dict[str, str], aliases: dict[str, str], args, keywords) -> bool:
    head, _, rest = name.partition(".")
    local = imports.get(head)
    if local is not None and (f"{local}.{rest}" if rest else local) == NULL:
        return not args and not keywords  # nullcontext(value) would hand value to `as`
    return resolve_text(name, aliases) in AUTOCAST


def _bound(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for element in target.elts for n in _bound(element)]
    if isinstance(target, ast.Starred):
        return _bound(target.value)
    return []


def unwrap(ctx, statements: list[cst.BaseStatement]) -> tuple[list[cst.BaseStatement], list[str]]:
    """statements with every top-level `with` over inert contexts (and no `as`) replaced by its body;
    and the contexts so dropped, for the change note."""
    out: list[cst.BaseStatement] = []
    dropped: list[str] = []
    for stmt in statements:
        if isinstance(stmt, cst.With) and stmt.asynchronous is None and isinstance(stmt.body, cst.IndentedBlock) \
                and all(item.asname is None and _inert_cst(ctx, item.item) for item in stmt.items):
            inner, more = unwrap(ctx, list(stmt.body.body))
            inner[0] = inner[0].with_changes(leading_lines=[*stmt.leading_lines, *inner[0].leading_lines])
            out += inner
            dropped += [cst.Module(body=[]).code_for_node(item.item) for item in stmt.items] + more
            continue
        out.append(stmt)
    return out, dropped


def _inert_cst(ctx, node: cst.BaseExpression) -> bool:
    """A context expression of converted code: a name noted by plan(), contextlib.nullcontext() as the
    converter writes it, or an autocast call left as it was."""
    if isinstance(node, cst.Name):
        return node.value in ctx.inert_contexts
    if not isinstance(node, cst.Call) or node.args:
        return False
    text = cst.Module(body=[]).code_for_node(node.func)
    return text in (NULL, ctx.spelling.spell(NULL)[0]) or resolve(node.func, ctx.aliases) in AUTOCAST
