"""What a variable holds, read from the whole file before converting: a name (or a dotted
attribute such as self.up) whose every assignment binds the same kind of value. Rewrites that
depend on the receiver's type key on it: a torch.Size's numel(), a Sequential's insert(), a
ConvTranspose called with output_size=, an Embedding's weight. The walk ignores scopes, so a
name bound to anything else anywhere (another assignment, a loop or with target, a parameter)
is left out: the map errs towards knowing nothing."""
from __future__ import annotations

import ast

from . import astwalk
import libcst as cst

from .names import dotted, dotted_ast as _dotted, resolve, resolve_text

SIZE = "torch.Size"  # x.size() / x.shape: a tuple after conversion
INSTANCE = "instance:"  # prefix: an instance of a class the file calls by a plain name


def kind_of(value: ast.AST, aliases: dict[str, str]) -> str | None:
    if isinstance(value, ast.Call):
        callee = _dotted(value.func)
        qualified = resolve_text(callee, aliases) if callee else None
        if qualified:
            return qualified
        if isinstance(value.func, ast.Attribute) and value.func.attr == "size" and not value.args \
                and not value.keywords:
            return SIZE
        if isinstance(value.func, ast.Name):
            return INSTANCE + value.func.id
    if isinstance(value, ast.Attribute) and value.attr == "shape":
        return SIZE
    return None


# module methods that return the module itself
SELF_RETURNING = frozenset({"to", "double", "float", "half", "cpu", "cuda", "train", "eval", "requires_grad_"})


def _returns_itself(value: ast.AST, key: str) -> bool:
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
        and value.func.attr in SELF_RETURNING and _dotted(value.func.value) == key


def bindings(tree: ast.Module | None, aliases: dict[str, str], kind=kind_of,
             self_returning: bool = True) -> dict[str, str]:
    """name or dotted attribute -> the kind of value every assignment to it binds (`kind` says what a
    value is; `self_returning`: `net = net.to(...)` keeps net's kind, as it does for a network)."""
    if tree is None:
        return {}
    seen: dict[str, list[str | None]] = {}

    def unknown(target: ast.AST) -> None:
        # what a target rebinds: a name, an attribute, the items of a tuple; not x in x[i] = v
        if isinstance(target, (ast.Tuple, ast.List)):
            for item in target.elts:
                unknown(item)
        elif isinstance(target, ast.Starred):
            unknown(target.value)
        elif isinstance(target, (ast.Name, ast.Attribute)):
            key = _dotted(target)
            if key:
                seen.setdefault(key, []).append(None)

    for node in astwalk.nodes(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                key = _dotted(target) if isinstance(target, (ast.Name, ast.Attribute)) else None
                if key and self_returning and _returns_itself(node.value, key):
                    continue  # net = net.to(torch.float64): still the same network
                if key:
                    seen.setdefault(key, []).append(kind(node.value, aliases))
                else:
                    unknown(target)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.NamedExpr)):
            unknown(node.target)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            unknown(node.optional_vars)
        elif isinstance(node, ast.arg):
            seen.setdefault(node.arg, []).append(None)
        elif isinstance(node, ast.comprehension):
            unknown(node.target)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                seen.setdefault(name, []).append(None)
    return {key: kinds[0] for key, kinds in seen.items()
            if kinds[0] is not None and all(kind == kinds[0] for kind in kinds)}


def tensor_receiver(ctx, node: cst.BaseExpression) -> bool:
    """Whether node is known to be a PyTorch tensor: a torch function's result (torch.tensor(...),
    torch.randn(...)), a tensor method's result on one, or a name every assignment binds to a torch
    function's result (bound.py); classes (nn.Linear) and torch.Size are no tensors."""
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
            and resolve(node.func, ctx.aliases) is None:
        node = node.func.value  # x.float().round(...): the tensor the chain starts from
    if isinstance(node, cst.Call):
        kind = resolve(node.func, ctx.aliases)
    else:
        name = dotted(node)
        kind = ctx.bound.get(name) if name else None
    if not kind or not kind.startswith("torch.") or kind == SIZE:
        return False
    if kind.rsplit(".", 1)[1][:1].isupper() or kind.startswith(("torch.optim.", "torch.utils.", "torch.cuda.")):
        return False
    return not kind.startswith("torch.nn.") or kind.startswith("torch.nn.functional.")
