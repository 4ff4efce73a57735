"""A notebook's file page: every cell with its real index, findings under their cell and line.

The analyzer reports a notebook finding as (cell, line): the cell's index among
all the notebook's cells (markdown ones count) and the line inside that cell.
Each cell is shown on its own, numbered from 1 as the analyzer numbers it, so a
finding lands where it belongs without any offset arithmetic. Markdown and raw
cells are shown as text (closed when long) so the indices read the same as in
Jupyter.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from html import escape

from django.utils.safestring import SafeString, mark_safe

from .source_view import _finding_html, highlighted_lines, render_lines

LONG_TEXT_CELL = 12  # lines: a longer markdown cell starts closed


@dataclass
class Cell:
    index: int
    kind: str  # code | markdown | raw
    source: str | None  # None when nbformat's source is neither a string nor a list of strings


def notebook_cells(text: str) -> list[Cell] | None:
    """Every cell of the notebook, or None when the text is not a notebook."""
    from analysis.scan.notebook import cell_text

    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        return None
    cells = doc.get("cells") if isinstance(doc, dict) else None
    if not isinstance(cells, list):
        return None
    return [Cell(i, str(c.get("cell_type", "")) if isinstance(c, dict) else "", cell_text(c))
            for i, c in enumerate(cells)]


def source_lines(cells: list[Cell]) -> int:
    """Lines of code the notebook holds (its code cells), not lines of its JSON."""
    return sum(len(c.source.splitlines()) for c in cells if c.kind == "code" and c.source)


def render_notebook(cells: list[Cell], findings, *, rules_url: str = "", finding_url: str = "",
                    collapse=None) -> SafeString:
    by_cell: dict[int | None, dict[int, list]] = {}
    for finding in findings:
        by_cell.setdefault(finding.cell, {}).setdefault(finding.line, []).append(finding)
    seen: set[str] = set()
    out = []
    loose = [f for line in sorted(by_cell.get(None, {})) for f in by_cell[None][line]]
    known = {c.index for c in cells}
    # Findings without a cell (the notebook could not be read) or naming a cell it lacks go first.
    loose += [f for cell, lines in by_cell.items() if cell is not None and cell not in known
              for line in sorted(lines) for f in lines[line]]
    if loose:
        out.append('<div class="nb-loose">' + "".join(
            _finding_html(f, f.line, rules_url, True, finding_url) for f in loose) + "</div>")
    for cell in cells:
        out.append(_cell_html(cell, by_cell.get(cell.index, {}), rules_url, finding_url, collapse, seen))
    return mark_safe("\n".join(out))


def _cell_html(cell: Cell, by_line: dict[int, list], rules_url: str, finding_url: str, collapse, seen) -> str:
    count = sum(len(v) for v in by_line.values())
    label = {"code": "code", "markdown": "markdown", "raw": "raw"}.get(cell.kind, escape(cell.kind) or "cell")
    head = (f'<div class="nb-head"><span class="nb-index">[{cell.index}]</span> {label}'
            f'{f" · {count} finding" + ("s" if count != 1 else "") if count else ""}</div>')
    if cell.source is None:
        body = '<p class="muted small">This cell\'s source is not text (nbformat wants a string or a list of strings).</p>'
        body += "".join(_finding_html(f, f.line, rules_url, True, finding_url) for v in by_line.values() for f in v)
    elif cell.kind == "code":
        # A cell's last line usually ends with a newline; it starts no line of its own.
        source = cell.source[:-1] if cell.source.endswith("\n") else cell.source
        lines = highlighted_lines(source) if source else [""]
        body = "\n".join(render_lines(lines, by_line, rules_url=rules_url, finding_url=finding_url,
                                      collapse=collapse, anchor=f"c{cell.index}L", seen=seen))
    else:
        text = f'<pre class="nb-text">{escape(cell.source)}</pre>'
        n = cell.source.count("\n") + 1
        body = (f"<details><summary>{n} lines of {label}</summary>{text}</details>"
                if n > LONG_TEXT_CELL else text)
    return (f'<section class="nb-cell nb-{escape(cell.kind) or "unknown"}" id="cell-{cell.index}" '
            f'data-cell="{cell.index}">{head}{body}</section>')
