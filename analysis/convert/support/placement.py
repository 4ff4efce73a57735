"""Where a converted tree's support module is written and how each converted file imports it.

Python finds a module beside the script it runs (sys.path[0] is the script's directory), beside a
notebook (the kernel's working directory) and, for a package's modules, relative to the package. So
the support module, one text per tree (every helper the tree uses), is written
- into the outermost package (a chain of directories with __init__.py below the tree root) whose
  modules use helpers; they import it relatively (`from ..ms_support import x`), which holds however
  the package is reached (the tree root on sys.path, an installed package, `python -m`);
- beside every other file that uses helpers (scripts, notebooks, modules of plain directories), and
  at the tree root; those files import it by name (`from ms_support import x`): run from their
  directory they find the copy beside them, imported from the tree root (`models.lenet`) the root's.
The copies are the same text, so whichever one a process imports first serves every file of the tree.
The tree root itself is never taken for a package (scripts run from there).
"""
from __future__ import annotations

from collections.abc import Iterable

BASE = "ms_support"


def module_name(paths: Iterable[str]) -> str:
    """BASE, or BASE_2, BASE_3... when a file or directory of the tree already has that name."""
    taken = set()
    for rel in paths:
        parts = rel.split("/")
        taken.update(parts[:-1])
        taken.add(parts[-1].split(".", 1)[0])
    name, number = BASE, 2
    while name in taken:
        name, number = f"{BASE}_{number}", number + 1
    return name


def packages(paths: Iterable[str]) -> set[str]:
    """Directories (relative, below the root) holding an __init__.py."""
    return {rel.rsplit("/", 1)[0] for rel in paths if rel.endswith("/__init__.py")}


def package_root(rel: str, package_dirs: set[str]) -> str | None:
    """The outermost package holding the module rel (every directory from it down to rel's holds an
    __init__.py); None for a notebook or a file outside any package."""
    folders = rel.split("/")[:-1]
    if rel.endswith(".ipynb") or not folders or "/".join(folders) not in package_dirs:
        return None
    top = len(folders)
    while top > 1 and "/".join(folders[:top - 1]) in package_dirs:
        top -= 1
    return "/".join(folders[:top])


def import_spec(rel: str, package_dirs: set[str], name: str) -> str:
    """What the file rel writes after `from`: the support module by name, or relative to its package."""
    root = package_root(rel, package_dirs)
    if root is None:
        return name
    below = len(rel.split("/")) - 1 - len(root.split("/"))
    return "." * (below + 1) + name


def locations(users: Iterable[str], package_dirs: set[str], name: str) -> list[str]:
    """Relative paths of the copies the files `users` (those importing helpers) need."""
    out = set()
    for rel in users:
        root = package_root(rel, package_dirs)
        if root is not None:
            out.add(f"{root}/{name}.py")
            continue
        folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
        out.add(f"{folder}/{name}.py" if folder else f"{name}.py")
        out.add(f"{name}.py")
    return sorted(out)
