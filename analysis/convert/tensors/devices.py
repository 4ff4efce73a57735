"""Device variables: which `device = torch.device(...)` assignments can go.

The converter drops device plumbing (`.to(device)`, `.cuda(device)`, `device=` of
torch calls), so a variable read only there can be removed with its assignment.
One read anywhere else (passed to a function of the file, printed, returned,
`device.type`) would be left without a definition: such an assignment is kept
and marked instead. Read with the stdlib ast, by dotted name over the whole file
(scope-blind, which can only err towards marking).
"""
from __future__ import annotations

import ast

from ..core import astwalk
from ..core.names import dotted_ast, resolve_text

MOVES = ("to", "cuda")  # methods whose device arguments the converter drops with the call


def read_elsewhere(tree: ast.AST | None, aliases: dict[str, str]) -> set[str] | None:
    """Dotted names read somewhere other than a device-plumbing position (None: no tree, assume all)."""
    if tree is None:
        return None
    plumbing: set[int] = set()
    for node in astwalk.nodes(tree):
        if not isinstance(node, ast.Call):
            continue
        method = node.func.attr if isinstance(node.func, ast.Attribute) else None
        callee = dotted_ast(node.func)
        torch_call = callee is not None and resolve_text(callee, aliases) is not None
        if method in MOVES and not torch_call:
            plumbing.update(id(a) for a in node.args)
            plumbing.update(id(k.value) for k in node.keywords if k.arg == "device")
        elif torch_call:
            plumbing.update(id(k.value) for k in node.keywords if k.arg == "device")
    elsewhere: set[str] = set()
    for node in astwalk.nodes(tree):
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load) and id(node) not in plumbing:
            name = dotted_ast(node)
            if name is not None:
                elsewhere.add(name)
    return elsewhere
