"""JSON report: the FileReports plus counts by severity, status and rule."""
from __future__ import annotations

from collections import Counter

from analysis.findings import FileReport


def summary(reports: list[FileReport]) -> dict:
    severity, status, rules = Counter(), Counter(), Counter()
    for report in reports:
        for f in report.findings:
            severity[f.severity.value] += 1
            status[f.status.value] += 1
            rules[f.rule_id] += 1
    return {
        "files": len(reports),
        "lines": sum(r.lines for r in reports),
        "findings": sum(severity.values()),
        "parse_errors": sum(1 for r in reports if r.parse_error),
        "by_severity": dict(severity),
        "by_status": dict(status),
        "by_rule": dict(sorted(rules.items())),
    }


def to_json(reports: list[FileReport]) -> dict:
    return {"summary": summary(reports), "files": [r.to_dict() for r in reports]}
