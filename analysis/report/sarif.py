"""SARIF 2.1.0 for GitHub code scanning.

SARIF columns are 1-based and the end column is exclusive; Finding columns are
0-based (like Python's ast), so both shift by one.

Code scanning should list what a person must do: the dashboard's SARIF leaves
out uses the converter rewrote with nothing left to check (status converted;
the engine's own `analyze` keeps them, its reader has not converted anything),
and findings a person marked (accepted, false positive, fixed by hand) carry a
`suppressions` entry with the reason, so code scanning shows them as dismissed.

Every result carries `partialFingerprints["portingFinding/v1"]`: the finding's
statement fingerprint (rule, API, the statement without positions, its
enclosing definition; analysis/fingerprint.py), so an alert keeps its identity
and its dismissal when lines move. GitHub reserves `primaryLocationLineHash`
(the upload action computes it from the file and warns when a tool's value
differs), so we leave that key to it. A finding without a statement
fingerprint (a file that did not parse) gets a hash of its path, rule, API,
cell and message instead: stable as long as those are.

Notebooks: code scanning knows files and lines, and for an .ipynb the file is
JSON. A notebook result points at the line of the .ipynb that holds the
finding's source line (a cell's source is a list of strings, one per line of
the file; see notebook_lines.py), with no columns (the JSON string's quoting
shifts them), and its message ends with the cell and line as Jupyter shows
them; `properties.cell` / `cellLine` carry both.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable

from analysis.findings import FileReport, Finding, Severity
from analysis.rules import Rule, all_rules

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL_NAME = "porting-dashboard-analyzer"
TOOL_URI = "https://www.mindspore.cn/docs/en/r2.4.10/note/api_mapping/pytorch_api_mapping.html"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _rule_descriptor(rule: Rule) -> dict:
    fix = "The converter fixes this automatically." if rule.autofix else "The converter cannot fix this; change it by hand."
    help_text = f"{rule.explanation}\n\nPyTorch:\n{rule.example[0]}\n\nMindSpore:\n{rule.example[1]}\n\n{fix}"
    return {
        "id": rule.id,
        "name": "".join(part.capitalize() for part in rule.id.split("-")),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.explanation},
        "help": {"text": help_text,
                 "markdown": f"{rule.explanation}\n\n```python\n# PyTorch\n{rule.example[0]}\n# MindSpore\n"
                             f"{rule.example[1]}\n```\n\n{fix} [Guide]({rule.guide_url})"},
        "helpUri": rule.guide_url,
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        "properties": {"tags": ["mindspore-migration"], "autofix": rule.autofix, "versions": rule.versions_text,
                       "status": rule.status.value},
    }


# A person's mark -> how SARIF says it: every mark is a decision made outside the source.
MARK_WORDS = {"accepted": "accepted", "false_positive": "false positive", "fixed": "fixed by hand"}


def suppression_of(state: str, reason: str = "") -> dict:
    """The SARIF suppression for a person's mark (state as stored: accepted / false_positive / fixed)."""
    words = MARK_WORDS.get(state, state)
    return {"kind": "external", "status": "accepted",
            "justification": f"marked {words}" + (f": {reason}" if reason else "")}


FINGERPRINT_KEY = "portingFinding/v1"


def fingerprint_of(f: Finding) -> str:
    """The finding's identity across uploads (see the module docstring)."""
    if f.fingerprint:
        return f.fingerprint
    key = "\0".join((f.path, f.rule_id, f.torch_api, str(f.cell), f.message))
    return "m" + hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _region(f: Finding, locate) -> tuple[dict, str]:
    """The result's region, and a note for its message (notebooks: where in Jupyter)."""
    place = locate(f) if locate and f.cell is not None else None
    if place:
        start, end = place
        return {"startLine": start, "endLine": end}, f" [notebook cell {f.cell}, line {f.line}]"
    line = max(f.line, 1)
    end_line = max(f.end_line, line)
    start_col = f.column + 1
    end_col = f.end_column + 1 if (f.end_line, f.end_column) > (f.line, f.column) else start_col + 1
    note = f" [notebook cell {f.cell}, line {f.line}]" if f.cell is not None else ""
    return {"startLine": line, "startColumn": start_col, "endLine": end_line, "endColumn": end_col}, note


def to_sarif(reports: list[FileReport], *, root_uri: str | None = None, include_converted: bool = True,
             suppression: Callable[[Finding], dict | None] | None = None,
             locate: Callable[[Finding], tuple[int, int] | None] | None = None) -> dict:
    """The reports as one SARIF run.

    include_converted: also report uses the converter rewrote (status converted).
    suppression: the SARIF suppression of a finding (a person's mark), or None.
    locate: a notebook finding's (start, end) line in the .ipynb file
    (notebook_lines.notebook_locator), or None where unknown.
    """
    rules = all_rules()
    index = {rule.id: i for i, rule in enumerate(rules)}
    results = []
    for report in reports:
        for f in report.findings:
            if not include_converted and f.status.value == "converted":
                continue
            region, note = _region(f, locate)
            location = {"uri": f.path}
            if root_uri:
                location["uriBaseId"] = "SRCROOT"
            result = {
                "ruleId": f.rule_id,
                "ruleIndex": index[f.rule_id],
                "level": _LEVEL[f.severity],
                "message": {"text": f.message + note},
                "locations": [{"physicalLocation": {"artifactLocation": location, "region": region}}],
                "partialFingerprints": {FINGERPRINT_KEY: fingerprint_of(f)},
                "properties": {"status": f.status.value, "confidence": f.confidence, "torchApi": f.torch_api,
                               "mindsporeApi": f.mindspore_api, "category": f.category},
            }
            if f.cell is not None:
                result["properties"].update(cell=f.cell, cellLine=f.line)
            suppressed = suppression(f) if suppression else None
            if suppressed:
                result["suppressions"] = [suppressed]
            results.append(result)
    run = {
        "tool": {"driver": {"name": TOOL_NAME, "informationUri": TOOL_URI, "version": "0.1.0",
                            "rules": [_rule_descriptor(r) for r in rules]}},
        "results": results,
    }
    if root_uri:
        run["originalUriBaseIds"] = {"SRCROOT": {"uri": root_uri if root_uri.endswith("/") else root_uri + "/"}}
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
