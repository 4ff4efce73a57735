"""Third-party packages bound to torch.

- einops: its torch layers (einops.layers.torch.Rearrange/Reduce/EinMix, which imports.py counts as
  torch names) become the MindSpore cells of helper_einops.py; a file that imports einops at all
  gets the einops backend for MindSpore tensors written into it (helper_einops.py), so that its
  rearrange/repeat/reduce/einsum/pack/unpack calls stay as they are and work on MindSpore tensors.
- every other package of knowledge/data/torch_bound.json: its import gets a MIGRATE comment saying
  what the package is and what to do about it (the converter cannot see into the package).
"""
from __future__ import annotations

import ast

import libcst as cst

from analysis.knowledge import torch_bound

from ..core import rules
from ..core.context import ConversionContext
from ..core.imports import is_torch
from ..core.names import dotted
from ..core.result import Unconverted
from ..support import helpers

EINOPS_LAYERS = "einops.layers.torch"
LAYERS = ("Rearrange", "Reduce", "EinMix")
BACKEND = "MindSporeEinopsBackend"


def row_for(module: str | None) -> dict | None:
    """The table's row for an imported module (knowledge/torch_bound.py); PyTorch's own modules have none."""
    if not module or is_torch(module) and not module.startswith("einops."):
        return None
    return torch_bound.row_for(module)


# -- einops ---------------------------------------------------------------------------------------

def uses_einops(tree: ast.AST | None) -> bool:
    return tree is not None and any(module.split(".")[0] == "einops" for module, _, _ in imported_modules(tree))


def prepare(ctx: ConversionContext) -> None:
    """Before the walk: a file importing einops gets the MindSpore backend (defining the class
    registers it with einops for the whole process), torch or not: its einops calls may be the
    only ones a MindSpore tensor meets."""
    if uses_einops(ctx.tree):
        helpers.use(ctx, BACKEND)


def einops_layer(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry) -> cst.Call:
    """einops.layers.torch.Rearrange(...) -> the Rearrange cell written into the file; same arguments."""
    layer = qualified.rsplit(".", 1)[1]
    local = helpers.use(ctx, layer)
    ctx.change(original, rules.API_RENAME, qualified, local,
               f"{qualified} -> {local}, a MindSpore cell the conversion writes into this file (einops's own "
               f"pattern handling over the MindSpore einops backend)")
    return updated.with_changes(func=cst.Name(local))


def einops_layer_reference(ctx: ConversionContext, original: cst.BaseExpression, qualified: str) -> cst.Name:
    """Rearrange used as a value (isinstance(m, Rearrange), partial(Reduce, ...)) -> the cell's name."""
    local = helpers.use(ctx, qualified.rsplit(".", 1)[1])
    ctx.change(original, rules.API_RENAME, qualified, local, f"{qualified} -> {local}, a MindSpore cell the "
               "conversion writes into this file")
    return cst.Name(local)


HANDLERS = {f"{EINOPS_LAYERS}.{layer}": einops_layer for layer in LAYERS}


# -- other torch-bound packages ---------------------------------------------------------------------

def imported_modules(tree: ast.AST):
    """(module, line, column) of each absolute import in the file, in source order."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno, node.col_offset
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            yield node.module, node.lineno, node.col_offset


def _needs_work(module: str) -> dict | None:
    row = row_for(module)
    return row if row is not None and not row["converted"] else None


def mark_imports(module: cst.Module, ctx: ConversionContext) -> cst.Module:
    """After the walk: a MIGRATE comment above each import of a package the table says a person must
    port, reported with the import's line in the original source."""
    if ctx.tree is None:
        return module
    lines = sorted((line, column) for name, line, column in imported_modules(ctx.tree) if _needs_work(name))
    if not lines:
        return module
    found = iter(line for line, _ in lines)  # the cst walk meets the imports in source order

    def comment_on(stmt: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
        comments = []
        for small in stmt.body:
            for name in _modules_of(small):
                row = _needs_work(name)
                if row is None:
                    continue
                action = f"{name} is {row['what']}: MindSpore cannot run it; {row['todo']}"
                ctx.unconverted.append(Unconverted(next(found, 0), rules.TORCH_BOUND, name, action))
                comments.append(f"# MIGRATE({rules.TORCH_BOUND}): {action}")
        if not comments:
            return stmt
        lines = [cst.EmptyLine(comment=cst.Comment(c)) for c in comments]
        return stmt.with_changes(leading_lines=[*stmt.leading_lines, *lines])

    def walk(statements):
        out = []
        for stmt in statements:
            if isinstance(stmt, cst.SimpleStatementLine):
                out.append(comment_on(stmt))
                continue
            out.append(_with_suites(stmt, walk))
        return out

    return module.with_changes(body=walk(module.body))


def _with_suites(stmt: cst.BaseCompoundStatement, walk):
    """stmt with walk applied to the statement list of each block it holds (imports inside try/if)."""
    changes = {}
    body = getattr(stmt, "body", None)
    if isinstance(body, cst.IndentedBlock):
        changes["body"] = body.with_changes(body=walk(body.body))
    handlers = getattr(stmt, "handlers", None)
    if handlers:
        changes["handlers"] = [h.with_changes(body=h.body.with_changes(body=walk(h.body.body)))
                               if isinstance(h.body, cst.IndentedBlock) else h for h in handlers]
    for name in ("orelse", "finalbody"):
        part = getattr(stmt, name, None)
        if isinstance(part, cst.If):
            changes[name] = _with_suites(part, walk)
        elif part is not None and isinstance(getattr(part, "body", None), cst.IndentedBlock):
            changes[name] = part.with_changes(body=part.body.with_changes(body=walk(part.body.body)))
    return stmt.with_changes(**changes) if changes else stmt


def _modules_of(small: cst.BaseSmallStatement) -> list[str]:
    if isinstance(small, cst.Import):
        return [dotted(alias.name) or "" for alias in small.names]
    if isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None:
        return [dotted(small.module) or ""]
    return []
