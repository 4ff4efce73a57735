"""Statement fingerprints: which finding is "the same" across two uploads of a file.

A fingerprint is rule + PyTorch API + the statement the finding sits in
(its syntax tree without positions, so reformatting, comments and moved lines
do not change it) + the qualified name of its enclosing definition, then an
ordinal among equal keys in the file. Line numbers are not part of it.

Compound statements (def, class, for, with, if...) count by their header only:
editing a function's body leaves a finding on its `def` line alone.
"""
from __future__ import annotations

import ast
import hashlib
import io
import json
import tokenize
from collections import defaultdict
from pathlib import Path
from typing import Iterable, Protocol, Sequence

from analysis.findings import FileReport

# Fields holding nested statement lists: dropped so a compound statement is its header.
_BODY_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class Located(Protocol):
    line: int
    column: int
    rule_id: str
    torch_api: str
    cell: int | None


class _Stmt:
    __slots__ = ("start", "end", "col", "depth", "key")

    def __init__(self, start: int, end: int, col: int, depth: int, key: str):
        self.start, self.end, self.col, self.depth, self.key = start, end, col, depth, key


def _header(node: ast.stmt) -> str:
    fields = {}
    for name, value in ast.iter_fields(node):
        if name in _BODY_FIELDS or name == "type_comment":
            continue
        fields[name] = value
    if not any(name in _BODY_FIELDS for name in node._fields):
        return ast.dump(node, annotate_fields=False, include_attributes=False)
    return ast.dump(type(node)(**fields), annotate_fields=False, include_attributes=False)


def _statements(tree: ast.AST) -> list[_Stmt]:
    """Every statement with its line span, nesting depth and normalised key."""
    found: list[_Stmt] = []

    def visit(body: Iterable[ast.AST], scope: str, depth: int) -> None:
        for node in body:
            if not isinstance(node, ast.stmt):
                if isinstance(node, (ast.ExceptHandler, getattr(ast, "match_case", ast.ExceptHandler))):
                    visit(getattr(node, "body", ()), scope, depth + 1)
                continue
            start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
            text = _header(node)
            found.append(_Stmt(start, node.end_lineno or node.lineno, node.col_offset, depth, f"{scope}\0{text}"))
            inner = f"{scope}.{node.name}" if isinstance(node, _DEFS) else scope
            for name in _BODY_FIELDS:
                visit(getattr(node, name, ()) or (), inner, depth + 1)

    visit(getattr(tree, "body", ()), "", 0)
    return found


def _parse(text: str) -> list[_Stmt] | None:
    try:
        return _statements(ast.parse(text))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _statement_key(stmts: list[_Stmt] | None, lines: list[str], line: int, column: int) -> str:
    if stmts:
        best = None
        for stmt in stmts:
            if stmt.start <= line <= stmt.end:
                rank = (stmt.depth, stmt.col if stmt.start == line and stmt.col <= column else -1)
                if best is None or rank > best[0]:
                    best = (rank, stmt)
        if best is not None:
            return best[1].key
    # Not parseable (or outside any statement): the line's text with whitespace collapsed.
    return "line\0" + (" ".join(lines[line - 1].split()) if 0 < line <= len(lines) else "")


def _notebook_cells(text: str) -> dict[int, str]:
    from analysis.scan.notebook import _cell_source

    try:
        cells = json.loads(text).get("cells", [])
    except (ValueError, AttributeError):
        return {}
    return {i: _cell_source(c) for i, c in enumerate(cells) if isinstance(c, dict) and c.get("cell_type") == "code"}


def _decode(source: str | bytes) -> str:
    if isinstance(source, str):
        return source
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        text = source.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        text = source.decode("utf-8", "replace")
    return text[1:] if text.startswith("\ufeff") else text


def fingerprint_findings(source: str | bytes, path: str, findings: Sequence[Located]) -> list[str]:
    """One fingerprint per finding (same order), from the file's content.

    Works on anything with line, column, rule_id, torch_api and cell (engine
    Findings and the dashboard's stored rows alike).
    """
    text = _decode(source)
    units: dict[int | None, tuple[list[_Stmt] | None, list[str]]] = {}
    if path.endswith(".ipynb"):
        for index, cell in _notebook_cells(text).items():
            units[index] = (_parse(cell), cell.splitlines())
    else:
        units[None] = (_parse(text), text.splitlines())
    # Ordinals follow position in the file, whatever order the caller passes.
    order = sorted(range(len(findings)), key=lambda i: (
        findings[i].cell if findings[i].cell is not None else -1, findings[i].line, findings[i].column,
        findings[i].rule_id, findings[i].torch_api))
    seen: dict[str, int] = defaultdict(int)
    out = [""] * len(findings)
    for i in order:
        f = findings[i]
        stmts, lines = units.get(f.cell if path.endswith(".ipynb") else None, (None, []))
        key = _statement_key(stmts, lines, f.line, f.column)
        digest = hashlib.sha1(f"{f.rule_id}\0{f.torch_api}\0{key}".encode("utf-8", "surrogatepass")).hexdigest()[:16]
        out[i] = f"{digest}-{seen[digest]}"
        seen[digest] += 1
    return out


def fingerprint_base(fingerprint: str) -> str:
    """The fingerprint without its ordinal (equal statements in one definition share it)."""
    return fingerprint.rsplit("-", 1)[0]


def add_fingerprints(report: FileReport, source: str | bytes) -> FileReport:
    for finding, fp in zip(report.findings, fingerprint_findings(source, report.path, report.findings)):
        finding.fingerprint = fp
    return report


def fingerprint_tree(root: Path, reports: list[FileReport]) -> list[FileReport]:
    """Fingerprints for reports of analyze_tree(root) (a file root: its own report)."""
    for report in reports:
        if not report.findings:
            continue
        path = root if root.is_file() else root / report.path
        try:
            add_fingerprints(report, path.read_bytes())
        except OSError:
            continue
    return reports
