"""Which class a call builds, resolved through the imports of the file that
makes it (never by class name alone: a repository may define twelve `ViT`s),
and the repository's own example inputs next to it. Call sites come from the
modules, the tests (`tests/`, `test_*.py`) and the README's Python blocks;
nothing is run."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from . import statics

PYTHON_FENCES = {"python", "py", "python3", ""}
MAX_PARAMETRIZED = 4  # values of one pytest parametrize tried as separate call sites


@dataclass
class Source:
    """One parsed file: a module of the tree (`module` set) or a call-site-only
    file (a test, a README block)."""
    rel: str  # the file's path in the tree ("README.md" for its blocks)
    tree: ast.Module
    module: str | None = None
    options: dict = field(default_factory=dict)


def readme_blocks(text: str) -> list[ast.Module]:
    """The Python blocks of a README that parse (fenced ```python, ```py or
    bare), with the README's own line numbers."""
    blocks, lines, start, language = [], [], None, ""
    for number, line in enumerate(text.splitlines(), 1):
        fence = line.strip().startswith("```")
        if start is None and fence:
            start, language, lines = number, line.strip()[3:].strip().lower(), []
        elif start is not None and fence:
            if language in PYTHON_FENCES:
                try:
                    block = ast.parse("\n".join(lines))
                    ast.increment_lineno(block, start)
                    blocks.append(block)
                except (SyntaxError, ValueError, RecursionError):
                    pass
            start = None
        elif start is not None:
            lines.append(line)
    return blocks


class Resolver:
    """Names bound in each file -> ('class', 'mod:Name') or ('module', mod)
    or ('package', 'folder'), following `from x import y` chains (re-exports
    through __init__) across the tree."""

    def __init__(self, sources: list[Source]) -> None:
        self.by_path = {s.rel: s for s in sources if s.module is not None}
        self.by_module = {s.module: s for s in sources if s.module is not None}
        self.folders = {str(PurePosixPath(rel).parent) for rel in self.by_path}
        for rel in list(self.folders):
            parts = PurePosixPath(rel).parts
            self.folders.update(str(PurePosixPath(*parts[:i])) for i in range(1, len(parts)))
        self._bindings: dict[str, dict] = {}

    def _module_at(self, path: PurePosixPath):
        key = path.as_posix()
        for candidate in (f"{key}.py", f"{key}/__init__.py"):
            if candidate in self.by_path:
                return ("module", self.by_path[candidate].module)
        if key in self.folders:
            return ("package", key)
        return None

    def module_ref(self, importer: str, name: str | None, level: int):
        """What `import name` / `from .name` means in the file `importer`: the
        tree root and the importer's folder are both on the path (scripts
        import their siblings by plain name)."""
        folder = PurePosixPath(importer).parent
        tail = PurePosixPath(*name.split(".")) if name else None
        if level:
            base = folder
            for _ in range(level - 1):
                base = base.parent
            return self._module_at(base / tail) if tail else ("package", base.as_posix())
        if tail is None:
            return None
        for base in (PurePosixPath("."), folder):
            found = self._module_at(base / tail if base.as_posix() != "." else tail)
            if found:
                return found
        return None

    def bindings(self, source: Source) -> dict:
        key = source.module if source.module is not None else f"{source.rel}#{id(source)}"  # README blocks share a rel
        if key in self._bindings:
            return self._bindings[key]
        table: dict = {}
        self._bindings[key] = table  # an import cycle sees what is bound so far
        if source.module is not None:
            for node in source.tree.body:
                if isinstance(node, ast.ClassDef):
                    table[node.name] = ("class", f"{source.module}:{node.name}")
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    table[node.name] = ("function", f"{source.module}:{node.name}")
        for node in ast.walk(source.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    ref = self.module_ref(source.rel, alias.name, 0)
                    if ref is None:
                        continue
                    if alias.asname:
                        table[alias.asname] = ref
                    else:
                        top = self.module_ref(source.rel, alias.name.split(".")[0], 0)
                        if top is not None:
                            table[alias.name.split(".")[0]] = top
            elif isinstance(node, ast.ImportFrom):
                ref = self.module_ref(source.rel, node.module, node.level)
                if ref is None:
                    continue
                for alias in node.names:
                    if alias.name == "*":
                        if ref[0] == "module":
                            inner = self.bindings(self.by_module[ref[1]])
                            table.update({k: v for k, v in inner.items() if not k.startswith("_")})
                        continue
                    found = self.member(ref, alias.name)
                    if found is not None:
                        table[alias.asname or alias.name] = found
        return table

    def member(self, ref, name: str):
        """`name` looked up in a module (its bindings) or package (a submodule)."""
        kind, where = ref
        if kind == "module":
            source = self.by_module[where]
            found = self.bindings(source).get(name)
            if found is not None:
                return found
            if source.rel.endswith("__init__.py"):
                return self._module_at(PurePosixPath(source.rel).parent / name)
            return None
        if kind == "package":
            return self._module_at(PurePosixPath(where) / name)
        return None

    def resolve(self, node: ast.AST, table: dict):
        """The binding an expression (`Net`, `models.Net`, `m.sub.Net`) names, or None."""
        if isinstance(node, ast.Name):
            return table.get(node.id)
        if isinstance(node, ast.Attribute):
            owner = self.resolve(node.value, table)
            return self.member(owner, node.attr) if owner is not None and owner[0] != "class" else None
        return None


TENSOR_MAKERS = {"randn": "float32", "rand": "float32", "zeros": "float32", "ones": "float32", "empty": "float32",
                 "randint": "int64", "full": "float32"}
DTYPE_NAMES = {"float32": "float32", "float": "float32", "float64": "float64", "double": "float64",
               "float16": "float16", "half": "float16", "int64": "int64", "long": "int64", "int32": "int32",
               "int": "int32", "bool": "bool"}
FILLS = {"ones": 1, "zeros": 0}
CAST_METHODS = {"float": "float32", "double": "float64", "half": "float16", "long": "int64", "int": "int32",
                "bool": "bool"}


# Calls that give back a tensor of the same shape and dtype (in-place fills, copies).
SAME_TENSOR = {"normal_", "uniform_", "fill_", "zero_", "random_", "bernoulli_", "requires_grad_", "detach",
               "clone", "contiguous"}
REFILLS = {"normal_", "uniform_", "random_", "bernoulli_", "fill_", "zero_"}
PARAMETER_WRAPPERS = {"nn.Parameter", "torch.nn.Parameter", "Parameter", "Variable", "torch.autograd.Variable"}


def tensor_spec(node: ast.AST, env: dict, options: dict, names: dict) -> dict | None:
    """{shape, dtype[, range]} of `torch.randn(2, 3)`, `torch.randint(0, 10, (1, 8))`,
    `torch.ones(1, 8).bool()`, or of a name bound to one earlier in the scope."""
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in SAME_TENSOR:  # `torch.zeros(512).normal_(0, 1e-2)`
        inner = tensor_spec(func.value, env, options, names)
        if inner is None or func.attr not in REFILLS:
            return inner
        spec = {k: v for k, v in inner.items() if k != "fill"}  # drawn again in place: no longer that constant
        value = 0 if func.attr == "zero_" else None
        if func.attr == "fill_" and node.args:
            try:
                value = statics.evaluate(node.args[0], env, options)
            except (ValueError, TypeError, KeyError, IndexError, ArithmeticError):
                value = None
        if isinstance(value, (int, float)):
            spec["fill"] = value
        return spec
    if statics._dotted(func) in PARAMETER_WRAPPERS and len(node.args) == 1:  # `nn.Parameter(torch.randn(8))`
        return tensor_spec(node.args[0], env, options, names)
    if isinstance(func, ast.Attribute) and func.attr in CAST_METHODS | {"to": "", "cuda": "", "cpu": ""}:
        inner = tensor_spec(func.value, env, options, names)
        if inner is None:
            return None
        dtype = CAST_METHODS.get(func.attr)
        if func.attr == "to":
            dtype = next((DTYPE_NAMES.get(a.attr) for a in node.args if isinstance(a, ast.Attribute)), None)
        return dict(inner, dtype=dtype) if dtype else inner
    maker = statics._dotted(func)
    if not maker.startswith("torch.") or maker.split(".", 1)[1] not in TENSOR_MAKERS:
        return None
    kind = maker.split(".", 1)[1]
    try:
        args = [statics.evaluate(a, env, options) for a in node.args if not isinstance(a, ast.Starred)]
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        if kind == "randint":
            size = args[-1] if args else statics.evaluate(keywords["size"], env, options)
            bounds = args[:-1] if args else []
            low, high = (0, bounds[0]) if len(bounds) == 1 else (bounds[0], bounds[1]) if bounds else (0, 2)
            spec = {"shape": [int(d) for d in size], "dtype": "int64", "range": [int(low), int(high)]}
        else:
            if kind == "full":
                args = args[:1]
            shape = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
            if "size" in keywords:
                shape = list(statics.evaluate(keywords["size"], env, options))
            spec = {"shape": [int(d) for d in shape], "dtype": TENSOR_MAKERS[kind]}
            # A constant stays that constant (an all-ones mask drawn as random booleans is another input).
            fill = FILLS.get(kind)
            if kind == "full":
                value = node.args[1] if len(node.args) > 1 else keywords.get("fill_value")
                fill = statics.evaluate(value, env, options) if value is not None else None
            if isinstance(fill, (int, float)):
                spec["fill"] = fill
        dtype = keywords.get("dtype")
        if isinstance(dtype, ast.Attribute) and dtype.attr in DTYPE_NAMES:
            spec["dtype"] = DTYPE_NAMES[dtype.attr]
    except (ValueError, TypeError, KeyError, IndexError, ArithmeticError):
        return None
    if not spec["shape"] or len(spec["shape"]) > 6 or not all(0 < d <= 65536 for d in spec["shape"]):
        return None
    return spec


@dataclass
class Site:
    """One call that builds a class of the tree, with the scope's values."""
    source: Source
    call: ast.Call
    function: ast.AST | None
    owner: ast.ClassDef | None
    env: dict
    table: dict
    label: str = ""  # "parametrized inverted_cross_attn=True" and the like
    inputs: list | None = None  # example inputs fed to the object it builds, in that scope


def _parametrized(function: ast.AST, env: dict, options: dict) -> list[tuple[str, dict]]:
    """(label, values) per case of `@pytest.mark.parametrize('a', [...])` (or
    'a,b' with tuples); one empty case when undecorated."""
    cases: list[tuple[str, dict]] = [("", {})]
    for decorator in getattr(function, "decorator_list", []):
        if not (isinstance(decorator, ast.Call) and statics._dotted(decorator.func).endswith("parametrize")
                and len(decorator.args) >= 2):
            continue
        try:
            names = statics.evaluate(decorator.args[0], env, options)
            values = statics.evaluate(decorator.args[1], env, options)
        except (ValueError, TypeError, KeyError, IndexError, ArithmeticError):
            continue
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        expanded = []
        for label, bound in cases:
            for value in list(values)[:MAX_PARAMETRIZED]:
                row = dict(zip(names, value if len(names) > 1 else [value]))
                text = ", ".join(f"{k}={v!r}" for k, v in row.items())
                expanded.append(((label + "; " if label else "") + text, {**bound, **row}))
        cases = expanded[:MAX_PARAMETRIZED]
    return cases


def _scope_inputs(body_nodes: list[ast.stmt], env: dict, options: dict) -> tuple[dict, dict]:
    """In one scope: name -> tensor spec of `x = torch.randn(...)`, and the calls
    of each name (`out = model(x, mask=m)`)."""
    names: dict = {}
    uses: dict[str, list[ast.Call]] = {}
    for stmt in body_nodes:
        for node in _walk_scope(stmt):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                spec = tensor_spec(node.value, env, options, names)
                if spec is not None:
                    names[node.targets[0].id] = spec
            if isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute) and func.attr == "forward":
                    func = func.value
                if isinstance(func, ast.Name):
                    uses.setdefault(func.id, []).append(node)
    return names, uses


def _walk_scope(node: ast.AST):
    """ast.walk that does not enter nested functions or classes."""
    yield node
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield from _walk_scope(child)


def _inputs_for(call: ast.Call, body: list[ast.stmt], names: dict, uses: dict, env: dict, options: dict):
    """Example inputs of the object `call` builds: the first call of the name it
    is assigned to whose every argument is a known tensor."""
    target = None
    for stmt in body:
        for node in _walk_scope(stmt):
            if isinstance(node, ast.Assign) and node.value is call and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name):
                target = node.targets[0].id
    for use in uses.get(target, []) if target else []:
        specs = [tensor_spec(a, env, options, names) for a in use.args]
        keyword_specs = [(k.arg, tensor_spec(k.value, env, options, names)) for k in use.keywords if k.arg]
        if specs and all(specs) and all(s for _, s in keyword_specs) or (not specs and keyword_specs and
                                                                        all(s for _, s in keyword_specs)):
            return [dict(s) for s in specs] + [dict(s, name=k) for k, s in keyword_specs]
    return None


def sites(sources: list[Source], resolver: Resolver, wanted) -> list[tuple[str, Site]]:
    """(key 'mod:Name', site) for every call whose callee resolves to a class
    or function of the tree that `wanted(key)` accepts, in file order."""
    out = []
    for source in sources:
        table = resolver.bindings(source)
        module_env = statics.scope_values(source.tree.body, {}, source.options)
        scopes = [(None, None, source.tree.body, [("", module_env)])]
        for function, owner in _functions(source.tree):
            base = dict(module_env)
            for arg, default in _defaults(function):
                try:
                    base[arg] = statics.evaluate(default, module_env, source.options)
                except (ValueError, TypeError, KeyError, IndexError, ArithmeticError):
                    pass
            cases = []
            for label, bound in _parametrized(function, module_env, source.options):
                env = statics.scope_values(function.body, {**base, **bound}, source.options)
                cases.append((label, env))
            scopes.append((function, owner, function.body, cases))
        for function, owner, body, cases in scopes:
            calls = [n for stmt in body for n in _walk_scope(stmt) if isinstance(n, ast.Call)]
            for call in calls:
                ref = resolver.resolve(call.func, table)
                if ref is None or ref[0] not in ("class", "function") or not wanted(ref[1]):
                    continue
                for label, env in cases:
                    names, uses = _scope_inputs(body, env, source.options)
                    site = Site(source, call, function, owner, env, table, label,
                                _inputs_for(call, body, names, uses, env, source.options))
                    out.append((ref[1], site))
    return out


def _functions(tree: ast.Module):
    def walk(node, owner):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield child, owner
                yield from walk(child, None)
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, child)
            else:
                yield from walk(child, owner)
    yield from walk(tree, None)


def _defaults(function) -> list[tuple[str, ast.AST]]:
    args = function.args
    positional = args.posonlyargs + args.args
    pairs = list(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
    pairs += [(a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    return pairs
