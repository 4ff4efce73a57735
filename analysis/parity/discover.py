"""Find candidate entry points without running user code: classes whose bases
lead to nn.Module, from a static scan of the original tree. Whether each can be
built with defaults and fed an inferred input is settled in the sandbox."""
from __future__ import annotations

import ast
from pathlib import Path

SKIP_DIRS = {".git", ".porting", "__pycache__", "venv", ".venv", "node_modules", "build", "dist", "tests", "test"}
MODULE_BASES = {"Module", "nn.Module", "torch.nn.Module"}


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def python_files(root: Path) -> list[Path]:
    files = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if any(part in SKIP_DIRS or part.startswith(".") for part in rel.parts[:-1]):
            continue
        if rel.name in ("setup.py", "conftest.py") or rel.name.startswith("test_"):
            continue
        files.append(path)
    return files


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def candidates(root: Path) -> list[dict]:
    """[{module, class, name, line}] for every class deriving (directly or via
    another class of the tree) from nn.Module."""
    classes: list[tuple[str, str, list[str], int]] = []
    for path in python_files(root):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except SyntaxError:
            continue
        mod = module_name(root, path)
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                classes.append((mod, node.name, [_dotted(b) for b in node.bases], node.lineno))
    module_classes: set[str] = set()
    changed = True
    while changed:  # inheritance through the tree's own classes
        changed = False
        for mod, name, bases, _ in classes:
            if name in module_classes:
                continue
            if any(b in MODULE_BASES or b.endswith(".Module") or b.rsplit(".", 1)[-1] in module_classes for b in bases):
                module_classes.add(name)
                changed = True
    return [
        {"module": mod, "class": name, "name": name, "line": line, "discovered": True}
        for mod, name, bases, line in classes
        if name in module_classes
    ]
