"""Run the snippet corpus and write the per-family pass rates (for the README).

    python -m tests.convert.corpus_report [--out tests/convert/corpus/PASS_RATES.md]

Writes the Markdown table and, beside it, the same figures as JSON with every
failing snippet and why it failed.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from tests.convert.harness import CORPUS, FAMILIES, load_corpus, pass_rates, run_corpus


def render(rates: dict) -> str:
    lines = ["| family | APIs covered | passing | pass rate |", "| --- | ---: | ---: | ---: |"]
    for fam in (*FAMILIES, "total"):
        r = rates[fam]
        rate = f"{r['rate'] * 100:.1f}%" if r["rate"] is not None else "-"
        lines.append(f"| {fam} | {r['apis']} | {r['passed']} | {rate} |")
    t = rates["total"]
    lines.append("")
    lines.append(f"{t['snippets']} snippets, {t['snippets_passed']} passing. An API passes when every snippet "
                 "covering it converts fully and computes the same values under MindSpore (CPU) as under PyTorch.")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=str(CORPUS / "PASS_RATES.md"))
    options = parser.parse_args(argv)
    snippets = load_corpus()
    previous = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:  # MindSpore writes rank_0/ into the working directory
        os.chdir(tmp)
        try:
            verdicts = run_corpus(snippets)
        finally:
            os.chdir(previous)
    rates = pass_rates(snippets, verdicts)
    out = Path(options.out)
    out.write_text(render(rates), encoding="utf-8")
    details = {"rates": rates, "failures": {k: v for k, v in sorted(verdicts.items()) if v}}
    out.with_suffix(".json").write_text(json.dumps(details, indent=2), encoding="utf-8")
    print(render(rates))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
