"""What a variable holds, read from the whole file before converting: a name (or a dotted
attribute such as self.up) whose every assignment binds the same kind of value. Rewrites that
depend on the receiver's type key on it: a torch.Size's numel(), a Sequential's insert(), a
ConvTranspose called with output_size=, an Embedding's weight. The walk ignores scopes, so a
name bound to anything else anywhere (another assignment, a loop or with target, a parameter)
is left out: the map errs towards knowing nothing."""
from __future__ import annotations

import ast

import libcst as cst

from analysis.scan.scanner import kind_of_torch_call
from analysis.scan.types import TENSOR

from . import astwalk
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


# tensor methods whose result is no tensor (a number, a list, an array, sizes, a tuple of tensors): a call
# chain through one of them holds no tensor (x.numpy().round(decimals=2) is numpy's round)
NOT_TENSOR_METHODS = frozenset({
    "numpy", "tolist", "item", "size", "dim", "ndimension", "numel", "nelement", "element_size", "stride",
    "storage", "untyped_storage", "storage_offset", "data_ptr", "get_device", "type", "is_contiguous",
    "is_floating_point", "is_complex", "is_signed", "is_pinned", "is_shared", "split", "chunk", "unbind",
    "tensor_split", "hsplit", "vsplit", "dsplit", "__len__"})


def tensor_receiver(ctx, node: cst.BaseExpression) -> bool:
    """Whether node is known to be a PyTorch tensor, the one test the converter's rules share: the result of
    a torch call that returns one (the scanner's kind_of_torch_call: torch.randn(...), F.relu(...),
    nn.Parameter(...)), of tensor methods on one (x.float().round(...)), or a name every assignment binds to
    such a call (bindings()). Classes (nn.Linear), torch.Size, numbers and anything else are not; nor is a
    receiver of no torch origin (a numpy array, a list, re, plt)."""
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
            and resolve(node.func, ctx.aliases) is None:
        if node.func.attr.value in NOT_TENSOR_METHODS:
            return False
        node = node.func.value  # x.float().round(...): the tensor the chain starts from
    if isinstance(node, cst.Call):
        kind = resolve(node.func, ctx.aliases)
    else:
        name = dotted(node)
        kind = (ctx.bound or {}).get(name) if name else None
    if not kind or not kind.startswith("torch.") or kind == SIZE:
        return False
    found = kind_of_torch_call(kind)
    return found is not None and found[0] == TENSOR
