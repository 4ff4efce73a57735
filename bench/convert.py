"""Conversion speed on a large real codebase, against libcst's parse-only time.

    python bench/convert.py [--src DIR] [--jobs N]

Without --src it downloads the timm wheel (pip download --no-deps, not installed)
into a temporary directory and unpacks its .py files. Prints files/s for
convert_source (one process), convert_tree (parallel), and the ratio of the
single-process conversion time to parse-only time of the same files, same run.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import libcst as cst  # noqa: E402

from analysis.convert import convert_source, convert_tree  # noqa: E402


def fetch_timm(workdir: Path) -> Path:
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(workdir), "timm"],
                   check=True)
    wheel = next(workdir.glob("timm-*.whl"))
    src = workdir / "src"
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if name.endswith(".py"):
                archive.extract(name, src)
    return src


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--src", default=None)
    parser.add_argument("--jobs", type=int, default=None)
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        src = Path(options.src) if options.src else fetch_timm(workdir)
        files = sorted(src.rglob("*.py"))
        texts = [p.read_text(encoding="utf-8", errors="replace") for p in files]
        lines = sum(t.count("\n") for t in texts)

        started = time.perf_counter()
        for text in texts:
            cst.parse_module(text)
        parse_s = time.perf_counter() - started

        started = time.perf_counter()
        results = [convert_source(t, path=str(p.relative_to(src))) for p, t in zip(files, texts)]
        convert_s = time.perf_counter() - started

        started = time.perf_counter()
        convert_tree(src, workdir / "out", jobs=options.jobs)
        tree_s = time.perf_counter() - started

    figures = {
        "codebase": options.src or "timm (wheel from PyPI)",
        "files": len(files),
        "lines": lines,
        "parse_only_s": round(parse_s, 2),
        "convert_source_s": round(convert_s, 2),
        "convert_source_files_per_s": round(len(files) / convert_s, 1),
        "ratio_to_parse": round(convert_s / parse_s, 2),
        "convert_tree_s": round(tree_s, 2),
        "convert_tree_files_per_s": round(len(files) / tree_s, 1),
        "changes": sum(len(r.changes) for r in results),
        "unconverted": sum(len(r.unconverted) for r in results),
        "failed_files": sum(1 for r in results if r.unconverted and r.unconverted[0].rule_id == "MS-PARSE-ERROR"),
    }
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
