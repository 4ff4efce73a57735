"""One truth per use: a finding says what the converter did to that exact use.

The analyzer's rules speak from the mapping tables and the execution verdicts; the converter
knows what it wrote. For each finding on a line where the converter recorded a rewrite or a
marker for the same API, the record decides: marked -> the marker's text, manual; rewritten
(and no measured difference) -> converted, info, saying what was written. An API the
tables call unmapped or different but that works as left or written in MindSpore 2.10
(knowledge/data/unchanged_ok.json, checked by running both) gets no API finding.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

from analysis.findings import Finding, Severity, UseStatus

API_RULES = frozenset({"MS-API-MAPPED", "MS-API-DIFF", "MS-API-UNMAPPED", "MS-API-BROKEN"})
# rules about the whole file, anchored on one use (the train mode, on a backward() call)
FILE_LEVEL = frozenset({"MS-CELL-TRAIN-MODE"})
MEASURED_BAD = frozenset({"differs", "fails", "no_cpu_kernel"})  # a run showed it: the record cannot clear it
_DATA = Path(__file__).resolve().parent.parent / "knowledge" / "data" / "unchanged_ok.json"


@lru_cache(maxsize=1)
def unchanged_ok() -> dict[str, str]:
    return json.loads(_DATA.read_text(encoding="utf-8"))["apis"]


def _records(conversion) -> tuple[dict, dict, set]:
    marks, changes, marked_lines = {}, {}, set()
    for item in conversion.unconverted:
        marks.setdefault((item.line, item.torch_api), item)
        marked_lines.add(item.line)
    for item in conversion.changes:
        changes.setdefault((item.line, item.torch_api), item)
        changes.setdefault((item.line, item.rule_id), item)  # a rule's finding may name a part of what was rewritten
        changes.setdefault((item.line, ""), item)
    return marks, changes, marked_lines


def _lookup(table: dict, finding: Finding, keys: tuple[str, ...] = ()):
    for key in (finding.torch_api, *keys):
        for line in range(finding.line, max(finding.line, finding.end_line) + 1):
            hit = table.get((line, key))
            if hit is not None:
                return hit
    return None


def statement_starts(text: str) -> dict[int, int]:
    """line -> first line of the statement (or compound statement's header) it belongs to."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    starts: dict[int, int] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        body = getattr(node, "body", None)
        last = body[0].lineno - 1 if isinstance(body, list) and body and isinstance(body[0], ast.stmt) \
            else (node.end_lineno or node.lineno)
        for line in range(node.lineno, max(node.lineno, last) + 1):
            starts[line] = node.lineno
    return starts


def agree(findings: list[Finding], conversion, starts: dict[int, int] | None = None) -> list[Finding]:
    """The findings, each made to agree with the conversion of the same file. `starts` (statement_starts)
    lets an unmapped API inside a statement the converter marked go with that statement's marker."""
    if conversion is None or conversion.parse_error:
        return findings
    marks, changes, marked_lines = _records(conversion)
    by_rule = {}
    for item in conversion.changes:
        by_rule.setdefault(item.rule_id, item)
    # uses a dedicated rule (Dropout's p, the seed's streams) speaks about: that finding carries the concern
    dedicated = {(f.line, f.torch_api) for f in findings if f.torch_api and f.rule_id not in API_RULES}
    lines_of: dict[str, set[int]] = {}
    for f in findings:
        lines_of.setdefault(f.rule_id, set()).add(f.line)
    out = []
    for finding in findings:
        if not finding.torch_api:
            out.append(finding)
            continue
        mark = _lookup(marks, finding)
        if mark is not None and finding.rule_id not in API_RULES and mark.rule_id != finding.rule_id:
            if finding.rule_id in FILE_LEVEL and (finding.rule_id in by_rule or lines_of[finding.rule_id] - {finding.line}):
                continue  # the file's concern stands at its training step (said there); this call is no step
            if finding.status == UseStatus.CONVERTED and _lookup(changes, finding) is None:
                # the call was left as it was (its marker is another rule's): nothing of it is converted
                finding.status, finding.severity = UseStatus.MANUAL, Severity.WARNING
                finding.message += f" (the call is left as it was, marked: {mark.action})"
                out.append(finding)
                continue
            mark = None  # the marker is about another concern of the use (backward's, not the train mode's)
        # a rule whose use the converter fixes by design (status converted) is matched by any rewrite of its line:
        # torch.cuda.is_available() goes with the torch.device(...) around it
        wider = (finding.rule_id, "") if finding.rule_id not in API_RULES and finding.status == UseStatus.CONVERTED \
            else (finding.rule_id,) if finding.rule_id not in API_RULES else ()
        change = None if mark is not None else _lookup(changes, finding, wider)
        if change is None and mark is None and finding.rule_id not in API_RULES:
            # a loop or a file-wide switch is rewritten where it starts (the step's first statement, the
            # set_train before the loop): the rule's rewrite anywhere in the file, this line unmarked
            change = by_rule.get(finding.rule_id)
        measured = (finding.extra.get("verified") or {}).get("status")
        if mark is not None:
            # a marker on a call the converter did rewrite is a caution (context.caution): review, not manual
            cautioned = _lookup(changes, finding) is not None
            finding.status = UseStatus.REVIEW if cautioned else UseStatus.MANUAL
            if finding.rule_id in API_RULES:
                finding.rule_id = mark.rule_id  # the marker's rule: the finding and the comment name the same thing
            if finding.severity == Severity.INFO or cautioned and finding.severity == Severity.ERROR:
                finding.severity = Severity.WARNING
            finding.message = f"{finding.torch_api} is {'converted with a' if cautioned else 'left marked by the converter with a'} " \
                              f"MIGRATE note: {mark.action}"
            finding.extra["converter"] = {"marked": mark.action}
        elif change is not None:
            finding.extra["converter"] = {"wrote": change.mindspore_api, "note": change.description}
            if finding.rule_id in API_RULES and measured not in MEASURED_BAD:
                carried = (finding.line, finding.torch_api) in dedicated and not finding.extra.get("differs_here")
                _rewritten(finding, change, measured, dedicated=carried)
            elif finding.status == UseStatus.CONVERTED:
                finding.severity = Severity.INFO
            elif finding.rule_id not in API_RULES and _rule_status(finding.rule_id) == UseStatus.CONVERTED:
                finding.status, finding.severity = UseStatus.CONVERTED, Severity.INFO  # the rule's fix, applied
            elif finding.rule_id not in API_RULES:
                # rewritten without a marker: it runs, and what the rule warns of is what to check in the rewrite
                finding.status = UseStatus.REVIEW
                if finding.severity == Severity.ERROR:
                    finding.severity = Severity.WARNING
                finding.message += f" (the converter wrote: {change.description})"
        elif finding.rule_id in API_RULES and finding.torch_api in unchanged_ok() and measured not in MEASURED_BAD \
                and finding.line not in marked_lines:
            continue  # works as written in MindSpore 2.10: nothing to report
        elif finding.rule_id == "MS-API-UNMAPPED" and starts and starts.get(finding.line, finding.line) != finding.line \
                and starts[finding.line] in marked_lines:
            continue  # an argument of a statement left as it was and marked: that marker is the finding
        out.append(finding)
    # a dedicated rule wins over the generic difference of the same use
    # (only a difference left on a rewrite nothing measured wrong: a run's measured difference stays)
    out += _unreported(out, conversion, findings[0].path if findings else conversion.path)
    for finding in out:
        if finding.status == UseStatus.CONVERTED:
            finding.severity = Severity.INFO  # converted is never an error (issue 27)
    out = [f for f in out if not (f.rule_id == "MS-API-DIFF" and (f.line, f.torch_api) in dedicated
                                  and "wrote" in f.extra.get("converter", {})
                                  and (f.extra.get("verified") or {}).get("status") not in MEASURED_BAD)]
    return _once(out)


def _unreported(findings: list[Finding], conversion, path: str) -> list[Finding]:
    """What the converter did on a line the analyzer said nothing about: every MIGRATE marker is a finding
    (a person must act on it), and a rewrite of a call the analyzer could not type (`image.size()` ->
    `image.shape` on an untyped name) is reported as one, to check that the receiver is a tensor."""
    said = {f.line for f in findings}
    added, seen = [], set()
    for item in conversion.unconverted:
        if item.line in said or (item.line, item.rule_id) in seen or _rule_status(item.rule_id) is None:
            continue
        seen.add((item.line, item.rule_id))
        added.append(Finding(path=path, line=item.line, column=0, rule_id=item.rule_id, severity=Severity.WARNING,
                             message=f"{item.torch_api} is left marked by the converter with a MIGRATE note: {item.action}",
                             torch_api=item.torch_api, status=UseStatus.MANUAL, confidence=0.5,
                             extra={"converter": {"marked": item.action}}))
    for item in conversion.changes:
        if item.line in said or (item.line, "") in seen or not item.torch_api.startswith("torch.Tensor.") \
                or item.rule_id not in API_RULES:  # a training step's rewrite is recorded where it starts
            continue
        seen.add((item.line, ""))
        added.append(Finding(path=path, line=item.line, column=0, rule_id="MS-API-MAPPED", severity=Severity.INFO,
                             message=f"converted: {item.description} (the receiver's type is not known here: check "
                                     "it is a tensor)", torch_api=item.torch_api, mindspore_api=item.mindspore_api,
                             status=UseStatus.UNRESOLVED, confidence=0.3,
                             extra={"converter": {"wrote": item.mindspore_api, "note": item.description}}))
    return added


def _rule_status(rule_id: str) -> UseStatus | None:
    from analysis.rules import get_rule

    try:
        return get_rule(rule_id).status
    except KeyError:
        return None


def _once(findings: list[Finding]) -> list[Finding]:
    """One finding per use and concern: a mapping finding that became the marker's finding is dropped
    where the dedicated rule's finding already says the same."""
    seen, out = set(), []
    for finding in findings:
        key = (finding.line, finding.column, finding.rule_id, finding.torch_api, finding.message)
        # torch.save(model.state_dict(), ...) is one checkpoint to port, not two
        concern = (finding.line, finding.rule_id) if finding.rule_id not in API_RULES and finding.torch_api else key
        if key not in seen and concern not in seen:
            seen.update((key, concern))
            out.append(finding)
    return out


_REVIEW_TAG = re.compile(r" \[([^\]]+): review\]$")  # apis.py: the tables' category, no note of its own


def _rewritten(finding: Finding, change, measured: str | None, *, dedicated: bool) -> None:
    """An API finding on a use the converter rewrote: converted when a run checked calls like it (or a
    dedicated rule's finding carries the use's concern); to review when no run did and the analyzer
    saw a difference this call uses, or the tables note one of its kind."""
    tag = _REVIEW_TAG.search(change.description)
    said = change.description[:tag.start()] if tag else change.description
    if not said.startswith(finding.torch_api):
        said = f"{finding.torch_api}: {said}"
    finding.mindspore_api = change.mindspore_api or finding.mindspore_api
    checked = dedicated or measured == "verified" or finding.torch_api in unchanged_ok()
    if not checked and (measured is not None or finding.rule_id == "MS-API-DIFF"):  # no run reached calls like it
        verified = finding.extra.get("verified") or {}
        reasons = list(finding.extra.get("differs_here", ()))
        note = verified.get("note", "") if verified.get("status") != "marked" else ""  # a marked form is not this one
        if not finding.extra.get("differs_here"):
            # nothing known to differ, only unchecked: an honest note, not a difference
            finding.rule_id, finding.severity, finding.status = "MS-API-MAPPED", Severity.INFO, UseStatus.REVIEW
            finding.message = f"converted: {said}; {note or 'not verified by execution'}"
            return
        reasons.append(note or "not verified by execution")
        finding.rule_id, finding.severity, finding.status = "MS-API-DIFF", Severity.WARNING, UseStatus.REVIEW
        finding.message = f"converted, to review: {said}; " + "; ".join(reasons)
        return
    if tag is not None and not checked:
        # the tables file the API under a kind of difference but name none for this call
        finding.rule_id, finding.severity, finding.status = "MS-API-MAPPED", Severity.INFO, UseStatus.REVIEW
        finding.message = f"converted: {said}; not compared with PyTorch by a run (the mapping tables file it " \
                          f"under '{tag.group(1)}')"
        return
    finding.rule_id, finding.severity, finding.status = "MS-API-MAPPED", Severity.INFO, UseStatus.CONVERTED
    finding.message = f"converted: {said}"
