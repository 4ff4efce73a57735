"""Notebook placement on code nobody here chose: `python bench/notebook_placement.py [REPO]`.

Each .py script of REPO (default ../shared/realworld/pytorch-tutorial) becomes a
notebook the way people write them (a markdown cell before each blank-line-separated
block of code, sources as lists of lines, written as Jupyter writes, indent 1).
The real analyzer reads the notebook; every finding must sit in a code cell, at a
line of that cell naming its API (a line reaching it through an alias, `DDP(...)`,
is counted "alias" and printed for a person to look at), and the .ipynb line SARIF
points at must hold exactly that line of code. Prints the counts.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository, not bench/analysis.py

from analysis.report.notebook_lines import cell_line_map  # noqa: E402
from analysis.scan import analyze_source  # noqa: E402


def as_notebook(text: str) -> tuple[str, dict[int, list[str]]]:
    """The script as a notebook, and each code cell's lines by cell index."""
    blocks, current = [], []
    for line in text.splitlines(keepends=True):
        continues = current and current[-1].rstrip().endswith(("\\", ",", "(", "["))
        if line.strip() == "" and current and not continues:
            blocks.append(current)
            current = []
        else:
            current.append(line)
    if current:
        blocks.append(current)
    cells, code = [], {}
    for block in blocks:
        cells.append({"cell_type": "markdown", "metadata": {}, "source": ["Some words about the next cell.\n"]})
        cells.append({"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": block})
        code[len(cells) - 1] = block
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}, indent=1), code


def main(repo: Path) -> dict:
    counts = {"scripts": 0, "findings": 0, "placed": 0, "alias": 0, "misplaced": 0, "sarif_line_holds_code": 0}
    for path in sorted(repo.rglob("*.py")):
        counts["scripts"] += 1
        notebook, code = as_notebook(path.read_text(errors="replace"))
        report = analyze_source(notebook.encode(), path.name + ".ipynb")
        file_lines, mapping = notebook.splitlines(), cell_line_map(notebook)
        for f in report.findings:
            if f.cell is None or f.rule_id == "MS-PARSE-ERROR":
                continue
            counts["findings"] += 1
            block = code.get(f.cell)
            name = f.torch_api.rsplit(".", 1)[-1]
            span = block[f.line - 1:max(f.end_line, f.line)] if block and 0 < f.line <= len(block) else []
            if not span:
                counts["misplaced"] += 1
                print("misplaced:", path.name, f.cell, f.line, f.rule_id, f.torch_api)
                continue
            named = not name or any(name in line for line in span)
            counts["placed" if named else "alias"] += 1
            if not named:
                print("alias?", path.name, f"cell {f.cell} line {f.line}", f.torch_api, repr(span[0].strip()))
            held = json.loads(file_lines[mapping[f.cell][f.line - 1] - 1].strip().rstrip(","))
            counts["sarif_line_holds_code"] += held == block[f.line - 1]
    return counts


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/realworld/pytorch-tutorial"))))
