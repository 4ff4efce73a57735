"""The file's statements as the stdlib ast sees them (its C parser costs a fraction of libcst's).

Three uses: the first line of every statement, so that record lines are found by
generating only the statements that hold them (codegen.located_lines); the
simple statements with nothing to convert, which the transformer then leaves
as they are without walking them; and the source text of the statement lines
the conversion left unchanged, copied into the output (codegen.VerbatimLine). A statement is "cold" when none of its
source lines holds an identifier the converter could act on: a torch import
name, a method name it rewrites, or a variable bound to a label-taking loss.
That test reads more than the statement (whole lines, strings, comments), so it
can only err towards walking a statement that needs nothing.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

import libcst as cst

from .core.bound import bindings
from .core.imports import suites
from .core.names import dotted_ast, resolve_text
from .modules import inplace_layers, receivers
from .modules.containers import TRAVERSALS
from .modules.layercalls import stored_names
from .modules.paramnames import PARAMETER_ATTRS
from .training.idioms import hot_names
from .training.optimizers import STEP_METHODS

# Method names the transformer acts on whatever their receiver (besides `relevant`, the tensor methods).
ACTED_ON = STEP_METHODS | PARAMETER_ATTRS | {"add_module", "dataset"} | TRAVERSALS.keys()

_COMPOUND = {ast.If: "If", ast.For: "For", ast.AsyncFor: "For", ast.While: "While", ast.With: "With",
             ast.AsyncWith: "With", ast.Try: "Try", ast.FunctionDef: "FunctionDef",
             ast.AsyncFunctionDef: "FunctionDef", ast.ClassDef: "ClassDef", ast.Match: "Match"}
if hasattr(ast, "TryStar"):
    _COMPOUND[ast.TryStar] = "TryStar"
_IDENTIFIER = re.compile(r"[^\W\d]\w*")


@dataclass
class Outline:
    kinds: list[str] = field(default_factory=list)  # per statement, source order: "Simple" or the compound's name
    first_lines: list[int] = field(default_factory=list)  # line of its first token (first decorator for defs)
    cold: set[int] = field(default_factory=set)  # indices of simple statements with nothing to convert
    end_lines: list[int] = field(default_factory=list)  # line of its last token
    source: str = ""
    line_starts: list[int] = field(default_factory=list)  # offset in source where line n starts, at index n
    tree: ast.Module | None = None  # the stdlib tree itself (scope.occupied reads it too)
    bound: dict[str, str] = field(default_factory=dict)  # variable -> kind of value it holds (bound.py)
    inplace_layers: dict[str, str] = field(default_factory=dict)  # names bound to inplace=True layers (inplace_layers.py)

    def source_lines(self, first: int, last: int) -> str:
        """Source text of lines first..last (1-based, inclusive), line breaks included."""
        return self.source[self.line_starts[first]:self.line_starts[last + 1]]


def outline(source: str, aliases: dict[str, str], relevant: frozenset[str], label_losses: tuple[str, ...]) -> Outline | None:
    """None when ast cannot read the file or its line breaks are not plain newlines."""
    if "\r" in source or "\f" in source:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    out = Outline(tree=tree, bound=bindings(tree, aliases))
    spans: list[tuple[int, int]] = []
    names = set(aliases) | relevant | ACTED_ON | stored_names(tree) | hot_names(tree) | receivers.hot_names(out.bound)
    out.inplace_layers = inplace_layers.find(tree, aliases)
    names |= {path.rsplit(".", 1)[-1] for path in out.inplace_layers}  # act(x): x is rebound

    def walk(body: list[ast.stmt]) -> None:
        for stmt in body:
            kind = _COMPOUND.get(type(stmt), "Simple")
            decorators = getattr(stmt, "decorator_list", None)
            out.kinds.append(kind)
            out.first_lines.append(decorators[0].lineno if decorators else stmt.lineno)
            spans.append((stmt.lineno, stmt.end_lineno or stmt.lineno))
            out.end_lines.append(stmt.end_lineno or stmt.lineno)
            if kind == "Simple":
                if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
                    callee = dotted_ast(stmt.value.func)
                    if callee and resolve_text(callee, aliases) in label_losses:
                        names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
                continue
            if kind == "Match":
                for case in stmt.cases:
                    walk(case.body)
                continue
            walk(stmt.body)
            for handler in getattr(stmt, "handlers", ()):
                walk(handler.body)
            walk(getattr(stmt, "orelse", []))
            walk(getattr(stmt, "finalbody", []))

    walk(tree.body)
    lines = source.split("\n")
    out.source = source
    out.line_starts = [0, 0]
    for line in lines:
        out.line_starts.append(out.line_starts[-1] + len(line) + 1)
    out.line_starts[-1] = len(source)  # the last line has no break after it
    hot = [False] + [not names.isdisjoint(_IDENTIFIER.findall(line)) for line in lines]
    for index, kind in enumerate(out.kinds):
        if kind == "Simple":
            start, end = spans[index]
            if not any(hot[start:end + 1]):
                out.cold.add(index)
    return out


def cst_kinds(module: cst.Module) -> list[str]:
    """Statement kinds of the libcst tree in the order outline() lists them (a check that both
    parsers cut the file into the same statements)."""
    out: list[str] = []

    def walk(statements) -> None:
        for stmt in statements:
            if isinstance(stmt, cst.SimpleStatementLine):
                out.extend(["Simple"] * len(stmt.body))
                continue
            out.append(type(stmt).__name__)
            for suite in suites(stmt):
                if isinstance(suite, cst.SimpleStatementSuite):
                    out.extend(["Simple"] * len(suite.body))
                else:
                    walk(suite.body)
                if isinstance(stmt, cst.If) and suite is stmt.body and isinstance(stmt.orelse, cst.If):
                    walk([stmt.orelse])  # an elif is an If statement of its own, for ast and the transformer
                    break

    walk(module.body)
    return out
