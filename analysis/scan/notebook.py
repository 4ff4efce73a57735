"""Jupyter notebooks: analyse the code cells as one program and report cell + line."""
from __future__ import annotations

import hashlib
import json

from analysis.findings import FileReport
from analysis.scan.index import ProjectIndex
from analysis.scan.source import analyze_text, parse_error_finding, parse_error_report


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


def analyze_notebook(data: bytes, path: str, *, target: str, ms_version: str, index: ProjectIndex | None) -> FileReport:
    try:
        cells = code_cells(json.loads(data.decode("utf-8")))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return parse_error_report(path, data, f"not a readable notebook: {exc}")
    unreadable = [i for i, text in cells if text is None]
    code = [(i, _python_lines(text)) for i, text in cells if text is not None]
    report = FileReport(path=path, sha256=hashlib.sha256(data).hexdigest(), lines=sum(s.count("\n") + 1 for _, s in code))
    # Cells that do not parse on their own are reported and left out of the program.
    usable, errors = [], []
    for index_, text in code:
        _, error, (line, col) = analyze_text(text + "\n", path, target=target, ms_version=ms_version, index=None) \
            if text.strip() else ([], "", (0, 0))
        if error:
            errors.append(parse_error_finding(path, error, cell=index_, line=line, column=col))
        else:
            usable.append((index_, text))
    starts, program, offset = [], [], 0
    for index_, text in usable:
        starts.append((offset + 1, index_))
        program.append(text)
        offset += text.count("\n") + 1
    findings, error, _ = analyze_text("\n".join(program) + "\n", path, target=target, ms_version=ms_version, index=index)
    for finding in findings:
        for first_line, cell_index in reversed(starts):
            if finding.line >= first_line:
                finding.cell = cell_index
                finding.line -= first_line - 1
                finding.end_line -= first_line - 1
                break
    errors += [parse_error_finding(path, "the cell's source is not text (nbformat wants a string or a list of strings)",
                                   cell=i) for i in unreadable]
    report.findings = sorted(errors, key=lambda f: f.cell or 0) + findings
    if errors:
        report.parse_error = f"{len(errors)} cell(s) could not be parsed"
    return report
