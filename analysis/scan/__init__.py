"""Static analysis of PyTorch code: every API use resolved and classified, every migration rule checked.

Public API (called by the workers and the CLI):
    build_project_index(root, rel_paths) -> ProjectIndex
    analyze_source(source, path, *, target="classic", ms_version="2.4", index=None) -> FileReport
    analyze_tree(root, *, target="classic", ms_version="2.4", jobs=None, cache_dir=None) -> list[FileReport]
"""
from __future__ import annotations

from analysis.scan.index import ProjectIndex, build_project_index
from analysis.scan.source import analyze_source
from analysis.scan.tree import analyze_tree

__all__ = ["ProjectIndex", "build_project_index", "analyze_source", "analyze_tree"]
