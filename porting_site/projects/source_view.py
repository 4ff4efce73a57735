"""Source text prepared for the file page: highlighted lines with their findings."""
from __future__ import annotations

import json
from collections import defaultdict

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer


def read_text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def notebook_code(text: str) -> tuple[str, list[int]]:
    """A notebook's code cells as one text, each headed by a marker line.

    Also returns, per code cell, the line offset of its first line in that text,
    so (cell, line) positions from the analyzer can be placed.
    """
    try:
        cells = json.loads(text).get("cells", [])
    except (ValueError, AttributeError):
        return text, []
    parts, offsets, line = [], [], 0
    for index, cell in enumerate(c for c in cells if c.get("cell_type") == "code"):
        source = cell.get("source", "")
        body = "".join(source) if isinstance(source, list) else source
        offsets.append(line + 1)  # the marker line comes first
        parts.append(f"# ---- cell {index} ----\n" + body)
        line += 1 + body.count("\n") + 1
    return "\n".join(parts), offsets


def highlighted_lines(text: str) -> list[str]:
    """One HTML fragment per source line (Pygments output split on newlines)."""
    formatter = HtmlFormatter(nowrap=True)
    html = highlight(text, PythonLexer(stripnl=False, ensurenl=False), formatter)
    lines = html.split("\n")
    expected = text.count("\n") + 1
    return (lines + [""] * expected)[:expected]


def annotate(text: str, findings, cell_offsets: list[int] | None = None) -> list[dict]:
    by_line = defaultdict(list)
    for finding in findings:
        line = finding.line
        if cell_offsets and finding.cell is not None and finding.cell < len(cell_offsets):
            line += cell_offsets[finding.cell]
        by_line[line].append(finding)
    return [
        {"number": number, "html": html, "findings": by_line.get(number, [])}
        for number, html in enumerate(highlighted_lines(text), start=1)
    ]
