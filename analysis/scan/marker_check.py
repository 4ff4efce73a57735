"""Does the converted text tell a reader what the report tells? (static; no framework runs)

A use the report leaves for a person (manual, review, unresolved) must carry a `# MIGRATE` marker on its
statement in the converted file: someone reading only the converted code must learn of it too. And the
other way: every marker the converter writes should stand on a statement the report speaks about.
`check_source` converts and analyses one source once (analyze_and_convert) and lists both kinds of gap,
each with a reason (the finding's status and rule, and what kind of note the report gives) so that
counts per reason say which cause to fix first.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from analysis.findings import UseStatus

from .agree import statement_starts

LEFT_FOR_A_PERSON = frozenset({UseStatus.MANUAL, UseStatus.REVIEW, UseStatus.UNRESOLVED})


@dataclass
class Gap:
    """One use the report and the converted text disagree about."""

    kind: str  # "unmarked" (left for a person, no marker) | "unreported" (a marker, no finding on its statement)
    line: int
    api: str
    rule: str
    reason: str
    message: str

    def to_dict(self) -> dict:
        return asdict(self)


def reason_of(finding) -> str:
    """A short class of why the report leaves the use for a person (the key the counts group by)."""
    status = finding.status.value
    message = finding.message
    if status == "unresolved":
        return "unresolved: receiver not typed" if "receiver's type is not known" in message \
            else f"unresolved: {finding.rule_id}"
    if finding.rule_id == "MS-API-BROKEN":
        return f"{status}: running the converted call fails"
    if finding.rule_id == "MS-API-UNMAPPED":
        return f"{status}: no MindSpore counterpart"
    if finding.rule_id == "MS-API-DIFF":
        if "differs for this call" in message or finding.extra.get("differs_here"):
            return f"{status}: a difference named for this call"
        if "running both differs" in message:
            return f"{status}: running both differs"
        return f"{status}: difference ({'not verified' if 'not verified' in message else 'other'})"
    if finding.rule_id == "MS-API-MAPPED":
        if "not verified" in message or "not compared" in message or "no converted call" in message:
            return f"{status}: rewrite not verified by execution"
        return f"{status}: mapped"
    return f"{status}: {finding.rule_id}"


def check_source(source: str, path: str = "example.py", *, target: str = "classic",
                 ms_version: str = "2.10") -> list[Gap]:
    """Every gap between the report and the converted text of one Python source."""
    return check_report(source, path, target=target, ms_version=ms_version)[1]


def check_report(source: str, path: str = "example.py", *, target: str = "classic",
                 ms_version: str = "2.10") -> tuple[list, list[Gap], int]:
    """(the report's findings, the gaps, the converter's markers) of one Python source."""
    from .source import analyze_and_convert

    report, kept = analyze_and_convert(source, path, target=target, ms_version=ms_version)
    if kept is None or kept.result.parse_error:
        return report.findings, [], 0  # nothing converted: nothing for the text to say
    conversion = kept.result
    starts = statement_starts(source)

    def start(line: int) -> int:
        return starts.get(line, line)

    marked = {start(item.line) for item in conversion.unconverted}
    spoken = {start(line) for f in report.findings if f.torch_api or f.rule_id
              for line in range(f.line, max(f.line, f.end_line or f.line) + 1)}
    gaps = []
    for finding in report.findings:
        if finding.status not in LEFT_FOR_A_PERSON:
            continue
        lines = range(finding.line, max(finding.line, finding.end_line or finding.line) + 1)
        if any(start(line) in marked for line in lines):
            continue
        gaps.append(Gap("unmarked", finding.line, finding.torch_api, finding.rule_id, reason_of(finding),
                        finding.message))
    for item in conversion.unconverted:
        if start(item.line) not in spoken:
            gaps.append(Gap("unreported", item.line, item.torch_api, item.rule_id, f"marker: {item.rule_id}",
                            item.action))
    return report.findings, gaps, len(conversion.unconverted)


def markers_in_text(conversion) -> int:
    """How many `# MIGRATE(` comments the converted text holds (each record should have one)."""
    return conversion.text.count("# MIGRATE(")
