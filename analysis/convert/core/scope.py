"""Names the file already gives a meaning to, so that the MindSpore imports the
converter adds (``ds``, ``ops``, ``nn`` ...) never shadow one of the user's.

Read with the stdlib ast (a fraction of libcst's cost). Module-wide and
scope-blind on purpose: a local variable ``ds`` in one function is enough to
keep ``import mindspore.dataset as ds`` out of the whole file.
"""
from __future__ import annotations

import ast
import re

from . import astwalk
from .imports import is_torch

_IDENTIFIER = re.compile(r"[^\W\d]\w*")


class Occupied:
    """What each name of the file is bound to: imported modules, or anything else."""

    def __init__(self) -> None:
        self.imports: dict[str, set[str]] = {}  # name -> modules/objects non-torch imports bind it to
        self.other: set[str] = set()  # names bound, or read without a binding we know, any other way

    def free_for(self, name: str, module: str) -> bool:
        """Whether an import binding name to module leaves every existing meaning of name intact."""
        return name not in self.other and self.imports.get(name, set()) <= {module}


def occupied(source: str, tree: ast.AST | None = None) -> Occupied:
    out = Occupied()
    if tree is None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            out.other.update(_IDENTIFIER.findall(source))  # no tree: every identifier counts as taken
            return out
    imported_torch: set[str] = set()
    loads: set[str] = set()
    for node in astwalk.nodes(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    _bind_import(out, imported_torch, alias.asname, alias.name)
                else:
                    root = alias.name.split(".")[0]
                    _bind_import(out, imported_torch, root, root)
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            for alias in node.names:
                if alias.name != "*":
                    _bind_import(out, imported_torch, alias.asname or alias.name, f"{module}.{alias.name}")
        elif isinstance(node, ast.Name):
            (loads if isinstance(node.ctx, ast.Load) else out.other).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.other.add(node.name)
        elif isinstance(node, ast.arg):
            out.other.add(node.arg)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            out.other.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.other.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            out.other.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            out.other.add(node.rest)
    # a name read but bound nowhere in the file: a builtin, a star import's, or undefined; taken all the same
    out.other |= loads - imported_torch - out.imports.keys()
    return out


def _bind_import(out: Occupied, imported_torch: set[str], name: str, target: str) -> None:
    if is_torch(target):
        imported_torch.add(name)  # the converter replaces torch's meaning of the name anyway
    else:
        out.imports.setdefault(name, set()).add(target)

