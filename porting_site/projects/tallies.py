"""A run's tallies: counts of its findings that never change once they are stored.

A finding's file, rule, API, severity and analyzer status are fixed when the
analysis stage writes it (people's marks live in other columns), so these
counts are computed once at finalize and kept on the run as JSON. Pages that
compare runs read them instead of grouping tens of thousands of rows on every
request. Runs finished before tallies existed get theirs on first use.
"""
from __future__ import annotations

from collections import Counter

from django.db.models import Count

from .models import Finding, Run, SourceFile

VERSION = 2

# grouped is {path: {"<rule> <api> <severity>": n}}: one small object per file, so two runs
# compare file by file (equal files are skipped whole) and the JSON stays compact.
# Rule ids and severities never contain a space, so the key splits back unambiguously.


def _key(rule: str, api: str, severity: str) -> str:
    return f"{rule} {api} {severity}"


def _unkey(key: str) -> tuple[str, str, str]:
    rule, rest = key.split(" ", 1)
    api, severity = rest.rsplit(" ", 1)
    return rule, api, severity


def tallies_compute(*, run_id: int) -> dict:
    """Group the run's findings by (path, rule, API, severity) and sum them up by rule, status, severity."""
    # Grouped by file id (no join), then the files named with one narrow query.
    rows = list(
        Finding.objects.filter(run_id=run_id).order_by()
        .values_list("file_id", "rule_id", "torch_api", "severity", "status")
        .annotate(n=Count("id"))
    )
    paths = dict(SourceFile.objects.filter(run_id=run_id).values_list("id", "path"))
    grouped: dict[str, Counter] = {}
    by_rule: Counter = Counter()
    by_status: Counter = Counter()
    by_severity: Counter = Counter()
    for file_id, rule, api, severity, status, n in rows:
        grouped.setdefault(paths.get(file_id, ""), Counter())[_key(rule, api, severity)] += n
        by_rule[rule] += n
        by_status[status] += n
        by_severity[severity] += n
    return {
        "version": VERSION,
        "found": sum(by_status.values()),
        "grouped": {path: dict(sorted(counts.items())) for path, counts in sorted(grouped.items())},
        "by_rule": dict(sorted(by_rule.items())),
        "by_status": dict(sorted(by_status.items())),
        "by_severity": dict(sorted(by_severity.items())),
    }


def tallies_store(*, run_id: int) -> dict:
    tallies = tallies_compute(run_id=run_id)
    Run.objects.filter(pk=run_id).update(tallies=tallies)
    return tallies


def run_tallies(*, run: Run) -> dict:
    """The run's tallies; a finished run without them (or with an older format) gets them now.

    A run still in progress is counted but not stored: its findings may still change.
    """
    if (run.tallies or {}).get("version") == VERSION:
        return run.tallies
    if run.is_finished:
        run.tallies = tallies_store(run_id=run.pk)
        return run.tallies
    return tallies_compute(run_id=run.pk)


def grouped_counts(tallies: dict) -> dict[tuple, int]:
    """{(path, rule, api, severity): n}, the shape findings_delta compares."""
    return {(path, *_unkey(key)): n for path, counts in tallies.get("grouped", {}).items()
            for key, n in counts.items()}


def tallies_delta(older: dict, newer: dict) -> tuple[list[dict], list[dict]]:
    """New and fixed findings between two runs' tallies, as selectors.findings_delta returns them."""
    from porting_site.gates.paths import path_alignment

    before, after = older.get("grouped", {}), newer.get("grouped", {})
    # The same code with and without a top-level folder (browser zip vs CI upload) is the same file.
    old_key, new_key = path_alignment(before, after)
    before = {old_key(p): c for p, c in before.items()}
    after = {new_key(p): c for p, c in after.items()}
    changed: dict[tuple, int] = {}
    for path in before.keys() | after.keys():
        old, new = before.get(path, {}), after.get(path, {})
        if old == new:
            continue
        for key in old.keys() | new.keys():
            delta = new.get(key, 0) - old.get(key, 0)
            if delta:
                changed[(path, *_unkey(key))] = delta
    new_rows, fixed_rows = [], []
    for (path, rule, api, severity), delta in sorted(changed.items()):
        row = {"path": path, "rule_id": rule, "torch_api": api, "severity": severity, "n": abs(delta)}
        (new_rows if delta > 0 else fixed_rows).append(row)
    return new_rows, fixed_rows
