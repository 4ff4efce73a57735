"""convert_notebook: a Jupyter notebook's code cells converted as one program (issue 16, pattern 10).

The cells run in one namespace (an import in the first cell serves the last), so, as the analyzer does
(analysis/scan/notebook.py), the code cells that parse are joined into one program, each behind a
boundary comment, converted once, and cut again at those comments. IPython magics and shell escapes
(`%time`, `!pip ...`) are not Python: each becomes a placeholder statement for the conversion and is put
back as it was. Cell magics (`%%bash`) and cells that do not parse stay as they are. The output keeps
the notebook's cells and metadata, with the code cells' outputs and execution counts cleared (they came
from PyTorch). When the conversion moved code across a cell boundary (a training step whose forward
spans two cells), the cells are left unconverted with one mark saying so."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .core import rules
from .core.result import Change, ConversionResult, Unconverted
from .engine import convert_source, unified_diff

BOUNDARY = "# PORTING-NOTEBOOK-CELL {}"
_BOUNDARY = re.compile(r"^# PORTING-NOTEBOOK-CELL (\d+)$", re.M)
PYTHON_CELL_MAGICS = frozenset({"%%time", "%%timeit", "%%capture", "%%prun"})  # their body is Python
_MAGIC = re.compile(r"^([ \t]*)pass  # PORTING-NOTEBOOK-MAGIC (\d+)$")


@dataclass
class CellChange(Change):
    cell: int = 0  # index among all the notebook's cells; line is the line inside that cell


@dataclass
class CellUnconverted(Unconverted):
    cell: int = 0


def _text(cell: dict) -> str | None:
    source = cell.get("source", "")
    if isinstance(source, str):
        return source
    if isinstance(source, list) and all(isinstance(part, str) for part in source):
        return "".join(source)
    return None


def _lines(text: str) -> list[str]:
    """nbformat's usual form of a cell's source: lines with their line ends."""
    return text.splitlines(keepends=True)


def _hide_magics(text: str, magics: list[str]) -> str:
    out = []
    for line in text.split("\n"):
        stripped = line.lstrip()
        if stripped.startswith(("%", "!", "?")) or (stripped.endswith("?") and not stripped.startswith("#")
                                                    and re.fullmatch(r"[\w.]+\?\??", stripped)):
            indent = line[:len(line) - len(stripped)]
            out.append(f"{indent}pass  # PORTING-NOTEBOOK-MAGIC {len(magics)}")
            magics.append(stripped)
        else:
            out.append(line)
    return "\n".join(out)


def _show_magics(text: str, magics: list[str]) -> str:
    out = []
    for line in text.split("\n"):
        match = _MAGIC.match(line)
        out.append(f"{match.group(1)}{magics[int(match.group(2))]}" if match else line)
    return "\n".join(out)


def _parses(text: str) -> bool:
    try:
        compile(text, "<cell>", "exec", dont_inherit=True, flags=0x400)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def convert_notebook(source: str, *, path: str = "<notebook>", target: str = "classic",
                     ms_version: str = "2.4", support: str | None = None) -> ConversionResult:
    """Convert one notebook's text; the result's text is the converted notebook (JSON). support: as for
    convert_source (the import goes into the cell holding the MindSpore imports)."""
    try:
        doc = json.loads(source)
        cells = doc["cells"]
        if not isinstance(cells, list):
            raise ValueError("'cells' is not a list")
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        return ConversionResult(path=path, text=source, diff="", parse_error=f"not a readable notebook: {exc}",
                                unconverted=[Unconverted(1, rules.PARSE_ERROR, "", f"not a readable notebook ({exc})")])
    magics: list[str] = []
    program: list[str] = []
    starts: list[tuple[int, int]] = []  # (first program line of the cell's code, cell index)
    skipped: list[CellUnconverted] = []
    line = 1
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        text = _text(cell)
        if text is None or not text.strip():
            continue
        magic = text.lstrip().split(None, 1)[0] if text.lstrip().startswith("%%") else ""
        if magic and magic not in PYTHON_CELL_MAGICS:
            if "torch" in text:  # another language's body: nothing here can convert it
                skipped.append(CellUnconverted(1, rules.PARSE_ERROR, "", f"a {magic} cell is not Python: "
                                               "convert its PyTorch use by hand", cell=index))
            continue
        hidden = _hide_magics(text, magics)
        if not _parses(hidden):
            skipped.append(CellUnconverted(1, rules.PARSE_ERROR, "", "this cell does not parse on its own: "
                                           "it was left as it is; convert it by hand", cell=index))
            continue
        program.append(BOUNDARY.format(index))
        starts.append((line + 1, index))
        program.append(hidden.rstrip("\n"))
        line += 1 + hidden.rstrip("\n").count("\n") + 1
    changes: list[Change] = []
    unconverted: list[Unconverted] = list(skipped)
    support_names: list[str] = []
    if program:
        result = convert_source("\n".join(program) + "\n", path=path, target=target, ms_version=ms_version,
                                support=support)
        if not result.diff and not result.unconverted and not skipped:
            return ConversionResult(path=path, text=source, diff="")  # no PyTorch in it: the notebook as it was
        pieces = _cut(result.text)
        if result.parse_error or pieces is None or [i for _, i in starts] != list(pieces) \
                or not all(_parses(p) for p in pieces.values()):
            if not result.parse_error:
                where = next(((i, n) for i in (i for _, i in starts) for n, line in enumerate(
                    (_text(cells[i]) or "").split("\n"), 1) if ".backward(" in line), (starts[0][1], 1))
                unconverted.append(CellUnconverted(where[1], rules.TRAIN_LOOP, "", "the conversion moves code "
                                   "across cells (a training step whose forward is in an earlier cell): merge the "
                                   "cells from the forward to the step, then convert again; the notebook's cells "
                                   "were left as they were", cell=where[0]))
            else:
                unconverted += [_in_cell(u, starts, CellUnconverted) for u in result.unconverted]
        else:
            for index, text in pieces.items():
                cells[index]["source"] = _lines(_show_magics(text, magics))
            changes = [_in_cell(c, starts, CellChange) for c in result.changes]
            support_names = result.support_names
            unconverted += [_in_cell(u, starts, CellUnconverted) for u in result.unconverted]
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    unconverted.sort(key=lambda u: (u.cell, u.line))
    return ConversionResult(path=path, text=text, diff=unified_diff(source, text, path), changes=changes,
                            unconverted=unconverted, support_names=support_names)


def _cut(text: str) -> dict[int, str] | None:
    """Cell index -> converted code, cut at the boundary comments (None when the first line is not one)."""
    marks = list(_BOUNDARY.finditer(text))
    if not marks:
        return None
    head = text[:marks[0].start()]
    pieces: dict[int, str] = {}
    for n, match in enumerate(marks):
        end = marks[n + 1].start() if n + 1 < len(marks) else len(text)
        body = text[match.end() + 1:end]
        if n == 0 and head.strip():
            body = head + body  # imports the conversion added above the first cell
        pieces[int(match.group(1))] = body.rstrip("\n")
    return pieces


def _in_cell(record, starts: list[tuple[int, int]], kind):
    """The record with its program line turned into (cell, line inside the cell)."""
    for first, index in reversed(starts):
        if record.line >= first:
            fields = {k: v for k, v in record.__dict__.items()}
            fields["line"] = record.line - first + 1
            return kind(**fields, cell=index)
    return kind(**record.__dict__, cell=starts[0][1])
