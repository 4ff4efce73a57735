"""Benchmark the analyzer on a large real PyTorch codebase (a benchmark, not a test).

    python bench/analysis.py [--source DIR] [--package timm] [--jobs 2]

Without --source it downloads the package's wheel from PyPI (pip download
--no-deps, never installed) and unpacks it into a temporary folder. Reports
files/s and lines/s for libcst parse-only and for the full analysis of the same
files in the same run (single process, for the ratio), then the parallel
analyze_tree wall time.
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

from analysis.scan import analyze_source, analyze_tree, build_project_index  # noqa: E402
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
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.source or fetch(args.package, Path(tmp))
        rels = [r for r in list_sources(root) if r.endswith(".py")]
        texts = [(rel, (root / rel).read_text(encoding="utf-8", errors="replace")) for rel in rels]
        lines = sum(t.count("\n") + 1 for _, t in texts)
        index = build_project_index(root, rels)
        # warm-up: load the mapping tables, fill caches
        analyze_source(texts[0][1], texts[0][0], index=index)
        parse_s, full_s = [], []
        for _ in range(args.repeat):
            start = time.perf_counter()
            for _, text in texts:
                cst.parse_module(text)
            parse_s.append(time.perf_counter() - start)
            start = time.perf_counter()
            findings = 0
            for rel, text in texts:
                findings += len(analyze_source(text, rel, index=index).findings)
            full_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        build_project_index(root, rels)
        index_s = time.perf_counter() - start
        start = time.perf_counter()
        analyze_tree(root, jobs=args.jobs)
        tree_s = time.perf_counter() - start
        p, f = min(parse_s), min(full_s)
        print(f"codebase: {args.source or args.package}: {len(texts)} files, {lines} lines, {findings} findings")
        print(f"libcst parse only : {p:7.2f}s  {len(texts) / p:7.1f} files/s  {lines / p:9.0f} lines/s")
        print(f"full analysis     : {f:7.2f}s  {len(texts) / f:7.1f} files/s  {lines / f:9.0f} lines/s")
        print(f"ratio full/parse  : {f / p:.2f}x (single process)")
        print(f"project index     : {index_s:7.2f}s")
        print(f"analyze_tree jobs={args.jobs}: {tree_s:7.2f}s  {len(texts) / tree_s:7.1f} files/s  "
              f"{lines / tree_s:9.0f} lines/s (index + parallel analysis)")


if __name__ == "__main__":
    main()
