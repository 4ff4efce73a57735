"""One stdlib-ast walk per tree, shared by the passes that read the whole file before converting.

A dozen of them (bindings, names in use, layers, devices, parameter groups...) each visited every node,
and ast.walk's generator costs about half of a parse every time; the node list is built once and kept
on the tree. The trees are never modified after parsing, so the list stays right."""
from __future__ import annotations

import ast


def nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node under tree (tree included), in ast.walk's order."""
    cached = tree.__dict__.get("_porting_nodes")
    if cached is None:
        cached = tree.__dict__["_porting_nodes"] = list(ast.walk(tree))
    return cached
