"""Jupyter notebooks: their code cells read as Python text (source.analyze_source analyses them as one
program and reports cell + line)."""
from __future__ import annotations


def cell_text(cell: object) -> str | None:
    """A cell's source as one text (nbformat allows a string or a list of strings); None when it is neither."""
    src = cell.get("source", "") if isinstance(cell, dict) else None
    if isinstance(src, str):
        return src
    if isinstance(src, list) and all(isinstance(part, str) for part in src):
        return "".join(src)
    return None


def code_cells(doc: object) -> list[tuple[int, str | None]]:
    """(index among all cells, source or None when unreadable) of each code cell; ValueError when the
    document is not a notebook at all."""
    cells = doc.get("cells") if isinstance(doc, dict) else None
    if not isinstance(cells, list):
        raise ValueError("no 'cells' list")
    return [(i, cell_text(c)) for i, c in enumerate(cells) if isinstance(c, dict) and c.get("cell_type") == "code"]


def _python_lines(text: str) -> str:
    # IPython magics and shell escapes are not Python: keep the line count, drop the text.
    lines = ["pass" if line.lstrip().startswith(("%", "!", "?")) else line for line in text.split("\n")]
    return "\n".join(lines)


def _cell_source(cell: object) -> str:
    """A code cell as Python text ("" when its source is not text); fingerprints read cells through this."""
    return _python_lines(cell_text(cell) or "")
