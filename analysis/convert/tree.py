"""convert_tree: mirror a directory, converting every .py file and every notebook (.ipynb: its code
cells as one program, see notebook.py) and copying the rest. The helpers the converted files call are
written once per tree into a support module they import (support/placement.py says where).

Files are converted in a pool of worker processes forked once (no per-file
start-up); inside a daemonic process (a Celery prefork child), which may not
fork children, threads are used instead, and small trees run serially.
"""
from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from collections.abc import Mapping
from pathlib import Path

from analysis.links import read_regular

from .core.result import ConversionResult, KeptConversion, TreeConversion
from .engine import TARGETS, convert_source
from .notebook import convert_notebook
from .support import helpers, placement

SKIP_DIRS = {".git", "__pycache__", ".porting", ".hg", ".svn", ".venv", "node_modules", ".mypy_cache", ".pytest_cache"}
SERIAL_BELOW = 16  # files: below this a pool costs more than it saves
CHUNK = 32


def _read(path: Path) -> str:
    return source_text(read_regular(path))  # never through a link


def _convert_batch(batch: list[tuple[str, str, str]], target: str, ms_version: str) -> list[ConversionResult]:
    out = []
    for rel, full, support in batch:
        convert = convert_notebook if rel.endswith(".ipynb") else convert_source
        out.append(convert(_read(Path(full)), path=rel, target=target, ms_version=ms_version, support=support))
    return out


def source_text(data: bytes) -> str:
    """A file's text as the tree reads it (UTF-8, else Latin-1)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def support_imports(src: Path) -> dict[str, str]:
    """Each Python file and notebook under src -> the helper import its conversion writes
    (convert_source's `support`): what a conversion made before the tree's must have used."""
    return {rel: spec for rel, _, spec in _plan(Path(src).resolve())[0]}


def _plan(src: Path) -> tuple[list[tuple[str, str, str]], list[Path], set[str], str]:
    """(rel, full path, helper import) of each file to convert, the files to copy, the package folders,
    the support module's name."""
    python, other = _walk(src)
    every = [p.relative_to(src).as_posix() for p in (*python, *other)]
    support, package_dirs = placement.module_name(every), placement.packages(every)
    items = [(rel, str(p), placement.import_spec(rel, package_dirs, support))
             for rel, p in ((p.relative_to(src).as_posix(), p) for p in python)]
    return items, other, package_dirs, support


def _take_kept(items: list[tuple[str, str, str]], kept: Mapping[str, KeptConversion], target: str,
               ms_version: str) -> tuple[list[ConversionResult], list[tuple[str, str, str]]]:
    """The kept conversions that fit the file as it is now, and the items left to convert."""
    taken, left = [], []
    for rel, full, support in items:
        made = kept.get(rel)
        if made is not None and made.fits(_read(Path(full)), support=support, target=target, ms_version=ms_version):
            taken.append(made.result)
        else:
            left.append((rel, full, support))
    return taken, left


def _walk(src: Path) -> tuple[list[Path], list[Path]]:
    python, other = [], []
    for root, dirs, files in os.walk(src):  # a linked folder is listed, never entered
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            path = Path(root) / name
            if path.is_symlink():
                continue  # never read nor copied (links_under names it)
            (python if name.endswith((".py", ".ipynb")) else other).append(path)
    return python, other


def _executor(jobs: int, files: int):
    if jobs <= 1 or files < SERIAL_BELOW:
        return None
    if multiprocessing.current_process().daemon:
        return ThreadPoolExecutor(max_workers=jobs)
    try:
        context = multiprocessing.get_context("fork")
    except ValueError:
        return ThreadPoolExecutor(max_workers=jobs)
    return ProcessPoolExecutor(max_workers=jobs, mp_context=context)


def module_name(rel: str) -> str:
    """'models/lenet.py' -> 'models.lenet'; 'pkg/__init__.py' -> 'pkg'."""
    parts = rel[:-3].split("/")
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def convert_tree(
    src: Path, dst: Path, *, target: str = "classic", ms_version: str = "2.4", jobs: int | None = None,
    on_converted=None, kept: Mapping[str, KeptConversion] | None = None,
) -> TreeConversion:
    """Convert the tree at src into dst (created; existing files overwritten).

    on_converted(done, total), if given, is called as batches of files finish (a live progress line).
    kept: conversions already made of some files (the analysis's, by relative path); each is used
    where it fits the file, its helper import and the settings, and the rest are converted here."""
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}: expected one of {', '.join(TARGETS)}")
    src, dst = Path(src).resolve(), Path(dst).resolve()
    if not src.is_dir():
        raise NotADirectoryError(f"{src} is not a directory")
    if dst == src or src in dst.parents:
        raise ValueError("the output directory must lie outside the source tree")
    started = time.perf_counter()
    items, other, package_dirs, support = _plan(src)
    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    order = {item[0]: i for i, item in enumerate(items)}
    results, items = _take_kept(items, kept or {}, target, ms_version)
    total = len(results) + len(items)
    # Someone watching progress gets about four reports per worker, never batches over CHUNK.
    size = CHUNK if on_converted is None else max(1, min(CHUNK, -(-len(items) // (4 * max(jobs, 1)))))
    batches = [items[i:i + size] for i in range(0, len(items), size)]
    pool = _executor(jobs, len(items))
    tell = on_converted or (lambda done, total: None)
    if results:
        tell(len(results), total)
    if pool is None:
        for batch in batches:
            results += _convert_batch(batch, target, ms_version)
            tell(len(results), total)
    else:
        with pool:
            for part in pool.map(_convert_batch, batches, [target] * len(batches), [ms_version] * len(batches)):
                results += part
                tell(len(results), total)
    results.sort(key=lambda r: order[r.path])
    report = TreeConversion(src=str(src), dst=str(dst), target=target, files=results)
    for result in results:
        out = dst / result.path
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(result.text, encoding="utf-8")
    for path in other:
        rel = path.relative_to(src)
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, dst / rel, follow_symlinks=False)
        report.copied.append(rel.as_posix())
    users = [r.path for r in results if r.support_names]
    if users:
        text = helpers.support_module({name for r in results for name in r.support_names})
        for rel in placement.locations(users, package_dirs, support):
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            (dst / rel).write_text(text, encoding="utf-8")
            report.support.append(rel)
    report.seconds = time.perf_counter() - started
    write_reports(report, dst)
    return report


def write_reports(report: TreeConversion, dst: Path) -> None:
    porting = dst / ".porting"
    porting.mkdir(parents=True, exist_ok=True)
    layer_map: dict[str, dict[str, list[dict]]] = {}
    for result in report.files:
        if not result.layer_map:
            continue
        classes = layer_map.setdefault(module_name(result.path), {})
        for record in result.layer_map:
            classes.setdefault(record.class_name, []).append(record.__dict__.copy())
    (porting / "layer_map.json").write_text(json.dumps(layer_map, indent=2), encoding="utf-8")
    (porting / "report.json").write_text(json.dumps(report.to_dict(), indent=2), encoding="utf-8")
