"""Helper definitions written into a converted file: where a PyTorch call has no classic-API
counterpart of the same shape, the call is rewritten to a small local function or class whose code
(helper_source.py, checked against PyTorch by the tests) is copied after the file's imports. The
converted file depends on MindSpore alone, never on this product.

use() gives a helper's local name and records it on the context; insert() writes the recorded
helpers into the module once the imports are settled."""
from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

import libcst as cst

from .context import ConversionContext
from .names import dotted

SOURCE = Path(__file__).with_name("helper_source.py")
# The module names helper code uses -> the MindSpore module each stands for.
HEADS = {"mindspore": "mindspore", "ops": "mindspore.ops", "nn": "mindspore.nn"}
_HEAD = re.compile(r"(?<![\w.])(mindspore|ops|nn)\.")


@lru_cache(maxsize=1)
def definitions() -> dict[str, str]:
    """Helper name -> its source text, read from helper_source.py."""
    text = SOURCE.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    out = {}
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out[node.name] = "".join(lines[node.lineno - 1:node.end_lineno])
    return out


def use(ctx: ConversionContext, name: str) -> str:
    """The local name helper `name` gets in this file; its code is written by insert()."""
    if name in ctx.helpers:
        return ctx.helpers[name][0]
    local = _free_name(ctx, name)
    text = definitions()[name]
    text = _HEAD.sub(lambda m: ctx.ms(HEADS[m.group(1)]) + ".", text)
    if local != name:
        text = re.sub(rf"^(def|class) {name}\b", rf"\1 {local}", text, count=1)
    ctx.helpers[name] = (local, text)
    return local


def _free_name(ctx: ConversionContext, name: str) -> str:
    occupied = ctx.spelling.occupied
    taken = set(ctx.aliases) | {local for local, _ in ctx.helpers.values()}
    if occupied is not None:
        taken |= occupied.other | set(occupied.imports)
    candidate, number = name, 2
    while candidate in taken or candidate in HEADS:
        candidate, number = f"ms_{name}" if number == 2 else f"ms_{name}_{number - 1}", number + 1
    return candidate


def insert(module: cst.Module, ctx: ConversionContext) -> cst.Module:
    """The module with the helpers used written after its leading imports."""
    if not ctx.helpers:
        return module
    blank = [cst.EmptyLine(), cst.EmptyLine()]
    added = []
    for _, text in sorted(ctx.helpers.values()):
        body = list(cst.parse_module(text).body)
        body[0] = body[0].with_changes(leading_lines=blank)
        added += body
    body = list(module.body)
    at = _after_imports(body)
    if at < len(body):
        follow = body[at]
        if len([line for line in follow.leading_lines if line.comment is None]) < 2:
            body[at] = follow.with_changes(leading_lines=blank + [l for l in follow.leading_lines if l.comment])
    return module.with_changes(body=[*body[:at], *added, *body[at:]])


def _after_imports(body: list[cst.BaseStatement]) -> int:
    """Index after the block of MindSpore imports (where the converter puts them: at the first torch
    import), else after the last top-level import before the first definition. Helpers refer to
    those modules; a class helper needs them when it is defined."""
    block = [index for index, stmt in enumerate(body) if _imports_mindspore(stmt)]
    if block:
        at = block[0]
        while at in block:
            at += 1
        return at
    at = 0
    for index, stmt in enumerate(body):
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            break
        if isinstance(stmt, cst.SimpleStatementLine) and all(isinstance(s, (cst.Import, cst.ImportFrom))
                                                              for s in stmt.body):
            at = index + 1
        elif index == 0 and isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr):
            at = 1  # the docstring
    return at


def _imports_mindspore(stmt: cst.BaseStatement) -> bool:
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    for small in stmt.body:
        names = [a.name for a in small.names] if isinstance(small, cst.Import) else \
            [small.module] if isinstance(small, cst.ImportFrom) and small.module is not None else []
        if any((dotted(name) or "").split(".")[0] == "mindspore" for name in names):
            return True
    return False
