"""Does the converted text say what the report says? Counted over code nobody here chose for it.

    python bench/marker_consistency.py [--corpus realworld docstrings coverage call_forms] [--limit N]
                                       [--json OUT] [--list OUT]

Each source is converted and analysed once (analysis.scan.marker_check.check_source, the analyzer's own
conversion), statically: no framework runs. Two kinds of gap are counted, per corpus and per reason:
- **unmarked**: a use the report leaves for a person (manual, review, unresolved) whose statement
  carries no `# MIGRATE` marker in the converted text: a reader of the converted file is not told;
- **unreported**: a marker on a statement the report says nothing about.
Corpora: the .py files of ../shared/realworld (three public repositories), the `>>>` examples in the
installed torch's docstrings (bench/docstring_examples.py's extraction, raw: no stand-ins for random
constructors), api_coverage's probes (one plain call of each documented API, bench/api_coverage.py),
and the out=/in-place call forms of PyTorch's OpInfo samples (bench/call_forms.py, first sample of the
first dtype of each mapped OpInfo). `findings` counts the report's findings on each corpus, `markers` the converter's.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.scan.marker_check import LEFT_FOR_A_PERSON, check_report  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
REALWORLD = ROOT.parent / "shared" / "realworld"
CORPORA = ("realworld", "docstrings", "coverage", "call_forms")


def realworld(limit: int | None):
    base = REALWORLD if REALWORLD.is_dir() else Path("/work/shared/realworld")
    for path in sorted(base.rglob("*.py"))[:limit]:
        yield str(path.relative_to(base)), path.read_text(encoding="utf-8", errors="replace")


def docstrings(limit: int | None):
    from analysis.verify.blocks import HEADER
    from bench.docstring_examples import blocks, default_torch_dir

    for where, block in blocks(default_torch_dir())[:limit]:
        yield where, HEADER + block


def coverage(limit: int | None):
    from bench.api_coverage import probe
    from bench.heldout_sample import candidates

    for api in sorted(candidates())[:limit]:
        yield api, probe(api)


def call_forms(limit: int | None):
    from bench.call_forms import samples

    seen = set()
    for api, form, _dtype, source, _arrays, origin in samples(None, 1, 1):
        if (api, form) in seen:
            continue  # one source per API and form: the first dtype's first sample
        seen.add((api, form))
        yield f"{origin}:{form}", source
        if limit and len(seen) >= limit:
            return


def measure(corpora: list[str], limit: int | None, log=print) -> dict:
    out: dict = {"corpora": {}, "gaps": []}
    for corpus in corpora:
        started, files, uses, left, markers = time.time(), 0, 0, 0, 0
        reasons: Counter = Counter()
        for where, source in globals()[corpus](limit):
            files += 1
            try:
                findings, gaps, marks = check_report(source, where)
            except Exception as exc:  # a crash is a finding of its own, not the end of the measurement
                reasons[f"check failed: {type(exc).__name__}"] += 1
                continue
            uses += len(findings)
            markers += marks
            left += sum(1 for f in findings if f.status in LEFT_FOR_A_PERSON)
            for gap in gaps:
                reasons[f"{gap.kind}: {gap.reason}"] += 1
                out["gaps"].append({"corpus": corpus, "where": where, **gap.to_dict()})
        row = {"sources": files, "findings": uses, "left_for_a_person": left, "markers": markers,
               "unmarked": sum(n for k, n in reasons.items() if k.startswith("unmarked")),
               "unreported": sum(n for k, n in reasons.items() if k.startswith("unreported")),
               "reasons": dict(reasons.most_common()), "seconds": round(time.time() - started, 1)}
        out["corpora"][corpus] = row
        log(f"{corpus}: {files} sources, {uses} findings ({left} left for a person), "
            f"{markers} markers, {row['unmarked']} unmarked, {row['unreported']} unreported ({row['seconds']} s)")
        for reason, n in reasons.most_common():
            log(f"    {n:5d}  {reason}")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", nargs="+", choices=CORPORA, default=list(CORPORA))
    parser.add_argument("--limit", type=int, default=None, help="at most N sources per corpus")
    parser.add_argument("--json", type=Path, default=None, help="write the counts (and every gap) here")
    args = parser.parse_args()
    result = measure(args.corpus, args.limit)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
