"""Plain-text report: one line per finding, then counts."""
from __future__ import annotations

from collections import Counter

from analysis.findings import FileReport


def render_text(reports: list[FileReport]) -> str:
    lines: list[str] = []
    severities: Counter = Counter()
    rules: Counter = Counter()
    for report in reports:
        for f in report.findings:
            where = f"{f.path}:{f.line}:{f.column + 1}" if f.cell is None else f"{f.path}[cell {f.cell}]:{f.line}:{f.column + 1}"
            conf = f" (confidence {f.confidence:.2f})" if f.confidence < 1 else ""
            lines.append(f"{where}: {f.severity.value} {f.rule_id} [{f.status.value}] {f.message}{conf}")
            severities[f.severity.value] += 1
            rules[f.rule_id] += 1
    files = len(reports)
    broken = sum(1 for r in reports if r.parse_error)
    lines.append("")
    lines.append(
        f"{files} file(s), {sum(r.lines for r in reports)} line(s), {sum(severities.values())} finding(s): "
        + ", ".join(f"{severities[s]} {s}" for s in ("error", "warning", "info"))
        + (f"; {broken} file(s) could not be parsed" if broken else "")
    )
    for rule_id, count in sorted(rules.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"  {rule_id:<26} {count}")
    return "\n".join(lines) + "\n"
