"""Which findings of a run are new compared with its baseline run.

A finding is matched by its file path (a top-level folder only one upload has
is ignored, see paths.py) and its statement fingerprint (rule, API,
the statement's syntax without positions, its enclosing definition; see
analysis.fingerprint), so inserted lines above it and reformatting do not make
it new. Runs stored before fingerprints existed fall back to the file path,
rule, PyTorch API and the stripped text of the source line. Equal keys are matched by count: a key seen twice in the baseline
and three times now has one new finding (the last one by position).
"""
from __future__ import annotations

from collections import defaultdict

from analysis.fingerprint import fingerprint_base
from porting_site.projects import storage
from porting_site.projects.models import Finding, Run, SourceFile

from .paths import path_alignment


def _line_reader(run_id: int):
    cache: dict[str, list[str]] = {}

    def line(path: str, number: int) -> str:
        if path not in cache:
            try:
                cache[path] = (storage.source_dir(run_id) / path).read_text(errors="replace").splitlines()
            except OSError:  # the run's tree was cleaned up: fall back to the other parts of the key
                cache[path] = []
        lines = cache[path]
        return " ".join(lines[number - 1].split()) if 0 < number <= len(lines) else ""

    return line


def _fingerprinted(run: Run) -> bool:
    return not Finding.objects.filter(run=run, fingerprint="").exists()


def _keys(run: Run, severities: list[str] | None, by_fingerprint: bool = False,
          key_path=lambda path: path) -> dict[tuple, list[int]]:
    findings = Finding.objects.filter(run=run)
    if severities:
        findings = findings.filter(severity__in=severities)
    if by_fingerprint:
        keys: dict[tuple, list[int]] = defaultdict(list)
        for pk, path, fingerprint in findings.order_by("file__path", "line", "column", "id").values_list(
                "id", "file__path", "fingerprint"):
            keys[(key_path(path), fingerprint_base(fingerprint))].append(pk)
        return keys
    line = _line_reader(run.pk)
    keys: dict[tuple, list[int]] = defaultdict(list)
    rows = findings.order_by("file__path", "line", "column", "id").values_list(
        "id", "file__path", "line", "cell", "rule_id", "torch_api"
    )
    for pk, path, number, cell, rule_id, torch_api in rows:
        # Notebook findings carry cell-relative lines; the cell index stands in for the text.
        text = line(path, number) if cell is None else f"cell:{cell}:{number}"
        keys[(key_path(path), rule_id, torch_api, text)].append(pk)
    return keys


def new_finding_ids(*, run: Run, baseline: Run | None, severities: list[str] | None = None) -> set[int]:
    """Ids of the run's findings (optionally of some severities) absent from the baseline."""
    if baseline is None:
        return set(Finding.objects.filter(run=run, **({"severity__in": severities} if severities else {}))
                   .values_list("pk", flat=True))
    by_fingerprint = _fingerprinted(run) and _fingerprinted(baseline)
    # The same code uploaded with and without a top-level folder: match the files anyway.
    old_key, new_key = path_alignment(SourceFile.objects.filter(run=baseline).values_list("path", flat=True),
                                      SourceFile.objects.filter(run=run).values_list("path", flat=True))
    current = _keys(run, severities, by_fingerprint, new_key)
    before = {key: len(ids) for key, ids in _keys(baseline, severities, by_fingerprint, old_key).items()}
    new: set[int] = set()
    for key, ids in current.items():
        new.update(ids[before.get(key, 0):])
    return new
