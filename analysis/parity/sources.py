"""Link a submodule path ("bn1", "layers.2", "block.0.conv1") back to the line
of user code that built it: the `self.<attr> = ...` assignment in the owning
class's __init__, or the element of an nn.Sequential(...) call."""
from __future__ import annotations

import ast
import inspect
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=64)
def _class_nodes(filename: str) -> dict[str, ast.ClassDef]:
    try:
        tree = ast.parse(Path(filename).read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError):
        return {}
    return {node.name: node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}


def _assignment(cls_node: ast.ClassDef, attr: str) -> ast.AST | None:
    for node in ast.walk(cls_node):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        for target in targets:
            if (isinstance(target, ast.Attribute) and target.attr == attr and isinstance(target.value, ast.Name)
                    and target.value.id == "self"):
                return node
    return None


def _element_line(value: ast.AST, index: int) -> int | None:
    """Line of the index-th module in Sequential(a, b, ...) or ModuleList([a, b])."""
    if isinstance(value, ast.Call):
        args = value.args
        if len(args) == 1 and isinstance(args[0], (ast.List, ast.Tuple)):
            args = args[0].elts
        if 0 <= index < len(args) and not any(isinstance(a, ast.Starred) for a in args):
            return args[index].lineno
    return None


def layer_source(model, path: str, root: Path | None = None) -> dict | None:
    """{"file": relative path, "line": n} for a submodule path, or None."""
    if not path:
        return None
    parts = path.split(".")
    for split in range(len(parts) - 1, -1, -1):
        owner = model
        try:
            for part in parts[:split]:
                owner = getattr(owner, part) if not part.isdigit() else owner[int(part)]
        except (AttributeError, IndexError, KeyError, TypeError):
            return None
        cls = type(owner)
        filename = _class_file(cls)
        if not filename or "site-packages" in filename:
            continue
        node = _class_nodes(filename).get(cls.__name__)
        if node is None:
            continue
        assign = _assignment(node, parts[split])
        if assign is None:
            continue
        line = assign.lineno
        if split + 1 < len(parts) and parts[split + 1].isdigit():
            line = _element_line(assign.value, int(parts[split + 1])) or line
        return {"file": _relative(filename, root), "line": line}
    return None


def _class_file(cls) -> str | None:
    """The file defining `cls`, from its methods' code objects: the runner
    drops user modules from sys.modules, which inspect.getsourcefile needs."""
    for name in ("__init__", "forward", "construct"):
        code = getattr(cls.__dict__.get(name), "__code__", None)
        if code is not None:
            return code.co_filename
    try:
        return inspect.getsourcefile(cls)
    except TypeError:
        return None


def _relative(filename: str, root: Path | None) -> str:
    if root is not None:
        try:
            return Path(filename).resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return Path(filename).name
