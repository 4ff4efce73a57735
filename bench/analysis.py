"""Benchmark the analyzer on a large real PyTorch codebase (a benchmark, not a test).

    python bench/analysis.py [--source DIR] [--package timm] [--jobs 2]

Without --source it downloads the package's wheel from PyPI (pip download
--no-deps, never installed) and unpacks it into a temporary folder. Reports
files/s and lines/s for libcst parse-only and for the full analysis of the same
files in the same run (single process, for the ratio), then the parallel
analyze_tree wall time.

A finding agrees with what the converter did to its use, so the full analysis
includes one conversion of each file (on the analyzer's own parse); the run's
convert stage takes those conversions instead of converting again. So the
bench also reports, against the same parse floor: the scan alone (no
agreement), the conversion alone (convert_source), and the pipeline's
analysis + convert stage as it is now (analysis, then convert_tree taking the
analysis's conversions) and as it was (analysis, then convert_tree converting
every file again). The single-process figures are CPU time (time.process_time):
on a shared machine wall-clock ratios move with the load, CPU-time ratios much less.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import libcst as cst  # noqa: E402

from analysis.convert import convert_source, convert_tree  # noqa: E402
from analysis.convert.tree import support_imports  # noqa: E402
from analysis.scan import analyze_source, analyze_tree, build_project_index  # noqa: E402
from analysis.scan.source import analyze_and_convert, analyze_text  # noqa: E402
from analysis.scan.tree import list_sources  # noqa: E402


def fetch(package: str, into: Path) -> Path:
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q", "-d",
                    str(into), package], check=True)
    wheel = next(into.glob("*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(into / "src")
    return into / "src"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=None)
    parser.add_argument("--package", default="timm")
    parser.add_argument("--jobs", type=int, default=2, help="analyze_tree's workers; 0 skips it")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--every", type=int, default=1, help="time every Nth file only (a busy machine)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.source or fetch(args.package, Path(tmp))
        rels = [r for r in list_sources(root) if r.endswith(".py")][::args.every]
        texts = [(rel, (root / rel).read_text(encoding="utf-8", errors="replace")) for rel in rels]
        lines = sum(t.count("\n") + 1 for _, t in texts)
        index = build_project_index(root, rels)
        # warm-up: load the mapping tables, fill caches
        analyze_source(texts[0][1], texts[0][0], index=index)
        # the convert stage works on a tree: the timed files only, as they are
        timed = Path(tmp) / "timed"
        for rel, text in texts:
            (timed / rel).parent.mkdir(parents=True, exist_ok=True)
            (timed / rel).write_text(text, encoding="utf-8")
        specs = support_imports(timed)
        clock = time.process_time
        parse_s, scan_s, full_s, convert_s, stage_s, again_s = [], [], [], [], [], []
        for _ in range(args.repeat):
            start = clock()
            for _, text in texts:
                cst.parse_module(text)
            parse_s.append(clock() - start)
            start = clock()
            for rel, text in texts:
                analyze_text(text, rel, target="classic", ms_version="2.4", index=index, agree_with_converter=False)
            scan_s.append(clock() - start)
            start = clock()
            findings, kept = 0, {}
            for rel, text in texts:
                report, made = analyze_and_convert(text, rel, index=index, support=specs.get(rel))
                findings += len(report.findings)
                if made is not None:
                    kept[rel] = made
            full_s.append(clock() - start)
            start = clock()
            for rel, text in texts:
                convert_source(text, path=rel, support=specs.get(rel))
            convert_s.append(clock() - start)
            with tempfile.TemporaryDirectory() as out:
                start = clock()
                convert_tree(timed, Path(out) / "now", jobs=1, kept=kept)
                stage_s.append(clock() - start)
                start = clock()
                convert_tree(timed, Path(out) / "before", jobs=1)
                again_s.append(clock() - start)
        start = time.perf_counter()
        build_project_index(root, rels)
        index_s = time.perf_counter() - start
        start = time.perf_counter()
        if args.jobs:
            analyze_tree(root, jobs=args.jobs)
        tree_s = time.perf_counter() - start
        p, f = min(parse_s), min(full_s)
        sc, cv, st, ag = min(scan_s), min(convert_s), min(stage_s), min(again_s)
        print(f"codebase: {args.source or args.package}: {len(texts)} files, {lines} lines, {findings} findings")
        print(f"libcst parse only : {p:7.2f}s  {len(texts) / p:7.1f} files/s  {lines / p:9.0f} lines/s")
        print(f"full analysis     : {f:7.2f}s  {len(texts) / f:7.1f} files/s  {lines / f:9.0f} lines/s")
        print(f"ratio full/parse  : {f / p:.2f}x (single process; one conversion per file included)")
        print(f"scan alone        : {sc:7.2f}s  {sc / p:.2f}x parse (no agreement with the converter)")
        print(f"conversion alone  : {cv:7.2f}s  {cv / p:.2f}x parse (convert_source, its own parse)")
        print(f"analysis + convert stage, now   : {f + st:7.2f}s  {(f + st) / p:.2f}x parse "
              f"(convert_tree taking the analysis's conversions: {st:.2f}s)")
        print(f"analysis + convert stage, before: {f + ag:7.2f}s  {(f + ag) / p:.2f}x parse "
              f"(convert_tree converting again: {ag:.2f}s)")
        print(f"project index     : {index_s:7.2f}s")
        if not args.jobs:
            return
        print(f"analyze_tree jobs={args.jobs}: {tree_s:7.2f}s  {len(texts) / tree_s:7.1f} files/s  "
              f"{lines / tree_s:9.0f} lines/s (index + parallel analysis)")


if __name__ == "__main__":
    main()
