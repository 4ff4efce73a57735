"""One small file per pattern (tests/analysis/patterns/): each line ending in
`# N expect: FINDINGS | CONVERSION` (N makes each comment unique) pins what the analyzer reports on that line and what the
converter writes for it, so the two sides cannot disagree.

FINDINGS: `none` (no finding on the line) or comma-separated rule ids, each optionally
`RULE=torch_api` or `RULE@status`; they must be exactly the line's findings.
CONVERSION: `same` (the line comes back unchanged, no marker above it), `marked` (a MIGRATE
marker above it) or `has TEXT` (the converted line contains TEXT, no marker above it).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from analysis.convert import convert_source
from analysis.scan import analyze_source

PATTERNS = Path(__file__).parent / "patterns"
FILES = sorted(PATTERNS.glob("*.py"))
MS_VERSION = "2.10"  # the release installed, verified against, and the dashboard's default


def expectations(source: str):
    for number, line in enumerate(source.splitlines(), 1):
        if " expect:" in line and "#" in line:
            code, _, comment = line.partition("#")
            spec = comment.partition("expect:")[2]
            found, _, converted = (part.strip() for part in spec.partition("|"))
            yield number, line, code.rstrip(), found, converted


def _matches(finding, wanted: str) -> bool:
    rule, _, status = wanted.partition("@")
    rule, _, api = rule.partition("=")
    return finding.rule_id == rule and (not api or finding.torch_api == api) \
        and (not status or finding.status.value == status)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_pattern_file(path: Path):
    source = path.read_text()
    report = analyze_source(source, path.name, ms_version=MS_VERSION)
    converted = convert_source(source, path=path.name, ms_version=MS_VERSION).text.splitlines()
    cases = list(expectations(source))
    assert cases, "a pattern file pins at least one line"
    problems = []
    for number, line, code, found, conversion in cases:
        here = [f for f in report.findings if f.line == number]
        wanted = [] if found == "none" else [w.strip() for w in found.split(",")]
        unmatched = list(here)
        for w in wanted:
            hit = next((f for f in unmatched if _matches(f, w)), None)
            if hit is None:
                problems.append(f"line {number}: no {w} among {[(f.rule_id, f.torch_api, f.status.value) for f in here]}")
            else:
                unmatched.remove(hit)
        for f in unmatched:
            problems.append(f"line {number}: unexpected {f.rule_id} {f.torch_api} [{f.status.value}] {f.message}")
        comment = line[len(code):].strip()
        at = [i for i, text in enumerate(converted) if text.rstrip().endswith(comment)]
        if len(at) != 1:
            problems.append(f"line {number}: its comment is found {len(at)} times in the converted file")
            continue
        out = converted[at[0]]
        marked = at[0] > 0 and "MIGRATE(" in converted[at[0] - 1]
        if conversion == "same" and (out != line or marked):
            problems.append(f"line {number}: converted to {out!r}{' with a marker' if marked else ''}")
        elif conversion == "marked" and not marked:
            problems.append(f"line {number}: no marker above {out!r}")
        elif conversion.startswith("has ") and (conversion[4:] not in out or marked):
            problems.append(f"line {number}: {out!r}{' marked' if marked else ''} lacks {conversion[4:]!r}")
    assert not problems, "\n".join(problems)
