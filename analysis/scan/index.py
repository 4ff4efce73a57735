"""The project index: what one upload defines, known before any file is analysed.

Built with the stdlib ``ast`` (a fraction of libcst's cost) so the lead can
build it cheaply for a whole upload. It records, per repo-local module, the
classes it defines with their base expressions resolved through that module's
imports, and the names it re-exports; ``is_module_subclass`` then answers
"is this repo class an nn.Module (directly or through other repo classes)?"
across files.
"""
from __future__ import annotations

import ast
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from analysis.links import read_regular

TORCH_ROOTS = ("torch", "torchvision", "torchaudio", "torchtext")

# Bases that make a class a PyTorch module / dataset / autograd function.
MODULE_BASES_PREFIX = "torch.nn."
DATASET_BASES = {"torch.utils.data.Dataset", "torch.utils.data.IterableDataset", "torch.utils.data.dataset.Dataset"}
FUNCTION_BASES = {"torch.autograd.Function", "torch.autograd.function.Function"}


def is_torch_name(qualified: str) -> bool:
    head = qualified.split(".", 1)[0]
    return head in TORCH_ROOTS


def module_name_for(rel_path: str) -> str:
    parts = rel_path.replace("\\", "/").removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(p for p in parts if p)


def resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    """Absolute dotted name of ``from <level dots><target> import ...`` inside ``module``."""
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)] if level - 1 <= len(parts) else []
    if target:
        parts.append(target)
    return ".".join(parts)


@dataclass
class ModuleInfo:
    name: str
    path: str
    classes: dict[str, list[str]] = field(default_factory=dict)  # class -> qualified bases
    imports: dict[str, str] = field(default_factory=dict)  # local name -> qualified name


@dataclass
class ProjectIndex:
    """Repo-local modules and classes of one upload (JSON-able, picklable)."""

    modules: dict[str, ModuleInfo] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)  # short module name -> full name

    # ---- queries -------------------------------------------------------------
    def module(self, name: str) -> ModuleInfo | None:
        info = self.modules.get(name)
        if info is None and name in self.aliases:
            info = self.modules.get(self.aliases[name])
        return info

    def resolve(self, qualified: str, _depth: int = 0) -> str:
        """Follow re-exports: ``models.MLP`` -> ``models.mlp.MLP``."""
        if _depth > 8 or "." not in qualified:
            return qualified
        mod, _, name = qualified.rpartition(".")
        info = self.module(mod)
        if info is None:
            return qualified
        if name in info.classes:
            return f"{info.name}.{name}"
        target = info.imports.get(name)
        if target and target != qualified:
            return self.resolve(target, _depth + 1)
        return qualified

    def class_bases(self, qualified: str) -> list[str] | None:
        qualified = self.resolve(qualified)
        mod, _, name = qualified.rpartition(".")
        info = self.module(mod)
        if info is None or name not in info.classes:
            return None
        return info.classes[name]

    def base_kind(self, qualified: str, _seen: frozenset = frozenset()) -> str | None:
        """'module' | 'dataset' | 'function' when the repo class derives from such a torch class."""
        if qualified in _seen or len(_seen) > 16:
            return None
        bases = self.class_bases(qualified)
        if not bases:
            return None
        for base in bases:
            kind = torch_base_kind(base)
            if kind is None and not is_torch_name(base):
                kind = self.base_kind(base, _seen | {qualified})
            if kind:
                return kind
        return None

    def is_module_subclass(self, qualified: str) -> bool:
        return self.base_kind(qualified) == "module"

    # ---- serialisation -------------------------------------------------------
    def to_dict(self) -> dict:
        return {"modules": {k: asdict(v) for k, v in self.modules.items()}, "aliases": dict(self.aliases)}

    @classmethod
    def from_dict(cls, data: dict) -> "ProjectIndex":
        return cls(
            modules={k: ModuleInfo(**v) for k, v in data.get("modules", {}).items()},
            aliases=dict(data.get("aliases", {})),
        )

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)


def torch_base_kind(base: str) -> str | None:
    if base in DATASET_BASES or base.startswith("torch.utils.data.") and base.endswith("Dataset"):
        return "dataset"
    if base in FUNCTION_BASES:
        return "function"
    if base.startswith(MODULE_BASES_PREFIX) and base.rsplit(".", 1)[-1][:1].isupper():
        # nn.Module and every concrete layer class subclass Module.
        if not base.startswith(("torch.nn.functional.", "torch.nn.init.", "torch.nn.utils.")):
            return "module"
    return None


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else None
    return None


def scan_module_ast(tree: ast.Module, module: str, rel_path: str) -> ModuleInfo:
    info = ModuleInfo(name=module, path=rel_path)
    is_package = rel_path.endswith("__init__.py")
    for node in tree.body:  # top level only: what other files can import
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    info.imports[alias.asname] = alias.name
                else:
                    head = alias.name.split(".", 1)[0]
                    info.imports[head] = head
        elif isinstance(node, ast.ImportFrom):
            base = resolve_relative(module, is_package, node.level, node.module) if node.level else (node.module or "")
            for alias in node.names:
                if alias.name != "*":
                    info.imports[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            bases = []
            for b in node.bases:
                dotted = _dotted(b)
                if dotted is None:
                    continue
                head, _, rest = dotted.partition(".")
                if head in info.imports:
                    bases.append(info.imports[head] + ("." + rest if rest else ""))
                else:
                    bases.append(f"{module}.{dotted}" if module else dotted)
            info.classes[node.name] = bases
    return info


def build_project_index(root: Path, rel_paths: list[str]) -> ProjectIndex:
    """Index the repo-local classes and re-exports of the given ``.py`` files under ``root``."""
    index = ProjectIndex()
    for rel in rel_paths:
        if not rel.endswith(".py"):
            continue
        try:
            source = read_regular(Path(root) / rel)
            tree = ast.parse(source)
        except (OSError, SyntaxError, ValueError, MemoryError, RecursionError):
            continue
        name = module_name_for(rel)
        index.modules[name] = scan_module_ast(tree, name, rel)
    # Let "pkg.mod" also be found as "mod" (src/ layouts, scripts run from a sub-folder).
    for name in sorted(index.modules, key=lambda n: n.count(".")):
        parts = name.split(".")
        for i in range(1, len(parts)):
            index.aliases.setdefault(".".join(parts[i:]), name)
    return index
