"""The engine's import structure, read statically (every import statement, function-level ones too):
no import circle anywhere in analysis/, and the converter's sub-packages depend on each other in
one direction only, through public names."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONVERT = "analysis.convert"
# The converter's sub-packages, lowest first: a module may import its own sub-package and those
# listed before it, never one listed after it (core imports no concern).
LAYERS = ("core", "support", "apis", "training", "data", "modules", "tensors")
# What stays at the package root: the entry points and the one pass that composes every concern.
ENTRY_MODULES = {"engine", "transformer", "calls", "statements", "outline", "tree", "notebook"}


def module_names(base: Path = ROOT) -> dict[str, Path]:
    """Dotted name -> file for every module under analysis/ (a package under its own name)."""
    names = {}
    for path in (base / "analysis").rglob("*.py"):
        parts = list(path.relative_to(base).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def imports(name: str, path: Path, known: dict[str, Path]) -> list[tuple[str, str]]:
    """(imported module, imported name or '') for each import of another analysis module in the file."""
    is_package = path.name == "__init__.py"
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(alias.name, "") for alias in node.names if alias.name in known]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = name.split(".")[: len(name.split(".")) - (node.level - 1) - (0 if is_package else 1)]
                base = ".".join(package + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                if f"{base}.{alias.name}" in known:
                    out.append((f"{base}.{alias.name}", ""))  # a module imported from its package
                elif base in known:
                    out.append((base, alias.name))
    return out


def graph(base: Path = ROOT) -> dict[str, list[tuple[str, str]]]:
    known = module_names(base)
    return {name: [(m, n) for m, n in imports(name, path, known) if m != name] for name, path in known.items()}


def cycles(edges: dict[str, list[tuple[str, str]]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted({m for m, _ in edges[start]})))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted({m for m, _ in edges.get(target, [])}))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def sub_package(module: str) -> str | None:
    """The converter sub-package a module belongs to ('' for the package root), None outside it."""
    if module != CONVERT and not module.startswith(CONVERT + "."):
        return None
    rest = module[len(CONVERT) + 1:].split(".") if module != CONVERT else []
    return rest[0] if len(rest) > 1 or (rest and rest[0] in LAYERS) else ""


def layering_problems(edges: dict[str, list[tuple[str, str]]]) -> list[str]:
    problems = []
    for module, targets in edges.items():
        own = sub_package(module)
        if not own:
            continue  # outside the converter, or its root (which composes every concern)
        for target, name in targets:
            theirs = sub_package(target)
            if theirs is None or theirs == own:
                continue
            if theirs == "":
                problems.append(f"{module} imports {target}: a concern imports the package root")
            elif LAYERS.index(theirs) > LAYERS.index(own):
                problems.append(f"{module} imports {target}: {own}/ sits below {theirs}/")
            if name.startswith("_") or target.rsplit(".", 1)[1].startswith("_"):
                problems.append(f"{module} imports {target}.{name}: an internal of {theirs}/")
    return problems


def test_analysis_has_no_import_circle():
    assert cycles(graph()) == []


def test_converter_sub_packages_point_one_way_through_public_names():
    assert layering_problems(graph()) == []


def test_converter_root_holds_the_entry_points_only():
    root = ROOT / "analysis" / "convert"
    assert {p.stem for p in root.glob("*.py")} - {"__init__"} == ENTRY_MODULES
    assert {p.name for p in root.iterdir() if (p / "__init__.py").exists()} == set(LAYERS)
    for package in LAYERS:  # each says in one line what it owns
        doc = ast.get_docstring(ast.parse((root / package / "__init__.py").read_text()))
        assert doc and "\n" not in doc.strip(), package


def test_the_checks_see_a_circle_a_wrong_way_import_and_an_internal(tmp_path):
    """The same checks on a small made-up tree: they must report what they exist to catch."""
    files = {
        "analysis/__init__.py": "",
        "analysis/convert/__init__.py": "from .engine import run\n",
        "analysis/convert/engine.py": "from .core.names import spell\n",
        "analysis/convert/core/__init__.py": '"""Core."""\n',
        "analysis/convert/core/names.py": "def spell():\n    from ..tensors.methods import _hidden\n",
        "analysis/convert/tensors/__init__.py": '"""Tensors."""\n',
        "analysis/convert/tensors/methods.py": "from ..core import names\n_hidden = 1\n",
        "analysis/convert/apis/__init__.py": "",
        "analysis/convert/apis/calls.py": "from .. import engine\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    edges = graph(tmp_path)
    assert cycles(edges) == [["analysis.convert.core.names", "analysis.convert.tensors.methods"]]
    assert layering_problems(edges) == [
        "analysis.convert.apis.calls imports analysis.convert.engine: a concern imports the package root",
        "analysis.convert.core.names imports analysis.convert.tensors.methods: core/ sits below tensors/",
        "analysis.convert.core.names imports analysis.convert.tensors.methods._hidden: an internal of tensors/",
    ]
