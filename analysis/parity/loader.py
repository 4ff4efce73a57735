"""Load one class (or factory function) from an uploaded tree, in the sandboxed
child, the way real repositories need:

- the module's own top-level *work* is skipped: a training script defines its
  model and then trains it at import time; only imports, definitions,
  assignments and conditionals run, each on its own, so one failing statement
  (a dataset download, `args = parser.parse_args()`) costs only what depends
  on it;
- `sys.argv` is the script alone while it loads, and import-time argparse
  returns every option's default (required ones None) instead of exiting;
- third-party modules that do not import here (torchvision beside this torch,
  matplotlib not installed...) are replaced by stubs, and named in the report.
"""
from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import re
import sys
import types
from pathlib import Path

KEEP = (ast.Import, ast.ImportFrom, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef, ast.Assign,
        ast.AnnAssign, ast.AugAssign, ast.If, ast.Try)


# The stubs called, by dotted name, in this process (one box per entry point): a model-zoo
# constructor among them (torchvision.models.resnet152) says what a person must write.
CALLED: list[str] = []


class _StubMeta(type):
    def __getattr__(cls, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return stub_class(f"{cls.__name__}.{name}")

    def __call__(cls, *args, **kwargs):
        if len(CALLED) < 1000 and cls.__name__ not in CALLED:
            CALLED.append(cls.__name__)
        return super().__call__()


class _Stub(metaclass=_StubMeta):
    """Stands in for anything from a module that could not be imported."""

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return stub_class(f"{type(self).__name__}.{name}")()

    def __call__(self, *args, **kwargs):
        return type(self)()

    def __iter__(self):
        return iter(())

    def __len__(self) -> int:
        return 0


def stub_class(name: str) -> type:
    return _StubMeta(name, (_Stub,), {"__module__": "stub"})


class StubModule(types.ModuleType):
    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return stub_class(f"{self.__name__}.{name}")


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on sys.meta_path: a module nothing else found (or one listed as
    broken, and its submodules) becomes a stub instead of an ImportError."""

    def __init__(self, local_roots: set[str], folders: list[Path]) -> None:
        self.local_roots = local_roots
        self.folders = [str(f) for f in folders]
        self.broken: set[str] = set()
        self.stubbed: list[str] = []

    def find_spec(self, fullname, path=None, target=None):
        root = fullname.split(".")[0]
        if root in self.local_roots or not self._from_the_tree():
            return None  # libraries' own optional imports keep their ImportError
        if root not in self.broken and any(f.find_spec(fullname, path) for f in _real_finders(self)):
            return None
        if root not in self.stubbed:
            self.stubbed.append(root)
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def _from_the_tree(self) -> bool:
        """Whether the import statement being run is in the uploaded tree (or
        in a stub's submodule import)."""
        frame = sys._getframe(2)
        while frame is not None:
            filename = frame.f_code.co_filename
            if not filename.startswith("<frozen") and "importlib" not in filename:
                return any(filename.startswith(folder) for folder in self.folders)
            frame = frame.f_back
        return False

    def create_module(self, spec):
        module = StubModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module) -> None:
        return None


def _real_finders(stub_finder):
    return [f for f in sys.meta_path if f is not stub_finder and hasattr(f, "find_spec")]


def _third_party_roots(path: Path, local_roots: set[str]) -> list[str]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError):
        return []
    roots = []
    for node in ast.walk(tree):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else [])
        for name in names:
            root = name.split(".")[0]
            if root not in local_roots and root not in roots and root not in sys.builtin_module_names:
                roots.append(root)
    return roots


def _mark_broken(roots: list[str], finder: _StubFinder) -> None:
    """Try each third-party module the file imports; one that raises on import
    (not just "not found": torchvision fails with a RuntimeError here) is
    stubbed from now on."""
    for root in roots:
        if root in sys.modules:
            continue
        try:
            importlib.import_module(root)
        except Exception:  # any import-time failure of a library the model may not need
            for name in [n for n in sys.modules if n == root or n.startswith(root + ".")]:
                del sys.modules[name]
            finder.broken.add(root)


def is_file_module(module: str) -> bool:
    """A module named by its file ("1-1.Basics/model.py"): what discovery and
    manifests use where a folder or file name is not a Python identifier."""
    return module.endswith(".py") or "/" in module


def module_file(tree: Path, module: str) -> Path | None:
    if is_file_module(module):
        candidate = tree / module
        if ".." in Path(module).parts or not candidate.is_file():
            return None
        return candidate
    base = tree.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def import_name(module: str) -> str:
    """The sys.modules name a module is loaded under: its dotted name, or for
    a file-named module one that no library or sibling import can collide
    with (its stem may be `copy`, `types`, `model`...)."""
    if not is_file_module(module) and all(part.isidentifier() for part in module.split(".")):
        return module
    return "_parity_file_" + re.sub(r"\W", "_", module)


def _local_roots(tree: Path, script_dir: Path) -> set[str]:
    roots = set()
    for folder in {tree, script_dir}:
        try:
            for child in folder.iterdir():
                if child.suffix == ".py":
                    roots.add(child.stem)
                elif child.is_dir():
                    roots.add(child.name)
        except OSError:
            pass
    return roots


def _main_guard(node: ast.stmt) -> bool:
    return (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__")


# Top-level calls that set things up rather than do work (parser.add_argument,
# sys.path.append, torch.manual_seed): kept; any other bare call is skipped.
SETUP_CALLS = {"add_argument", "add_argument_group", "add_mutually_exclusive_group", "set_defaults", "append",
               "extend", "insert", "update", "setdefault", "register", "manual_seed", "seed", "filterwarnings",
               "simplefilter", "basicConfig", "setLevel", "add_module", "register_buffer"}


def _setup_call(node: ast.stmt) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute) and node.value.func.attr in SETUP_CALLS)


def _lenient_parse_args(self, args=None, namespace=None):
    """parse_args at import time: no command line, every option its default
    (required ones None), never SystemExit."""
    for action in self._actions:
        action.required = False
    try:
        return self.parse_known_args([], namespace)[0]
    except SystemExit:
        import argparse

        return argparse.Namespace(**{a.dest: a.default for a in self._actions if a.dest != "help"})


def _exec_trimmed(module: types.ModuleType, path: Path, notes: list[str]) -> None:
    import argparse

    source = path.read_text(encoding="utf-8", errors="replace")
    tree = ast.parse(source, filename=str(path))
    saved = argparse.ArgumentParser.parse_args
    argparse.ArgumentParser.parse_args = _lenient_parse_args
    try:
        _exec_statements(module, path, tree, notes)
    finally:
        argparse.ArgumentParser.parse_args = saved


def _exec_statements(module: types.ModuleType, path: Path, tree: ast.Module, notes: list[str]) -> None:
    for node in tree.body:
        if not (isinstance(node, KEEP) or _setup_call(node)) or _main_guard(node):
            continue
        code = compile(ast.Module(body=[node], type_ignores=[]), str(path), "exec")
        try:
            exec(code, module.__dict__)  # noqa: S102  (user code, in the sandboxed child)
        except PermissionError:  # a sandbox refusal is an answer, not a skippable statement
            raise
        except (Exception, SystemExit) as exc:  # one statement's failure costs only what depends on it
            notes.append(f"line {node.lineno}: {type(exc).__name__}: {str(exc)[:160]}")


def load(tree: str, module: str, name: str) -> tuple[object, dict]:
    """The attribute `name` of `module` in `tree`, and notes for the report
    ({"stubbed_modules", "skipped_statements"})."""
    root = Path(tree)
    path = module_file(root, module)
    script_dir = path.parent if path is not None else root
    finder = _StubFinder(_local_roots(root, script_dir), [root, script_dir])
    notes: list[str] = []
    extra_paths = [str(root)] + ([str(script_dir)] if script_dir != root else [])
    saved_argv = sys.argv
    sys.path[:0] = extra_paths
    sys.meta_path.insert(0, finder)  # first: a broken library must not reach its real finder
    sys.argv = [str(path or root)]
    try:
        if path is not None:
            _mark_broken(_third_party_roots(path, finder.local_roots), finder)
        name_here = import_name(module)
        if "." in module and name_here == module:
            importlib.import_module(module.rsplit(".", 1)[0])  # parent packages, for relative imports
        mod = sys.modules.get(name_here)
        if mod is None and path is not None:
            spec = importlib.util.spec_from_file_location(
                name_here, path,
                submodule_search_locations=[str(path.parent)] if path.name == "__init__.py" else None)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[name_here] = mod
            _exec_trimmed(mod, path, notes)
        elif mod is None and is_file_module(module):
            raise ImportError(f"no file {module} in the tree")
        elif mod is None:
            mod = importlib.import_module(module)
        found = getattr(mod, name, None)
        if found is None:
            why = f"; statements that failed while loading it: {'; '.join(notes[:3])}" if notes else ""
            raise AttributeError(f"module {module} has no {name}{why}")
        return found, {"stubbed_modules": list(finder.stubbed), "skipped_statements": notes}
    finally:
        sys.argv = saved_argv
        sys.meta_path.remove(finder)
        for stale in [n for n, m in sys.modules.items() if isinstance(m, StubModule)]:
            del sys.modules[stale]  # the next load names its own stubs
        for p in extra_paths:
            if p in sys.path:
                sys.path.remove(p)
