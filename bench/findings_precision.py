"""Precision and recall of the analyzer's findings on real repositories, from labels a person made.

    python bench/findings_precision.py [--root ../shared/realworld] [--labels bench/findings_labels.json]
    python bench/findings_precision.py --sample 40 --seed 3     # unlabelled findings to label next

Labels (bench/findings_labels.json) are data:
- "findings": a sample of findings, each {repo, path, line, rule_id, torch_api, label: correct|wrong, why}.
  A finding is correct when it names a real torch object, its status agrees with what the converter
  did to that use, and nothing it says is false for this call.
- "uses": a sample of source lines, each {repo, path, line, torch_api, why}: a torch use a person porting
  the file must hear about (recall counts those with a finding naming that API, or for an event rule
  (torch_api "") any finding on the line).
The analysis is run fresh (MindSpore 2.10, the dashboard's default); a labelled finding no longer
reported is listed as gone, not counted.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from analysis.scan import analyze_tree  # noqa: E402

REPOS = ("pytorch-tutorial", "nanoGPT", "perceiver-pytorch")


def fresh(root: Path) -> list[dict]:
    rows = []
    for repo in REPOS:
        for report in analyze_tree(root / repo, ms_version="2.10", jobs=1):
            for f in report.findings:
                rows.append({"repo": repo, "path": report.path, "line": f.line, "rule_id": f.rule_id,
                             "torch_api": f.torch_api, "severity": f.severity.value, "status": f.status.value,
                             "message": f.message})
    return rows


def key(row: dict) -> tuple:
    return (row["repo"], row["path"], row["line"], row["rule_id"], row["torch_api"])


def measure(rows: list[dict], labels: dict) -> dict:
    present = {key(r) for r in rows}
    counted = [lab for lab in labels["findings"] if key(lab) in present]
    gone = [lab for lab in labels["findings"] if key(lab) not in present]
    correct = sum(1 for lab in counted if lab["label"] == "correct")
    wrong = [lab for lab in counted if lab["label"] == "wrong"]
    on_line: dict[tuple, set] = {}
    for r in rows:
        on_line.setdefault((r["repo"], r["path"], r["line"]), set()).add(r["torch_api"])
    found, missed = 0, []
    for use in labels["uses"]:
        apis = on_line.get((use["repo"], use["path"], use["line"]), set())
        if "covered_by" in use:  # a file-level finding (a torch-bound import) speaks for this line
            apis = on_line.get((use["repo"], use["path"], use["covered_by"]), set())
        if (use["torch_api"] in apis) if use["torch_api"] else apis:
            found += 1
        else:
            missed.append(use)
    severity = {key(r): r["severity"] for r in rows}
    by_severity: dict[str, list[int]] = {}
    for lab in counted:  # precision where a person's attention goes (warnings and errors) as well as overall
        tally = by_severity.setdefault(severity[key(lab)], [0, 0])
        tally[0 if lab["label"] == "correct" else 1] += 1
    return {
        "findings": len(rows), "labelled": len(counted), "correct": correct, "wrong": len(wrong),
        "by_severity": {sev: {"correct": c, "wrong": w} for sev, (c, w) in sorted(by_severity.items())},
        "precision": round(correct / len(counted), 4) if counted else None,
        "uses": len(labels["uses"]), "uses_found": found,
        "recall": round(found / len(labels["uses"]), 4) if labels["uses"] else None,
        "wrong_findings": wrong, "missed_uses": missed, "gone": gone,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=HERE.parent.parent / "shared" / "realworld")
    parser.add_argument("--labels", type=Path, default=HERE / "findings_labels.json")
    parser.add_argument("--sample", type=int, default=0, help="print N unlabelled findings to label")
    parser.add_argument("--seed", type=int, default=27)
    args = parser.parse_args(argv)
    rows = fresh(args.root)
    labels = json.loads(args.labels.read_text()) if args.labels.exists() else {"findings": [], "uses": []}
    if args.sample:
        done = {key(lab) for lab in labels["findings"]}
        todo = [r for r in rows if key(r) not in done]
        for row in random.Random(args.seed).sample(todo, min(args.sample, len(todo))):
            print(json.dumps(row))
        return 0
    result = measure(rows, labels)
    print(json.dumps({k: v for k, v in result.items() if not isinstance(v, list)}, indent=2))
    for lab in result["wrong_findings"]:
        print(f"wrong: {lab['repo']}/{lab['path']}:{lab['line']} {lab['rule_id']} {lab['torch_api']}: {lab['why']}")
    for use in result["missed_uses"]:
        print(f"missed: {use['repo']}/{use['path']}:{use['line']} {use['torch_api']}: {use['why']}")
    for lab in result["gone"]:
        print(f"gone ({lab['label']}): {lab['repo']}/{lab['path']}:{lab['line']} {lab['rule_id']} {lab['torch_api']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
