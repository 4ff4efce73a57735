"""`analyze PATH [--target classic|mint] [--ms-version 2.4] [--format text|json|sarif] [--output FILE]`.

The command core: Django's `manage.py analyze` and `python -m analysis.cli.analyze`
both call add_arguments() and run()."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from analysis.fingerprint import fingerprint_tree
from analysis.links import links_under, skipped_message
from analysis.report.json import to_json
from analysis.report.notebook_lines import notebook_locator
from analysis.report.sarif import to_sarif
from analysis.report.text import render_text
from analysis.scan import analyze_tree

_FAIL_LEVELS = {"none": (), "error": ("error",), "warning": ("error", "warning")}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="a .py file, a .ipynb notebook or a directory")
    parser.add_argument("--target", choices=("classic", "mint"), default="classic",
                        help="MindSpore API family to map to (default classic)")
    parser.add_argument("--ms-version", default="2.10", help="MindSpore release the port targets (default 2.10, the release the product checks against)")
    parser.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    parser.add_argument("--output", default=None, help="write the report here instead of standard output")
    parser.add_argument("--jobs", type=int, default=None, help="parallel workers (default: up to 2)")
    parser.add_argument("--cache-dir", default=None, help="reuse results of unchanged files from this folder")
    parser.add_argument("--fail-on", choices=tuple(_FAIL_LEVELS), default="none",
                        help="exit with status 1 when findings of this severity (or worse) exist")


def run(options: dict, stdout: TextIO) -> int:
    path = Path(options["path"])
    if path.is_symlink():
        stdout.write(f"error: {path} is a symbolic link; links are never read\n")
        return 2
    if not path.exists():
        stdout.write(f"error: {path} does not exist\n")
        return 2
    if path.is_dir() and (skipped := skipped_message(links_under(path))):
        sys.stderr.write(skipped + "\n")  # stdout may be the JSON or SARIF report
    try:
        reports = analyze_tree(path, target=options.get("target") or "classic",
                               ms_version=str(options.get("ms_version") or "2.10"), jobs=options.get("jobs"),
                               cache_dir=Path(options["cache_dir"]) if options.get("cache_dir") else None)
    except (OSError, ValueError) as exc:
        stdout.write(f"error: {exc}\n")
        return 2
    fmt = options.get("format") or "text"
    if fmt in ("json", "sarif"):  # each use carries its status (from the analyzer) and its fingerprint
        fingerprint_tree(path, reports)
    if fmt == "text":
        body = render_text(reports)
    elif fmt == "json":
        body = json.dumps(to_json(reports), indent=2) + "\n"
    else:
        root = path if path.is_dir() else path.parent
        root_uri = root.resolve().as_uri()
        locate = notebook_locator(lambda rel: _read(root / rel))
        body = json.dumps(to_sarif(reports, root_uri=root_uri, locate=locate), indent=2) + "\n"
    if options.get("output"):
        Path(options["output"]).write_text(body, encoding="utf-8")
        stdout.write(f"wrote {fmt} report for {len(reports)} file(s) to {options['output']}\n")
    else:
        stdout.write(body)
    failing = _FAIL_LEVELS[options.get("fail_on") or "none"]
    if failing and any(f.severity.value in failing for r in reports for f in r.findings):
        return 1
    return 0


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="analyze", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(vars(parser.parse_args(argv)), sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
