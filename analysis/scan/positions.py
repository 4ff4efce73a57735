"""Cheap source positions for the few CST nodes a report points at.

While walking the CST in source order the scanner numbers every anchorable
node by a key (``("A", attr)`` for ``x.attr``, ``("N", id)`` for names,
``("C", callee)`` for calls, ``("D", name)`` for defs, ``("K", kw)`` for
keyword arguments, ``("I", "")`` for import statements). The stdlib ``ast`` (C parser, ~0.2x libcst's parse) sees
exactly the same nodes with positions; the k-th CST node of a key is the k-th
AST node of that key in source order. When the two counts disagree for a key
the file falls back to libcst's PositionProvider, so positions are never
guessed.
"""
from __future__ import annotations

import ast
from collections import defaultdict

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

Key = tuple[str, str]
Span = tuple[int, int, int, int]  # line (1-based), col (0-based), end line, end col


def _ast_key(node: ast.AST) -> Key | None:
    t = type(node)
    if t is ast.Attribute:
        return ("A", node.attr)
    if t is ast.Name:
        return ("N", node.id)
    if t is ast.Call:
        f = node.func
        return ("C", f.attr if type(f) is ast.Attribute else f.id if type(f) is ast.Name else "")
    if t is ast.FunctionDef or t is ast.AsyncFunctionDef or t is ast.ClassDef:
        return ("D", node.name)
    if t is ast.keyword and node.arg is not None:
        return ("K", node.arg)
    if t is ast.Import or t is ast.ImportFrom:
        return ("I", "")
    return None


def ast_spans(source: str, wanted: set[Key]) -> dict[Key, list[Span]] | None:
    """Spans of every AST node with a wanted key, in source order; None if ast cannot parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    found: dict[Key, list[tuple]] = defaultdict(list)
    wanted_kinds = {k[0] for k in wanted}
    markers = [k[1] for k in wanted if k[0] == "S"]
    for node in ast.walk(tree):
        if markers and type(node) is ast.Constant and type(node.value) is str:
            for marker in markers:
                if marker in node.value:
                    found[("S", marker)].append((node.lineno, node.col_offset, -node.end_lineno, -node.end_col_offset))
            continue
        key = _ast_key(node)
        if key is not None and key[0] in wanted_kinds and key in wanted:
            found[key].append((node.lineno, node.col_offset, -node.end_lineno, -node.end_col_offset))
    spans: dict[Key, list[Span]] = {}
    for key, rows in found.items():
        rows.sort()
        spans[key] = [(a, b, -c, -d) for a, b, c, d in rows]
    return spans


def cst_spans(module: cst.Module, nodes: list[cst.CSTNode]) -> list[Span]:
    """Exact spans through libcst's PositionProvider (slow path)."""
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    out = []
    for node in nodes:
        pos = positions.get(node)
        if pos is None:
            out.append((1, 0, 1, 0))
        else:
            out.append((pos.start.line, pos.start.column, pos.end.line, pos.end.column))
    return out
