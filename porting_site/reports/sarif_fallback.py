"""A minimal SARIF 2.1.0 writer, used only when analysis.report.sarif is absent."""
from __future__ import annotations

from analysis.findings import FileReport

_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def to_sarif_minimal(reports: list[FileReport], root_uri: str | None = None) -> dict:
    rules: dict[str, dict] = {}
    results = []
    for report in reports:
        for f in report.findings:
            rules.setdefault(f.rule_id, {"id": f.rule_id, "shortDescription": {"text": f.rule_id}})
            region = {"startLine": max(1, f.line), "startColumn": f.column + 1}
            if f.end_line:
                region.update(endLine=f.end_line, endColumn=f.end_column + 1)
            results.append({
                "ruleId": f.rule_id,
                "level": _LEVEL[f.severity.value],
                "message": {"text": f.message},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": f.path}, "region": region}}],
            })
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "pytorch-to-mindspore", "rules": list(rules.values())}},
            "results": results,
        }],
    }
