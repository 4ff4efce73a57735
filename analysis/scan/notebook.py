"""Jupyter notebooks: analyse the code cells as one program and report cell + line."""
from __future__ import annotations

import hashlib
import json

from analysis.findings import FileReport
from analysis.scan.index import ProjectIndex
from analysis.scan.source import analyze_text, parse_error_finding, parse_error_report


def _cell_source(cell: dict) -> str:
    src = cell.get("source", "")
    text = "".join(src) if isinstance(src, list) else str(src)
    # IPython magics and shell escapes are not Python: keep the line count, drop the text.
    lines = ["pass" if line.lstrip().startswith(("%", "!", "?")) else line for line in text.split("\n")]
    return "\n".join(lines)


def analyze_notebook(data: bytes, path: str, *, target: str, ms_version: str, index: ProjectIndex | None) -> FileReport:
    try:
        doc = json.loads(data.decode("utf-8"))
        cells = doc["cells"] if isinstance(doc, dict) else None
        if not isinstance(cells, list):
            raise ValueError("no 'cells' list")
    except (UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        return parse_error_report(path, data, f"not a readable notebook: {exc}")
    code = [(i, _cell_source(c)) for i, c in enumerate(cells) if isinstance(c, dict) and c.get("cell_type") == "code"]
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
    report.findings = errors + findings
    if errors:
        report.parse_error = f"{len(errors)} cell(s) could not be parsed"
    return report
