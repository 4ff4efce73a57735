"""Matching file paths across two uploads of the same code.

A browser upload of a zipped folder puts every file under one top-level folder
(pytorch-tutorial/tutorials/x.py); the CI client uploads the repository's
contents (tutorials/x.py). Comparing runs, carrying marks and judging the gate
all match files by path, so both sides are first brought to a common form: a
top-level folder shared by every path of one side is dropped when that makes
more paths match than keeping it.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable


def _shared_top(paths: set[str]) -> str:
    """The folder ("name/") every path starts with, or ""."""
    tops = {p.split("/", 1)[0] + "/" for p in paths if "/" in p}
    if len(tops) != 1 or any("/" not in p for p in paths):
        return ""
    return tops.pop()


def _strip(prefix: str) -> Callable[[str], str]:
    if not prefix:
        return lambda path: path
    return lambda path: path[len(prefix):] if path.startswith(prefix) else path


def path_alignment(old: Iterable[str], new: Iterable[str]) -> tuple[Callable[[str], str], Callable[[str], str]]:
    """Two functions mapping an old and a new path to a common key.

    Identity on both sides unless dropping one side's shared top-level folder
    (or both sides' different ones) matches strictly more paths.
    """
    old, new = set(old), set(new)
    best = (len(old & new), "", "")
    old_top, new_top = _shared_top(old), _shared_top(new)
    for drop_old in {"", old_top}:
        for drop_new in {"", new_top}:
            if not drop_old and not drop_new:
                continue
            a, b = _strip(drop_old), _strip(drop_new)
            matched = len({a(p) for p in old} & {b(p) for p in new})
            if matched > best[0]:
                best = (matched, drop_old, drop_new)
    return _strip(best[1]), _strip(best[2])
