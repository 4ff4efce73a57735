"""analyze_tree: every .py/.ipynb under a folder, in parallel, cached by content hash."""
from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from analysis.findings import FileReport, Finding
from analysis.links import read_regular
from analysis.knowledge.mapping import load_mapping
from analysis.scan.index import ProjectIndex, build_project_index
from analysis.scan.source import analyze_source

SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", "node_modules", ".ipynb_checkpoints", ".tox"}
ANALYZER_VERSION = "2"  # bump when the analyzer's output changes for the same input


def list_sources(root: Path) -> list[str]:
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith((".py", ".ipynb")) and not os.path.islink(os.path.join(dirpath, name)):  # never read
                found.append(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/"))
    return found


def _cache_key(data: bytes, rel: str, target: str, ms_version: str, index_digest: str) -> str:
    h = hashlib.sha256()
    for part in (ANALYZER_VERSION, load_mapping(target).digest, target, ms_version, rel, index_digest):
        h.update(part.encode() + b"\0")
    h.update(data)
    return h.hexdigest()


def _report_from_dict(data: dict) -> FileReport:
    return FileReport(path=data["path"], sha256=data["sha256"], lines=data["lines"],
                      parse_error=data.get("parse_error", ""),
                      findings=[Finding.from_dict(f) for f in data.get("findings", [])])


_STATE: tuple = ()  # (root, target, ms_version, index), shared with pool workers once, not per file


def _init_worker(state: tuple) -> None:
    global _STATE
    _STATE = state


def _analyze_one(rel: str) -> dict:
    root, target, ms_version, index = _STATE
    try:
        data = read_regular(Path(root) / rel)
    except OSError as exc:
        from analysis.scan.source import parse_error_report

        return parse_error_report(rel, b"", f"could not read the file: {exc}").to_dict()
    return analyze_source(data, rel, target=target, ms_version=ms_version, index=index).to_dict()


def _can_fork_pool() -> bool:
    # Daemonic processes (Celery prefork children) may not have children of their own.
    return not multiprocessing.current_process().daemon


def analyze_tree(root: Path, *, target: str = "classic", ms_version: str = "2.4", jobs: int | None = None,
                 cache_dir: Path | None = None) -> list[FileReport]:
    """Analyse every Python file and notebook under ``root`` (or ``root`` itself if it is a file)."""
    root = Path(root)
    if root.is_file():
        data = root.read_bytes()
        return [analyze_source(data, root.name, target=target, ms_version=ms_version)]
    rels = list_sources(root)
    index = build_project_index(root, rels)
    index_digest = hashlib.sha256(index.to_json().encode()).hexdigest()[:16]
    reports: dict[str, FileReport] = {}
    todo = []
    keys = {}
    for rel in rels:
        if cache_dir is not None:
            try:
                data = read_regular(root / rel)
            except OSError:
                continue
            key = _cache_key(data, rel, target, ms_version, index_digest)
            keys[rel] = key
            cached = Path(cache_dir) / key[:2] / f"{key}.json"
            if cached.exists():
                try:
                    reports[rel] = _report_from_dict(json.loads(cached.read_text(encoding="utf-8")))
                    continue
                except (OSError, ValueError, KeyError, TypeError):
                    pass
        todo.append(rel)
    jobs = jobs if jobs is not None else min(os.cpu_count() or 1, 2)
    state = (str(root), target, ms_version, index)
    if jobs > 1 and len(todo) > 1 and _can_fork_pool():
        ctx = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init_worker,
                                 initargs=(state,)) as pool:
            results = list(pool.map(_analyze_one, todo, chunksize=max(1, len(todo) // (jobs * 8))))
    else:
        _init_worker(state)
        results = [_analyze_one(rel) for rel in todo]
    for rel, result in zip(todo, results):
        reports[rel] = _report_from_dict(result)
        if cache_dir is not None and rel in keys:
            key = keys[rel]
            target_file = Path(cache_dir) / key[:2] / f"{key}.json"
            try:
                target_file.parent.mkdir(parents=True, exist_ok=True)
                tmp = target_file.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_text(json.dumps(result), encoding="utf-8")
                os.replace(tmp, target_file)
            except OSError:
                pass
    return [reports[rel] for rel in rels if rel in reports]
