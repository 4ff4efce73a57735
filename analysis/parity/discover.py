"""Find candidate entry points without running user code: classes whose bases
lead to nn.Module, from a static scan of the original tree. Whether each can be
built with defaults and fed an inferred input is settled in the sandbox."""
from __future__ import annotations

import ast
import operator
from pathlib import Path

from analysis.scan.guard import source_problem

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
        if path.is_symlink():
            continue  # never read (rglob enters no linked folder)
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


def _is_module_base(base: str, torch_nn_names: set[str], module_classes: set[str]) -> bool:
    """nn.Module itself, any class of torch.nn (nn.Transformer, nn.Sequential...),
    or a class of the tree already known to be a module."""
    return (base in MODULE_BASES or base.startswith(("nn.", "torch.nn.")) or base in torch_nn_names
            or base.rsplit(".", 1)[-1] in module_classes)


def _torch_nn_imports(tree: ast.Module) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("torch.nn"):
            names.update(a.asname or a.name for a in node.names)
    return names


class _Literals:
    """Module-level `name = literal` assignments of one file, to read call
    sites such as `NeuralNet(input_size, hidden_size, num_classes)`; with
    `configs`, the parameters of the enclosing function bound to a config
    dataclass, so `LayerNorm(config.n_embd, bias=config.bias)` reads the
    fields' defaults."""

    def __init__(self, tree: ast.Module) -> None:
        self.configs: dict[str, tuple[str, dict]] = {}  # parameter -> (config 'module:Name', field defaults)
        self.config_read = ""  # the config whose field defaults a call site's arguments read
        self.values: dict[str, object] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                try:
                    self.values[node.targets[0].id] = ast.literal_eval(node.value)
                except (ValueError, SyntaxError, TypeError):
                    self.values.pop(node.targets[0].id, None)

    def value(self, node: ast.AST, classes: dict[str, str]):
        """A literal, a module-level constant, a class of the tree (as
        {"class": ...}) or a call of one with such arguments (as {"call": ...});
        raises ValueError otherwise."""
        if isinstance(node, ast.Name) and node.id in self.configs:
            return {"call": self.configs[node.id][0]}
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in self.configs:
            fields = self.configs[node.value.id][1]
            if node.attr not in fields:
                raise ValueError(f"no literal default for {node.attr}")
            self.config_read = self.configs[node.value.id][0]
            return fields[node.attr]
        if isinstance(node, (ast.BinOp, ast.UnaryOp)) and self.configs:
            return _arithmetic(node, lambda n: self.value(n, classes))
        if isinstance(node, ast.Name) and node.id in self.values:
            return self.values[node.id]
        if isinstance(node, ast.Name) and node.id in classes:
            return {"class": classes[node.id]}
        if isinstance(node, ast.Call) and _dotted(node.func).rsplit(".", 1)[-1] in classes:
            args, kwargs = self.arguments(node, classes)
            return {"call": classes[_dotted(node.func).rsplit(".", 1)[-1]],
                    **({"args": args} if args else {}), **({"kwargs": kwargs} if kwargs else {})}
        if isinstance(node, (ast.List, ast.Tuple)):
            return [self.value(e, classes) for e in node.elts]
        return ast.literal_eval(node)

    def arguments(self, call: ast.Call, classes: dict[str, str]) -> tuple[list, dict]:
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            raise ValueError("unpacked arguments")
        return ([self.value(a, classes) for a in call.args],
                {k.arg: self.value(k.value, classes) for k in call.keywords})


_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
              ast.Div: operator.truediv, ast.Mod: operator.mod, ast.USub: operator.neg, ast.UAdd: operator.pos}


def _arithmetic(node: ast.AST, value):
    """`4 * config.n_embd`, `config.n_embd // config.n_head`: numbers only, else ValueError."""
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _arithmetic(node.left, value), _arithmetic(node.right, value)
        return _OPERATORS[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_arithmetic(node.operand, value))
    result = value(node)
    if isinstance(result, bool) or not isinstance(result, (int, float)):
        raise ValueError("not a number")
    return result


SHAPE_CALLS = {"randn", "rand", "zeros", "ones", "empty"}


def _shape_hints(tree: ast.Module) -> list[list[int]]:
    """Literal tensor shapes of torch.randn(1, 3, 32, 32)-like calls (3 dims or more,
    or 2): what the repository itself feeds its models in demos and tests."""
    hints = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _dotted(node.func) in {f"torch.{n}" for n in SHAPE_CALLS}:
            args = node.args[0].elts if len(node.args) == 1 and isinstance(node.args[0], (ast.Tuple, ast.List)) \
                else node.args
            try:
                shape = [int(ast.literal_eval(a)) for a in args]
            except (ValueError, SyntaxError, TypeError):
                continue
            if 2 <= len(shape) <= 5 and all(0 < d <= 4096 for d in shape) and shape not in hints:
                hints.append(shape)
    return hints


def _dataclass_defaults(node: ast.ClassDef) -> bool:
    """A @dataclass whose every field has a default: buildable with no arguments."""
    if not any(_dotted(d).endswith("dataclass") or (isinstance(d, ast.Call) and _dotted(d.func).endswith("dataclass"))
               for d in node.decorator_list):
        return False
    fields = [b for b in node.body if isinstance(b, ast.AnnAssign)]
    return bool(fields) and all(f.value is not None for f in fields)


def _field_defaults(node: ast.ClassDef) -> dict[str, object]:
    """The literal defaults of a config dataclass's fields (a computed default is left out)."""
    out = {}
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and item.value is not None:
            try:
                out[item.target.id] = ast.literal_eval(item.value)
            except (ValueError, SyntaxError, TypeError):
                continue
    return out


def _scoped_calls(tree: ast.Module):
    """(call, enclosing function, its class) for every call of the file (None outside them)."""
    def walk(node, function, owner):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield from walk(child, child, owner if function is None else None)
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, None, child)
            else:
                if isinstance(child, ast.Call):
                    yield child, function, owner
                yield from walk(child, function, owner)
    yield from walk(tree, None, None)


def _config_parameters(function, owner, mod: str, configs: dict) -> dict[str, tuple[str, dict]]:
    """Parameters of the enclosing function bound to a config dataclass: annotated with one
    (`config: GPTConfig`), or the single required argument of a module class's __init__ when its
    module defines exactly one config (what discovery builds such a class with)."""
    if function is None:
        return {}
    by_name = {name: (f"{m}:{name}", fields) for (m, name), fields in configs.items()}
    out = {}
    params = function.args.posonlyargs + function.args.args + function.args.kwonlyargs
    for arg in params:
        annotation = _dotted(arg.annotation).rsplit(".", 1)[-1] if arg.annotation is not None else ""
        if annotation in by_name:
            out[arg.arg] = by_name[annotation]
    if not out and owner is not None and function.name == "__init__":
        required = _required_params(owner) or []
        local = [(name, fields) for (m, name), fields in configs.items() if m == mod]
        if len(required) == 1 and len(local) == 1:
            out[required[0]] = (f"{mod}:{local[0][0]}", local[0][1])
    return out


def _required_params(node: ast.ClassDef) -> list[str] | None:
    init = next((b for b in node.body if isinstance(b, ast.FunctionDef) and b.name == "__init__"), None)
    if init is None:
        return None  # inherited: unknown here
    args = init.args
    positional = args.posonlyargs + args.args
    required = [a.arg for a in positional[1:len(positional) - len(args.defaults)]]
    required += [a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]
    return required


def candidates(root: Path) -> list[dict]:
    """[{module, class, name, line, ...}] for every class deriving (directly,
    through a torch.nn class, or via another class of the tree) from
    nn.Module, plus factory functions returning one. Each carries the
    constructor arguments found in the repository: a call site whose
    arguments are literals, constants or classes of the tree, else a config
    dataclass of the same module built with its defaults."""
    parsed: list[tuple[str, ast.Module]] = []
    for path in python_files(root):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
            if source_problem(text) is not None:  # nested too deeply for the parsers and walkers below
                continue
            parsed.append((module_name(root, path), ast.parse(text)))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    classes: list[tuple[str, ast.ClassDef]] = []
    nn_names: dict[str, set[str]] = {}
    for mod, tree in parsed:
        nn_names[mod] = _torch_nn_imports(tree)
        classes += [(mod, node) for node in tree.body if isinstance(node, ast.ClassDef)]
    module_classes: set[str] = set()
    changed = True
    while changed:  # inheritance through the tree's own classes
        changed = False
        for mod, node in classes:
            if node.name not in module_classes and any(
                    _is_module_base(_dotted(b), nn_names[mod], module_classes) for b in node.bases):
                module_classes.add(node.name)
                changed = True
    found = [(mod, node) for mod, node in classes if node.name in module_classes]
    configs = {(mod, node.name): _field_defaults(node) for mod, node in classes if _dataclass_defaults(node)}
    entries = []
    for mod, node in found:
        entry = {"module": mod, "class": node.name, "name": node.name, "line": node.lineno, "discovered": True}
        _arguments_from_repo(entry, node, parsed, module_classes, configs)
        entries.append(entry)
    for mod, tree in parsed:
        hints = _shape_hints(tree)
        for entry in entries:
            if entry["module"] == mod and hints:
                entry["shape_hints"] = hints
        entries += _factories(mod, tree, module_classes, hints)
    return entries


def _class_refs(mod: str, tree: ast.Module, parsed, module_classes: set[str]) -> dict[str, str]:
    """Class names usable in this file's call sites -> 'module:Name'."""
    defined = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    refs = {name: f"{mod}:{name}" for name in defined}
    for other, other_tree in parsed:  # imported from elsewhere in the tree, by name
        for node in other_tree.body:
            if isinstance(node, ast.ClassDef) and node.name not in refs and node.name in module_classes:
                refs[node.name] = f"{other}:{node.name}"
    return refs


def _arguments_from_repo(entry: dict, node: ast.ClassDef, parsed, module_classes: set[str], configs) -> None:
    required = _required_params(node)
    if not required:
        return
    for mod, tree in parsed:
        literals = None
        for call, function, owner in _scoped_calls(tree):
            if _dotted(call.func).rsplit(".", 1)[-1] != node.name:
                continue
            literals = literals or _Literals(tree)
            literals.configs, literals.config_read = _config_parameters(function, owner, mod, configs), ""
            try:
                args, kwargs = literals.arguments(call, _class_refs(mod, tree, parsed, module_classes))
            except (ValueError, SyntaxError, TypeError, ArithmeticError):
                continue
            if len(args) + len(kwargs) < len(required):
                continue
            where = f"{mod.replace('.', '/')}.py:{call.lineno}"
            if literals.config_read:
                where += f" with {literals.config_read.split(':')[1]}()'s field defaults"
            entry.update(args=args, kwargs=kwargs, arguments_from=where)
            return
    config = [name for m, name in configs if m == entry["module"]]
    if len(required) == 1 and len(config) == 1:
        entry.update(kwargs={required[0]: {"call": f"{entry['module']}:{config[0]}"}},
                     arguments_from=f"{config[0]}() with its defaults")


def _factories(mod: str, tree: ast.Module, module_classes: set[str], hints) -> list[dict]:
    """Module-level functions without required arguments whose return value is
    a call of a module class (`def ResNet18(): return ResNet(BasicBlock, [2, 2, 2, 2])`)."""
    out = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
            continue
        args = node.args
        if len(args.posonlyargs + args.args) > len(args.defaults) or any(d is None for d in args.kw_defaults):
            continue
        returns = [r.value for r in ast.walk(node) if isinstance(r, ast.Return) and isinstance(r.value, ast.Call)]
        built = next((_dotted(r.func).rsplit(".", 1)[-1] for r in returns
                      if _dotted(r.func).rsplit(".", 1)[-1] in module_classes), None)
        if built:
            entry = {"module": mod, "class": built, "factory": node.name, "name": f"{node.name}()",
                     "line": node.lineno, "discovered": True}
            if hints:
                entry["shape_hints"] = hints
            out.append(entry)
    return out
