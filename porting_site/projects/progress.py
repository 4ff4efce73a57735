"""Honest migration accounting: how far along a run, a folder, a file, a project is.

Every PyTorch use has the analyzer's status (converted / review / manual /
unresolved) and maybe a person's mark (accepted / false positive / fixed by
hand). A use is done when it was converted, or a person marked it a false
positive or fixed by hand, or accepted a documented difference (review or
manual). Unresolved uses are never done by the analyzer's say-so: nobody knows
what they are until a person looks.

Counts are aggregated in the database: one grouped query per figure.
"""
from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from .models import Finding, ParityResult, Project, Run

STATUSES = ("converted", "review", "manual", "unresolved")
MARKS = ("accepted", "false_positive", "fixed")
DONE = Q(status="converted") | Q(triage__in=["false_positive", "fixed"]) | (Q(triage="accepted") & ~Q(status="unresolved"))



def is_done(finding) -> bool:
    """DONE for one finding already loaded (the file page sorts its findings without another query);
    tests/site/test_file_page.py checks it agrees with DONE on every status and mark."""
    triage = getattr(finding, "triage", "")
    return (finding.status == "converted" or triage in ("false_positive", "fixed")
            or (triage == "accepted" and finding.status != "unresolved"))


# Filters of the findings list behind each figure (query-string form).
FIGURE_FILTERS = {
    "found": {}, "done": {"done": "yes"}, "left": {"done": "no"},
    **{s: {"status": s} for s in STATUSES}, **{m: {"triage": m} for m in MARKS},
}


# The few figures tables of many rows need (fewer conditional counts per row).
BRIEF = ("found", "done", "unresolved")


TREND = ("found", "done", *STATUSES, *MARKS)


def aggregates(keys: tuple[str, ...] | None = None) -> dict:
    agg = {"found": Count("id"), "done": Count("id", filter=DONE)}
    for status in STATUSES:
        agg[status] = Count("id", filter=Q(status=status))
        agg[f"{status}_left"] = Count("id", filter=Q(status=status) & ~DONE)
    for mark in MARKS:
        agg[mark] = Count("id", filter=Q(triage=mark))
    return agg if keys is None else {k: agg[k] for k in keys}


def empty() -> dict:
    return finish({key: 0 for key in aggregates()})


def finish(row: dict) -> dict:
    row["left"] = row["found"] - row["done"]
    row["percent"] = round(100 * row["done"] / row["found"]) if row["found"] else 100
    if "accepted" in row:
        row["marked"] = sum(row[m] for m in MARKS)
    return row


def of(findings: QuerySet[Finding], **extra) -> dict:
    return finish(findings.order_by().aggregate(**aggregates(), **extra))


def by(findings: QuerySet[Finding], field: str, keys: tuple[str, ...] | None = None) -> dict:
    rows = findings.order_by().values(field).annotate(**aggregates(keys))
    return {row.pop(field): finish(row) for row in rows}


# Parity, one definition for every page, the API, JUnit and the CI client: an entry point
# is checked unless it was skipped; the pass rate is passing / checked; skipped ones are
# named beside it ("0 / 5 pass, 2 skipped"), never counted in the denominator.
PARITY_AGGREGATES = {
    "parity_pass": Count("id", filter=Q(status=ParityResult.Status.PASS)),
    "parity_total": Count("id", filter=~Q(status=ParityResult.Status.SKIPPED)),
    "parity_skipped": Count("id", filter=Q(status=ParityResult.Status.SKIPPED)),
}


def parity_counts(run_ids) -> dict[int, dict]:
    """Per run: parity_pass, parity_total (checked: skipped ones aside) and parity_skipped."""
    rows = ParityResult.objects.filter(run_id__in=list(run_ids)).order_by().values("run_id").annotate(
        **PARITY_AGGREGATES)
    counts = {rid: dict.fromkeys(PARITY_AGGREGATES, 0) for rid in run_ids}
    for row in rows:
        counts[row.pop("run_id")] = row
    return counts


def parity_from_statuses(by_status: dict[str, int]) -> dict:
    """The same three figures from a {status: n} tally already at hand (no query)."""
    skipped = by_status.get(ParityResult.Status.SKIPPED, 0)
    return {"parity_pass": by_status.get(ParityResult.Status.PASS, 0),
            "parity_total": sum(by_status.values()) - skipped, "parity_skipped": skipped}


def run_progress(*, run: Run) -> dict:
    """The run's figures: uses found / done / left (by status, mark and severity) and parity."""
    result = of(Finding.objects.filter(run=run), **left_by_severity())
    result.update(parity_counts([run.pk])[run.pk])
    return result


SEVERITIES = ("error", "warning", "info")


def left_by_severity() -> dict:
    """left_error / left_warning / left_info: what is left for a person, per severity."""
    return {f"left_{sev}": Count("id", filter=~DONE & Q(severity=sev)) for sev in SEVERITIES}


def files_progress(*, file_ids, keys: tuple[str, ...] | None = BRIEF) -> dict[int, dict]:
    return by(Finding.objects.filter(file_id__in=list(file_ids)), "file_id", keys)


def folders_progress(*, run: Run, limit: int = 300, keys: tuple[str, ...] | None = BRIEF) -> list[dict]:
    """Every folder of the run (recursively summed), path order."""
    from .models import SourceFile

    # Grouped by file id (grouping on the joined path is several times slower on big runs).
    per_file = by(Finding.objects.filter(run=run), "file_id", keys)
    paths = SourceFile.objects.filter(run=run).values_list("id", "path") if per_file else ()
    names = tuple(aggregates(keys))
    folders: dict[str, dict] = {}
    for fid, path in paths:
        row = per_file.get(fid)
        if row is None:
            continue
        parts = path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth]) + "/"
            total = folders.get(folder)
            if total is None:
                total = folders[folder] = dict.fromkeys(names, 0)
            for key in names:
                total[key] += row[key]
    return [dict(finish(row), path=path, depth=path.count("/") - 1) for path, row in sorted(folders.items())][:limit]


def project_progress(*, project: Project) -> dict | None:
    """The latest finished run's figures (the project's current state), with that run."""
    run = project.runs.filter(status=Run.Status.DONE).order_by("-number").first()
    if run is None:
        return None
    return dict(run_progress(run=run), run=run)


def runs_counts(run_ids, **extra) -> dict[int, dict]:
    """Per run: the status / mark / done figures (for trends), plus any extra aggregates."""
    rows = Finding.objects.filter(run_id__in=list(run_ids)).order_by().values("run_id").annotate(
        **aggregates(TREND), **extra)
    return {row.pop("run_id"): finish(row) for row in rows}
