"""Build a run's reports from its rows.

SARIF goes through the engine's writer (analysis.report.sarif) so the CLI and
the dashboard emit the same document; JUnit turns each parity check and each
file with error findings into a test case, so any CI shows them natively.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict

from analysis.findings import FileReport, Finding as EngineFinding
from analysis.parity.statuses import status_label, status_meaning
from porting_site.projects.models import Finding, ParityResult, Run, SourceFile

_FINDING_FIELDS = ("line", "column", "rule_id", "severity", "message", "torch_api", "mindspore_api", "end_line",
                   "end_column", "category", "confidence", "status", "cell", "extra", "fingerprint")


def run_file_reports(*, run: Run, only_with_findings: bool = False, marks: dict | None = None) -> list[FileReport]:
    """The run's findings as the engine's reports; marks (if given) gets {id(engine finding): (state, reason)}."""
    by_file: dict[int, list[EngineFinding]] = defaultdict(list)
    rows = Finding.objects.filter(run=run).select_related("file", "mark").order_by("file__path", "line", "column")
    for row in rows:
        data = {name: getattr(row, name) for name in _FINDING_FIELDS}
        data["path"] = row.file.path
        finding = EngineFinding.from_dict(data)
        by_file[row.file_id].append(finding)
        if marks is not None and row.triage:
            marks[id(finding)] = (row.triage, row.mark.reason if row.mark else "")
    reports = []
    for source in SourceFile.objects.filter(run=run).order_by("path"):
        findings = by_file.get(source.pk, [])
        if only_with_findings and not findings and not source.parse_error:
            continue
        reports.append(FileReport(path=source.path, sha256=source.sha256, lines=source.lines,
                                  findings=findings, parse_error=source.parse_error))
    return reports


def run_sarif(*, run: Run, include_converted: bool = False) -> dict:
    """SARIF of what a person must do: converted uses left out (unless asked), marks as suppressions."""
    from analysis.report.notebook_lines import notebook_locator
    from analysis.report.sarif import suppression_of, to_sarif
    from analysis.rules import all_rules
    from porting_site.projects import storage

    marks: dict[int, tuple[str, str]] = {}
    reports = run_file_reports(run=run, only_with_findings=True, marks=marks)
    # A run stored under an older knowledge base may name a rule since retired; SARIF
    # results must point at a rule of the catalogue, so those findings stay out of it.
    known = {rule.id for rule in all_rules()}
    for report in reports:
        report.findings = [f for f in report.findings if f.rule_id in known]

    def suppression(finding):
        mark = marks.get(id(finding))
        return suppression_of(*mark) if mark else None

    def read(rel: str) -> str | None:
        try:
            return (storage.source_dir(run.pk) / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    return to_sarif(reports, include_converted=include_converted, suppression=suppression,
                    locate=notebook_locator(read))


def _parity_label(result: ParityResult) -> str:
    return f"{result.module}.{result.name}" if result.module else result.name


def run_junit_xml(*, run: Run, gate=None) -> bytes:
    root = ET.Element("testsuites", name=f"{run.project.name} run #{run.number}")

    parity = ET.SubElement(root, "testsuite", name="parity")
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for result in ParityResult.objects.filter(run=run):
        counts["tests"] += 1
        case = ET.SubElement(parity, "testcase", classname="parity", name=_parity_label(result))
        metrics = ", ".join(f"{k}={v}" for k, v in sorted(result.metrics.items()) if not isinstance(v, (dict, list)))
        detail = "\n".join(x for x in (result.reason, f"first diverging layer: {result.first_diverging_layer}"
                                       if result.first_diverging_layer else "", metrics) if x)
        if result.status == ParityResult.Status.FAIL:
            counts["failures"] += 1
            ET.SubElement(case, "failure", message=result.reason or "outputs differ", type="parity").text = detail
        elif result.status == ParityResult.Status.ERROR:
            counts["errors"] += 1
            ET.SubElement(case, "error", message=result.reason or "the check crashed", type="parity").text = detail
        elif result.status == ParityResult.Status.TORCH_FAIL:
            # Not the conversion's fault, but no evidence for it either: an error, never a pass or a skip.
            counts["errors"] += 1
            ET.SubElement(case, "error", message=f"{status_label(result.status)}: {status_meaning(result.status)}",
                          type="parity-original-fails").text = detail
        elif result.status == ParityResult.Status.SKIPPED:
            counts["skipped"] += 1
            ET.SubElement(case, "skipped", message=result.reason or "skipped")
        elif metrics:
            ET.SubElement(case, "system-out").text = metrics
    parity.attrib.update({k: str(v) for k, v in counts.items()})

    # One test case per file with error findings left for a person (progress.DONE: converted or
    # marked uses are done), so the JUnit failures are the run page's "left" errors.
    from porting_site.projects import progress

    analysis = ET.SubElement(root, "testsuite", name="analysis")
    errors = defaultdict(list)
    left = Finding.objects.filter(run=run, severity="error").exclude(progress.DONE).select_related("file")
    for row in left.order_by("file__path", "line", "column"):
        errors[row.file.path].append(row)
    for path, rows in errors.items():
        case = ET.SubElement(analysis, "testcase", classname="analysis", name=path, file=path)
        lines = [f"{path}:{f.line}:{f.column + 1}: {f.rule_id}: {f.message}" for f in rows]
        ET.SubElement(case, "failure", message=f"{len(lines)} error finding(s) left for a person",
                      type="analysis").text = "\n".join(lines)
    analysis.attrib.update(tests=str(len(errors)), failures=str(len(errors)), errors="0", skipped="0")

    if gate is not None and gate.status != "pending":
        from porting_site.gates.services import gate_scope

        suite = ET.SubElement(root, "testsuite", name="quality-gate", tests="1",
                              failures="0" if gate.status == "passed" else "1", errors="0", skipped="0")
        case = ET.SubElement(suite, "testcase", classname="gate", name="quality gate")
        checks = "\n".join(f"[{'ok' if c['passed'] else 'FAIL'}] {c['message']}" for c in gate.checks)
        if gate.status != "passed":
            ET.SubElement(case, "failure", message="the quality gate failed", type="gate").text = "\n".join(gate.reasons)
        ET.SubElement(case, "system-out").text = f"{gate_scope(gate.policy)}\n{checks}"
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


def _uses(run: Run) -> dict:
    """Honest accounting: each status, each mark, done and left (see projects.progress)."""
    from porting_site.projects import progress

    return progress.of(Finding.objects.filter(run=run))


def _marks(run: Run) -> list[dict]:
    """People's marks on the run's findings (state, reason, assignee), by fingerprint."""
    rows = Finding.objects.filter(run=run, mark__isnull=False).select_related("file", "mark__assignee").order_by(
        "file__path", "line", "column")
    return [{"path": f.file.path, "line": f.line, "rule_id": f.rule_id, "torch_api": f.torch_api,
             "fingerprint": f.fingerprint, "state": f.triage, "reason": f.mark.reason,
             "assignee": f.mark.assignee.username if f.mark.assignee else None} for f in rows]


def run_report_json(*, run: Run, gate=None) -> dict:
    from porting_site.projects.selectors import run_progress

    parity = []
    for result in ParityResult.objects.filter(run=run).select_related("loss_curve"):
        curve = getattr(result, "loss_curve", None)
        parity.append({
            "name": result.name, "module": result.module, "status": result.status, "reason": result.reason,
            "device": result.device, "first_diverging_layer": result.first_diverging_layer,
            "metrics": result.metrics, "config_mismatches": result.config_mismatches,
            "loss_curve": {"torch": curve.torch_losses, "mindspore": curve.mindspore_losses} if curve else None,
        })
    reports = run_file_reports(run=run)
    severity = {"error": 0, "warning": 0, "info": 0}
    for report in reports:
        for finding in report.findings:
            severity[finding.severity.value] += 1
    return {
        "run": {
            "id": run.pk, "project": run.project.name, "number": run.number, "status": run.status,
            "error": run.error, "target": run.target, "ms_version": run.ms_version, "device": run.device,
            "kb_version": run.kb_version,
            "created_at": run.created_at.isoformat(),
            "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        },
        "progress": run_progress(run=run)["stages"],
        "summary": {"files": len(reports), "findings": severity,
                    "uses": _uses(run),
                    "parity": {s: sum(1 for p in parity if p["status"] == s) for s in ParityResult.Status.values}},
        "marks": _marks(run),
        "gate": None if gate is None else {"status": gate.status, "reasons": gate.reasons, "checks": gate.checks},
        "files": [r.to_dict() for r in reports],
        "parity": parity,
    }
