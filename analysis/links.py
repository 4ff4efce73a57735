"""Symbolic links in a checkout are never followed.

A link in a repository on disk (`leak.py -> /etc/shadow`) would otherwise
be read by the analyzer, the converter or parity discovery and its target
written into results or converted trees. Uploads already refuse links; the
command line walks a checkout as it is, so every walk skips them (and says
so) and every read opens the file with O_NOFOLLOW, regular files only.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

SHOWN = 20  # links named in a message; the rest are counted


def read_regular(path: str | Path) -> bytes:
    """The bytes of a regular file; OSError for a link (even a last-moment swap) or anything else."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        return fh.read()


def links_under(root: str | Path, skip_dirs: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Relative paths of the symbolic links under `root` (files and folders), never descending into one."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in skip_dirs)
        for name in dirnames + sorted(filenames):
            full = os.path.join(dirpath, name)
            if os.path.islink(full):
                found.append(os.path.relpath(full, root).replace(os.sep, "/"))
    return sorted(found)


def skipped_message(links: list[str]) -> str:
    if not links:
        return ""
    named = ", ".join(links[:SHOWN]) + (f" and {len(links) - SHOWN} more" if len(links) > SHOWN else "")
    return f"skipped {len(links)} symbolic link(s), never read: {named}"
