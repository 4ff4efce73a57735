"""`convert SRC --out DST [--target classic|mint] [--report FILE.json]`.

The command core: Django's `manage.py convert` and `python -m analysis.cli.convert`
both call add_arguments() and run()."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from analysis.convert import convert_source, convert_tree
from analysis.convert.core.result import TreeConversion
from analysis.convert.notebook import convert_notebook
from analysis.convert.support import helpers, placement
from analysis.convert.tree import write_reports
from analysis.links import links_under, skipped_message


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("src", help="a PyTorch .py file, a .ipynb notebook or a directory tree")
    parser.add_argument("--out", required=True, help="where the converted file or tree goes")
    parser.add_argument("--target", choices=("classic", "mint"), default="classic",
                        help="classic mindspore.nn/ops (default) or mindspore.mint where mapped")
    parser.add_argument("--report", default=None, help="also write the conversion report to this JSON file")
    parser.add_argument("--ms-version", default="2.10", help="MindSpore version the output targets (default 2.10, the release the product checks against)")
    parser.add_argument("--jobs", type=int, default=None, help="parallel workers (default: all cores)")


def run(options: dict, stdout: TextIO) -> int:
    src = Path(options["src"])
    out = Path(options["out"])
    target = options.get("target") or "classic"
    ms_version = options.get("ms_version") or "2.10"
    if src.is_symlink():
        stdout.write(f"error: {src} is a symbolic link; links are never read\n")
        return 2
    if not src.exists():
        stdout.write(f"error: {src} does not exist\n")
        return 2
    try:
        if src.is_dir():
            report = convert_tree(src, out, target=target, ms_version=ms_version, jobs=options.get("jobs"))
        elif src.suffix in (".py", ".ipynb"):
            report = _convert_file(src, out, target, ms_version)
        else:
            stdout.write(f"error: {src} is neither a .py file nor a directory (nor a .ipynb notebook)\n")
            return 2
    except (OSError, ValueError) as exc:
        stdout.write(f"error: {exc}\n")
        return 2
    if options.get("report"):  # first, so a closed stdout (`| head`) cannot lose it
        Path(options["report"]).write_text(json.dumps(report.to_dict(), indent=2), encoding="utf-8")
    summary = report.summary()
    stdout.write(
        f"converted {summary['python_files']} Python file(s) into {out} "
        f"({summary['changes']} changes, {summary['unconverted']} left for review, "
        f"{summary['copied_files']} other file(s) copied) in {summary['seconds']:.2f}s\n"
    )
    if src.is_dir() and (skipped := skipped_message(links_under(src))):
        stdout.write(skipped + "\n")
    for result in report.files:
        for item in result.unconverted:
            where = f"cell {item.cell}, line {item.line}" if hasattr(item, "cell") else item.line
            stdout.write(f"  {result.path}:{where}: {item.rule_id}: {item.action}\n")
    return 0


def _convert_file(src: Path, out: Path, target: str, ms_version: str) -> TreeConversion:
    """One file (or notebook) converted; the helpers it calls go into the support module beside it,
    which keeps those of files converted into the same folder before."""
    import time

    started = time.perf_counter()
    if out.is_dir():
        out = out / src.name
    support = _support_name(src, out)
    convert = convert_notebook if src.suffix == ".ipynb" else convert_source
    result = convert(src.read_text(encoding="utf-8"), path=src.name, target=target, ms_version=ms_version,
                     support=support)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(result.text, encoding="utf-8")
    report = TreeConversion(src=str(src), dst=str(out), target=target, files=[result])
    if result.support_names:
        module = out.parent / f"{support}.py"
        earlier = helpers.support_names(module.read_text(encoding="utf-8")) if module.is_file() else []
        module.write_text(helpers.support_module({*earlier, *result.support_names}), encoding="utf-8")
        report.support.append(module.name)
    report.seconds = time.perf_counter() - started
    write_reports(report, out.parent)
    return report


def _support_name(src: Path, out: Path) -> str:
    """The support module's name: ms_support unless a file of the source's folder, or one in the output
    folder that is not a support module this converter wrote, has it."""
    def foreign(folder: Path, name: str) -> bool:
        path = folder / f"{name}.py"
        if (folder / name).exists() or (path.exists() and folder == src.parent):
            return True
        return path.is_file() and not helpers.support_names(path.read_text(encoding="utf-8", errors="replace"))

    name, number = placement.BASE, 2
    while foreign(src.parent, name) or foreign(out.parent, name):
        name, number = f"{placement.BASE}_{number}", number + 1
    return name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="convert", description="Convert PyTorch code to MindSpore.")
    add_arguments(parser)
    return run(vars(parser.parse_args(argv)), sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
