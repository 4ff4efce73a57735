"""A parameter group's learning rate set in place (issue 29): `g['lr'] = value` -> `ops.assign(g['lr'], value)`.

mindspore.experimental.optim keeps each group's lr in a Parameter that the optimizer reads at every
step and its schedulers assign to. `g['lr'] = value` replaces that Parameter by a Python float: op by
op the optimizer uses the float, but a compiled step freezes it at its first value, so such a file kept
its step uncompiled. Assigning into the Parameter keeps it, and the step compiles (measured in
tests/convert/test_compiled_steps.py: the same losses and weights as PyTorch).

plan() reads the file once (stdlib ast) and says whether every use of param_groups is one this module
understands: a group bound by `for g in X.param_groups` (or a comprehension) or `X.param_groups[i]`,
read, or written only at the key 'lr'. Anything else (another key written, a group's update(), the list
kept in a variable or passed on) leaves ctx.group_lr_only False and the step uncompiled as before.
"""
from __future__ import annotations

import ast

import libcst as cst

from ..core import rules
from ..core.names import code

MUTATORS = frozenset({"update", "setdefault", "pop", "popitem", "clear", "append", "extend", "insert", "remove"})
OPS = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "//=": "//", "**=": "**"}


def plan(ctx, tree: ast.AST | None) -> None:
    """Note the variables bound to parameter groups and whether every param_groups use is understood."""
    if tree is None:
        return
    groups: set[str] = set()
    for node in ast.walk(tree):
        for target, iterable in _bindings(node):
            if _is_groups(iterable) and isinstance(target, ast.Name):
                groups.add(target.id)
    ctx.group_names = groups
    ctx.group_lr_only = _understood(tree, groups)


def _bindings(node: ast.AST):
    if isinstance(node, (ast.For, ast.AsyncFor)):
        yield node.target, node.iter
    elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        for gen in node.generators:
            yield gen.target, gen.iter


def _is_groups(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "param_groups"


def _is_group(node: ast.AST, groups: set[str]) -> bool:
    """A parameter group: a variable bound by iterating param_groups, or X.param_groups[i]."""
    return isinstance(node, ast.Name) and node.id in groups \
        or isinstance(node, ast.Subscript) and _is_groups(node.value)


def _understood(tree: ast.AST, groups: set[str]) -> bool:
    iterated = {id(it) for n in ast.walk(tree) for _, it in _bindings(n)}
    indexed = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Subscript)}
    for node in ast.walk(tree):
        if _is_groups(node):  # the list itself: iterated or indexed, nothing else
            if id(node) not in iterated and id(node) not in indexed:
                return False
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                if isinstance(target, ast.Subscript) and _is_group(target.value, groups) \
                        and not (isinstance(node, (ast.Assign, ast.AugAssign)) and _key(target) == "lr"):
                    return False
                if isinstance(target, ast.Name) and target.id in groups:
                    return False  # a group's name bound to something else: its writes may reach a plain dict
        elif isinstance(node, ast.arg) and node.arg in groups:
            return False  # likewise a function argument
        elif any(isinstance(t, ast.Name) and t.id in groups and not _is_groups(it) for t, it in _bindings(node)):
            return False  # likewise a loop over something else
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in MUTATORS and _is_group(node.func.value, groups):
            return False
    return True


def _key(target: ast.Subscript) -> str | None:
    return target.slice.value if isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str) else None


def rewrite(ctx, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
    """`g['lr'] = v` / `g['lr'] op= v` on a parameter group -> ops.assign into its lr Parameter, or None."""
    if not ctx.group_lr_only or len(updated.body) != 1:
        return None
    stmt = updated.body[0]
    if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1:
        target, value = stmt.targets[0].target, stmt.value
    elif isinstance(stmt, cst.AugAssign) and code(stmt.operator).strip() in OPS:
        target = stmt.target
        value = cst.parse_expression(f"{code(target)} {OPS[code(stmt.operator).strip()]} ({code(stmt.value)})")
    else:
        return None
    if not (isinstance(target, cst.Subscript) and _cst_group(target.value, ctx.group_names) and _cst_key(target) == "lr"):
        return None
    assign = ctx.ms("mindspore.ops.assign")
    ctx.change(original, rules.OPTIMIZER_GROUPS, "torch.optim.Optimizer.param_groups", "mindspore.ops.assign",
               "the group's learning rate is assigned into its Parameter: replacing it by a Python number "
               "would be frozen into a compiled training step at its first value")
    return updated.with_changes(body=[cst.Expr(cst.parse_expression(f"{assign}({code(target)}, {code(value)})"))])


def _cst_group(node: cst.BaseExpression, groups: set[str]) -> bool:
    return isinstance(node, cst.Name) and node.value in groups \
        or isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute) \
        and node.value.attr.value == "param_groups"


def _cst_key(target: cst.Subscript) -> str | None:
    if len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
        return None
    value = target.slice[0].slice.value
    return value.evaluated_value if isinstance(value, cst.SimpleString) else None
