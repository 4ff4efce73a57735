"""SARIF validated against the official schema, JSON/text reports, CLI, cache and parallel runs."""
from __future__ import annotations

import io
import json
import multiprocessing
from pathlib import Path

import jsonschema

from analysis.cli import analyze as analyze_cli
from analysis.cli import rules as rules_cli
from analysis.report.sarif import to_sarif
from analysis.report.text import render_text
from analysis.scan import analyze_source, analyze_tree
from tests.conftest import SAMPLE_REPO

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())


def test_sarif_is_valid_and_points_at_code():
    reports = analyze_tree(SAMPLE_REPO, jobs=1)
    reports.append(analyze_source(b"print 'x'\n", "broken.py"))
    sarif = to_sarif(reports, root_uri=SAMPLE_REPO.as_uri())
    jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.FormatChecker()).validate(sarif)
    run = sarif["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    for rule in run["tool"]["driver"]["rules"]:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"] and rule["help"]["text"]
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
    dropout = next(r for r in run["results"] if r["ruleId"] == "MS-DROPOUT-P")
    # the converter writes p=: a converted use is a note, never an error (issue 27)
    assert rule_ids[dropout["ruleIndex"]] == "MS-DROPOUT-P" and dropout["level"] == "note"
    loc = dropout["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "models/mlp.py"
    assert loc["region"] == {"startLine": 13, "startColumn": 13, "endLine": 13, "endColumn": 32}
    assert any(r["ruleId"] == "MS-PARSE-ERROR" for r in run["results"])


def test_text_report_lists_findings_and_counts():
    text = render_text(analyze_tree(SAMPLE_REPO, jobs=1))
    assert "models/mlp.py:13:13: info MS-DROPOUT-P [converted]" in text
    assert "4 file(s)" in text


def test_cli_formats(tmp_path):
    out = io.StringIO()
    assert analyze_cli.run({"path": str(SAMPLE_REPO), "format": "json"}, out) == 0
    assert json.loads(out.getvalue())["summary"]["files"] == 4
    target = tmp_path / "r.sarif"
    assert analyze_cli.run({"path": str(SAMPLE_REPO / "train.py"), "format": "sarif", "output": str(target)},
                           io.StringIO()) == 0
    assert json.loads(target.read_text())["version"] == "2.1.0"
    # the sample converts whole (no error left); its checkpoint and seed findings are warnings to review
    assert analyze_cli.run({"path": str(SAMPLE_REPO), "fail_on": "error"}, io.StringIO()) == 0
    assert analyze_cli.run({"path": str(SAMPLE_REPO), "fail_on": "warning"}, io.StringIO()) == 1
    assert analyze_cli.run({"path": str(tmp_path / "missing")}, io.StringIO()) == 2
    listing = io.StringIO()
    assert rules_cli.run({"format": "text", "severity": "error"}, listing) == 0
    assert "MS-DROPOUT-P" in listing.getvalue() and "MS-API-MAPPED" not in listing.getvalue()


def test_cache_reuses_unchanged_files(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.py").write_text("import torch\ntorch.manual_seed(0)\n")
    (src / "b.py").write_text("import torch.nn as nn\nd = nn.Dropout(0.1)\n")
    cache = tmp_path / "cache"
    first = analyze_tree(src, jobs=1, cache_dir=cache)
    assert len(list(cache.rglob("*.json"))) == 2
    (src / "b.py").write_text("import torch.nn as nn\nd = nn.Dropout(0.1)\nc = nn.Conv2d(1, 1, 1)\n")
    second = analyze_tree(src, jobs=1, cache_dir=cache)
    assert first[0].to_dict() == second[0].to_dict()
    assert len(list(cache.rglob("*.json"))) == 3
    assert any(f.rule_id == "MS-CONV-PADMODE" for f in second[1].findings)
    # another target is another cache entry
    analyze_tree(src, jobs=1, cache_dir=cache, target="mint")
    assert len(list(cache.rglob("*.json"))) == 5


def test_parallel_equals_serial():
    serial = [r.to_dict() for r in analyze_tree(SAMPLE_REPO, jobs=1)]
    parallel = [r.to_dict() for r in analyze_tree(SAMPLE_REPO, jobs=2)]
    assert serial == parallel


def _in_daemon(queue):
    reports = analyze_tree(SAMPLE_REPO, jobs=2)
    queue.put(sum(len(r.findings) for r in reports))


def test_works_inside_a_daemonic_process():
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_in_daemon, args=(queue,), daemon=True)
    proc.start()
    count = queue.get(timeout=120)
    proc.join(timeout=30)
    assert count == sum(len(r.findings) for r in analyze_tree(SAMPLE_REPO, jobs=1))
