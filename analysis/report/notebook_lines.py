"""Where a notebook cell's source lines sit in the .ipynb file itself.

The analyzer places a notebook finding by (cell, line inside the cell). Code
scanning knows only files and their lines: pointed at line 3 of an .ipynb it
shows line 3 of the JSON. So a SARIF result for a notebook points at the line
of the .ipynb that holds that source line (nbformat writes a cell's source as
a list of strings, one per line, each on its own line of the file): code
scanning then shows the real code line, as a JSON string. The position comes
from a small position-tracking reader of the JSON (the json module gives none).
"""
from __future__ import annotations

import bisect
import json
from json.decoder import scanstring

_WS = " \t\n\r"
_DECODER = json.JSONDecoder()


class _Reader:
    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]

    def line_of(self, pos: int) -> int:
        return bisect.bisect_right(self.starts, pos)

    def skip(self, i: int) -> int:
        while i < len(self.text) and self.text[i] in _WS:
            i += 1
        return i

    def value(self, i: int, depth: int = 0):
        """(value, end); strings come as (text, line of their opening quote)."""
        if depth > 200:
            raise ValueError("nested too deep")
        i = self.skip(i)
        c = self.text[i:i + 1]
        if c == '"':
            s, end = scanstring(self.text, i + 1)
            return (s, self.line_of(i)), end
        if c == "{":
            out, i = {}, self.skip(i + 1)
            if self.text[i:i + 1] == "}":
                return out, i + 1
            while True:
                (key, _), i = self.value(i, depth + 1)
                i = self.skip(i)
                if self.text[i:i + 1] != ":":
                    raise ValueError("':' expected")
                out[key], i = self.value(i + 1, depth + 1)
                i = self.skip(i)
                if self.text[i:i + 1] == "}":
                    return out, i + 1
                if self.text[i:i + 1] != ",":
                    raise ValueError("',' expected")
                i += 1
        if c == "[":
            out, i = [], self.skip(i + 1)
            if self.text[i:i + 1] == "]":
                return out, i + 1
            while True:
                item, i = self.value(i, depth + 1)
                out.append(item)
                i = self.skip(i)
                if self.text[i:i + 1] == "]":
                    return out, i + 1
                if self.text[i:i + 1] != ",":
                    raise ValueError("',' expected")
                i += 1
        return _DECODER.raw_decode(self.text, i)


def _source_lines(source) -> list[int]:
    """The file line of each line of one cell's source (1-based list index = cell line)."""
    parts = [source] if isinstance(source, tuple) else source if isinstance(source, list) else []
    lines: list[int] = []
    at_line_start = True
    for part in parts:
        if not (isinstance(part, tuple) and isinstance(part[0], str)):
            return []
        text, file_line = part
        for k, ch in enumerate(text):
            if at_line_start:
                lines.append(file_line)
                at_line_start = False
            if ch == "\n":
                at_line_start = True
    return lines


def cell_line_map(text: str) -> dict[int, list[int]]:
    """{cell index among all cells: [file line of the cell's line 1, line 2, ...]}; {} if unreadable."""
    try:
        doc, _ = _Reader(text).value(0)
    except (ValueError, IndexError, RecursionError):
        return {}
    cells = doc.get("cells") if isinstance(doc, dict) else None
    if not isinstance(cells, list):
        return {}
    return {i: _source_lines(cell.get("source")) for i, cell in enumerate(cells) if isinstance(cell, dict)}


def notebook_locator(read):
    """locate(finding) -> (start line, end line) in the .ipynb, or None; read(path) gives a file's text or None."""
    maps: dict[str, dict[int, list[int]]] = {}

    def locate(finding):
        if finding.cell is None or not finding.path.endswith(".ipynb"):
            return None
        if finding.path not in maps:
            text = read(finding.path)
            maps[finding.path] = cell_line_map(text) if text else {}
        lines = maps[finding.path].get(finding.cell) or []
        if not lines:
            return None
        start = lines[min(max(finding.line, 1), len(lines)) - 1]
        end = lines[min(max(finding.end_line or finding.line, finding.line), len(lines)) - 1]
        return start, max(start, end)

    return locate
