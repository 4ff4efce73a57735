"""`rules [--format text|json] [--ms-version 2.4] [--severity error|warning|info]`: the rule catalogue.

The command core behind Django's `manage.py rules` and `python -m analysis.cli.rules`."""
from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from analysis.rules import all_rules


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--ms-version", default=None, help="only rules that apply to this MindSpore release")
    parser.add_argument("--severity", choices=("error", "warning", "info"), default=None)


def run(options: dict, stdout: TextIO) -> int:
    rules = all_rules()
    if options.get("ms_version"):
        rules = [r for r in rules if r.applies_to(str(options["ms_version"]))]
    if options.get("severity"):
        rules = [r for r in rules if r.severity.value == options["severity"]]
    if (options.get("format") or "text") == "json":
        stdout.write(json.dumps([r.to_dict() for r in rules], indent=2, ensure_ascii=False) + "\n")
        return 0
    for r in rules:
        fix = "autofix" if r.autofix else "manual"
        stdout.write(f"{r.id:<26} {r.severity.value:<8} {fix:<8} {r.versions_text:<12} {r.title}\n")
        stdout.write(f"{'':<26} {r.guide_url}\n")
    stdout.write(f"{len(rules)} rule(s)\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rules", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(vars(parser.parse_args(argv)), sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
