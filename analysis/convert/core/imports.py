"""Imports: read the file's torch aliases before converting, rewrite its imports after.

The alias table is built by hand in one sweep over the import statements (no
ScopeProvider: it costs several parses). After conversion, torch imports whose
names are no longer used are dropped, MindSpore imports the new code needs are
added where the first torch import stood, and torch imports still in use stay
with a comment naming what still needs them.
"""
from __future__ import annotations

import libcst as cst

from . import rules
from .names import bound_name, dotted

TORCH_ROOTS = ("torch", "torchvision", "torchaudio", "torchtext")
# torch modules of other packages that the converter rewrites like torch's own (apis/thirdparty.py)
TORCH_MODULES = ("einops.layers.torch",)


def is_torch(module: str | None) -> bool:
    return bool(module) and (module.split(".")[0] in TORCH_ROOTS
                             or any(module == m or module.startswith(m + ".") for m in TORCH_MODULES))


def import_bindings(stmt: cst.CSTNode) -> dict[str, str]:
    """local name -> qualified torch name bound by one Import/ImportFrom (torch ones only)."""
    out: dict[str, str] = {}
    if isinstance(stmt, cst.Import):
        for alias in stmt.names:
            full = dotted(alias.name)
            if not is_torch(full):
                continue
            if alias.asname is not None:
                out[alias.asname.name.value] = full
            else:
                root = full.split(".")[0]
                out[root] = root
    elif isinstance(stmt, cst.ImportFrom) and not stmt.relative:
        module = dotted(stmt.module) if stmt.module is not None else None
        if not is_torch(module) or isinstance(stmt.names, cst.ImportStar):
            return out
        for alias in stmt.names:
            name = dotted(alias.name)
            local = alias.asname.name.value if alias.asname is not None else name
            out[local] = f"{module}.{name}"
    return out


def gather_aliases(module: cst.Module) -> dict[str, str]:
    """local name -> qualified torch name, from every import in the file (later bindings win).

    Walks statements only, in source order: imports never sit inside expressions."""
    aliases: dict[str, str] = {}
    _gather(module.body, aliases)
    return aliases


def _gather(statements, aliases: dict[str, str]) -> None:
    for stmt in statements:
        if isinstance(stmt, cst.SimpleStatementLine):
            _gather_small(stmt.body, aliases)
        else:
            # `try: from torch...parametrizations import weight_norm / except ImportError: from torch... import
            # weight_norm`: with torch there the try body's import is the one that ran, so it wins
            order = list(suites(stmt))
            if isinstance(stmt, cst.Try):
                order = [h.body for h in stmt.handlers] + [s for s in order if s not in [h.body for h in stmt.handlers]]
            for suite in order:
                if isinstance(suite, cst.SimpleStatementSuite):
                    _gather_small(suite.body, aliases)
                else:
                    _gather(suite.body, aliases)


def _gather_small(small, aliases: dict[str, str]) -> None:
    for s in small:
        if isinstance(s, (cst.Import, cst.ImportFrom)):
            aliases.update(import_bindings(s))


def suites(stmt: cst.CSTNode):
    """The statement blocks of a compound statement, in source order."""
    if isinstance(stmt, cst.Match):
        for case in stmt.cases:
            yield case.body
        return
    body = getattr(stmt, "body", None)
    if isinstance(body, cst.BaseSuite):
        yield body
    for handler in getattr(stmt, "handlers", ()):
        yield handler.body
    orelse = getattr(stmt, "orelse", None)
    while orelse is not None:  # else / elif chains
        yield orelse.body
        orelse = getattr(orelse, "orelse", None) if isinstance(orelse, cst.If) else None
    final = getattr(stmt, "finalbody", None)
    if final is not None:
        yield final.body


def _prune(stmt: cst.Import | cst.ImportFrom, used: set[str]) -> tuple[cst.BaseSmallStatement | None, list[str]]:
    """Drop the torch names nobody uses; returns (statement or None, names kept)."""
    names = stmt.names
    if isinstance(names, cst.ImportStar):
        return stmt, ["*"]
    kept, kept_names = [], []
    bindings = import_bindings(stmt)
    for alias in names:
        if isinstance(stmt, cst.Import):
            full = dotted(alias.name)
            local = alias.asname.name.value if alias.asname else full.split(".")[0]
        else:
            local = alias.asname.name.value if alias.asname else dotted(alias.name)
        if local not in bindings or local in used:
            kept.append(alias)
            if local in bindings:
                kept_names.append(local)
    if not kept:
        return None, []
    kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    if isinstance(stmt, cst.ImportFrom) and len(kept) < len(names):
        # a parenthesised multi-line import collapsing to fewer names keeps its parentheses
        return stmt.with_changes(names=kept), kept_names
    return stmt.with_changes(names=kept), kept_names


def _import_sort_key(statement: str) -> tuple[int, str]:
    return (0 if statement.startswith("import ") else 1, statement)


def rewrite_imports(module: cst.Module, needed: set[str], used: set[str]) -> tuple[cst.Module, list[str]]:
    """Returns the module with imports cleaned and added, and the torch names still needed.

    `used`: torch import names that unconverted code still refers to. A name the new
    MindSpore imports bind takes precedence (the unconverted use carries a MIGRATE mark)."""
    used = used - {bound_name(text) for text in needed}
    new_body: list[cst.BaseStatement] = []
    still_needed: list[str] = []
    existing = {cst.Module(body=[s]).code.strip() for s in module.body if isinstance(s, cst.SimpleStatementLine)}
    additions: list[cst.BaseStatement] = [
        cst.parse_statement(text) for text in sorted(needed, key=_import_sort_key) if text not in existing
    ]
    insert_at = _insertion_index(module)
    carry: list[cst.EmptyLine] = []  # blank lines and comments of a removed import move down
    for index, stmt in enumerate(module.body):
        if index == insert_at and additions:
            # the block of new imports takes over the blank lines above the statement it precedes
            additions[0] = additions[0].with_changes(leading_lines=stmt.leading_lines)
            stmt = stmt.with_changes(leading_lines=[])
            new_body.extend(additions)
            additions = []
        if isinstance(stmt, cst.Try):  # torch imports tried in turn: those nothing uses go, as at top level
            stmt = _prune_try(stmt, used, still_needed)
        if isinstance(stmt, cst.SimpleStatementLine) and any(
            isinstance(s, (cst.Import, cst.ImportFrom)) and import_bindings(s) for s in stmt.body
        ):
            small: list[cst.BaseSmallStatement] = []
            kept_here: list[str] = []
            for s in stmt.body:
                if isinstance(s, (cst.Import, cst.ImportFrom)) and import_bindings(s):
                    pruned, kept_names = _prune(s, used)
                    if pruned is not None:
                        small.append(pruned)
                        kept_here.extend(kept_names)
                else:
                    small.append(s)
            if not small:
                carry.extend(line for line in stmt.leading_lines if line.comment is not None)
                continue
            small[-1] = small[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
            stmt = stmt.with_changes(body=small)
            if kept_here:
                still_needed.extend(kept_here)
                note = (
                    f"# MIGRATE({rules.IMPORTS}): PyTorch is still imported for "
                    f"{', '.join(sorted(set(kept_here)))}: code using it was left unconverted"
                )
                stmt = stmt.with_changes(
                    leading_lines=[*stmt.leading_lines, cst.EmptyLine(comment=cst.Comment(note))]
                )
        if carry:
            stmt = stmt.with_changes(leading_lines=[*carry, *stmt.leading_lines])
            carry = []
        new_body.append(stmt)
    if additions:
        new_body.extend(additions)
    if carry and new_body:
        pass  # nothing follows the removed imports: their comments go with them
    return module.with_changes(body=new_body), still_needed


def _prune_try(stmt: cst.Try, used: set[str], still_needed: list[str]) -> cst.Try:
    """A top-level try/except's torch imports (its body's, its handlers', its else's) without the names
    nobody uses; a block left empty holds `pass`."""
    def block(suite: cst.BaseSuite) -> cst.BaseSuite:
        if not isinstance(suite, cst.IndentedBlock):
            return suite
        body = []
        for line in suite.body:
            if isinstance(line, cst.SimpleStatementLine) and any(
                    isinstance(s, (cst.Import, cst.ImportFrom)) and import_bindings(s) for s in line.body):
                small = []
                for s in line.body:
                    if isinstance(s, (cst.Import, cst.ImportFrom)) and import_bindings(s):
                        pruned, kept = _prune(s, used)
                        still_needed.extend(kept)
                        if pruned is not None:
                            small.append(pruned)
                    else:
                        small.append(s)
                if not small:
                    continue
                line = line.with_changes(body=[*small[:-1], small[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)])
            body.append(line)
        return suite.with_changes(body=body or [cst.SimpleStatementLine(body=[cst.Pass()])])

    return stmt.with_changes(
        body=block(stmt.body),
        handlers=[h.with_changes(body=block(h.body)) for h in stmt.handlers],
        orelse=stmt.orelse.with_changes(body=block(stmt.orelse.body)) if stmt.orelse is not None else None)


def _insertion_index(module: cst.Module) -> int:
    """Where new imports go: at the first torch import, else after docstring and __future__ imports."""
    fallback = 0
    for index, stmt in enumerate(module.body):
        if not isinstance(stmt, cst.SimpleStatementLine):
            break
        first = stmt.body[0]
        if isinstance(first, (cst.Import, cst.ImportFrom)) and import_bindings(first):
            return index
        if isinstance(first, cst.Expr) and isinstance(first.value, (cst.SimpleString, cst.ConcatenatedString)) and index == 0:
            fallback = index + 1
        elif isinstance(first, (cst.Import, cst.ImportFrom)):
            fallback = index + 1
        else:
            break
    return fallback
