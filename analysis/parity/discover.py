"""Find candidate entry points without running user code: classes whose bases
lead to nn.Module, from a static scan of the original tree. Whether each can be
built with defaults and fed an inferred input is settled in the sandbox."""
from __future__ import annotations

import ast
import json
import operator
from pathlib import Path

from analysis.scan.guard import source_problem

from . import callsites, sizes, statics

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
    """'models/lenet.py' -> 'models.lenet'; a path with a folder or file name
    that is not an identifier ('1-1.Basics/model.py') stays a path, which the
    loader and manifests take as it is."""
    rel = path.relative_to(root)
    parts = list(rel.with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    if not all(part.isidentifier() for part in parts):
        return rel.as_posix()
    return ".".join(parts)


def dotted(module: str) -> str:
    """The converter's name for a module (its layer map's key): the path with
    dots for slashes, whatever the folder names."""
    if not module.endswith(".py"):
        return module
    parts = module[:-3].split("/")
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def module_path(module: str) -> str:
    """The file of a module name as module_name() writes it."""
    return module if module.endswith(".py") else module.replace(".", "/") + ".py"


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
    """The value of each argument of one call site, from the values its scope
    sets up (statics.scope_values: literals, argparse defaults, config
    objects); a class of the tree the call passes (as {"class": ...}) or builds
    (as {"call": ...}) is resolved through the file's imports; with `configs`,
    the parameters of the enclosing function bound to a config dataclass, so
    `LayerNorm(config.n_embd, bias=config.bias)` reads the fields' defaults."""

    def __init__(self, site, resolver, configs: dict) -> None:
        self.site, self.resolver = site, resolver
        self.configs = configs  # parameter -> (config 'module:Name', field defaults)
        self.config_read = ""  # the config whose field defaults a call site's arguments read
        self._scope_tensors: dict | None = None  # name -> tensor spec in the call's scope, read when needed

    def _tree_class(self, node: ast.AST) -> str | None:
        ref = self.resolver.resolve(node, self.site.table)
        return ref[1] if ref is not None and ref[0] == "class" else None

    def value(self, node: ast.AST):
        """A JSON value for the child; raises ValueError when unknown statically."""
        if isinstance(node, ast.Name) and node.id in self.configs:
            return {"call": self.configs[node.id][0]}
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in self.configs:
            fields = self.configs[node.value.id][1]
            if node.attr not in fields:
                raise ValueError(f"no literal default for {node.attr}")
            self.config_read = self.configs[node.value.id][0]
            return fields[node.attr]
        if isinstance(node, (ast.BinOp, ast.UnaryOp)) and self.configs:
            return _arithmetic(node, self.value)
        if isinstance(node, ast.Name) and node.id not in self.site.env and self._tree_class(node):
            return {"class": self._tree_class(node)}
        if isinstance(node, ast.Call) and self._tree_class(node.func):
            args, kwargs = self.arguments(node)
            return {"call": self._tree_class(node.func),
                    **({"args": args} if args else {}), **({"kwargs": kwargs} if kwargs else {})}
        if isinstance(node, ast.Call) and self._torch_layer(node.func):  # `act = nn.Tanh()`: built on each side
            args, kwargs = self.arguments(node)
            if not all(_plain(v) for v in [*args, *kwargs.values()]):
                raise ValueError(f"a layer argument of nn.{self._torch_layer(node.func)} that is not a literal")
            return {"layer": self._torch_layer(node.func),
                    **({"args": args} if args else {}), **({"kwargs": kwargs} if kwargs else {})}
        spec = self._tensor(node)
        if spec is not None:  # `continuous_mean_std = torch.randn(10, 2)`: the same values on each side
            return {"tensor": spec}
        if isinstance(node, ast.List):
            return [self.value(e) for e in node.elts]
        if isinstance(node, ast.Tuple):  # kept a tuple: `isinstance(size, tuple)` picks another branch for a list
            return {"tuple": [self.value(e) for e in node.elts]}
        if isinstance(node, ast.Name) and node.id not in self.site.env:
            built = self._built_before(node.id)
            if built is not None:  # `net = SirenNet(...)` then `SirenWrapper(net, ...)`: the child builds net too
                return self.value(built)
        return _json_value(statics.evaluate(node, self.site.env, self.site.source.options))

    def _torch_layer(self, func: ast.AST) -> str | None:
        """The class name when `func` is a torch.nn layer (`nn.ReLU`, `torch.nn.Tanh`, or a name
        imported from torch.nn), else None."""
        dotted = _dotted(func)
        name = dotted.rsplit(".", 1)[-1]
        if not name[:1].isupper() or name in NOT_LAYERS:
            return None
        if dotted in (f"nn.{name}", f"torch.nn.{name}"):
            return name
        if dotted == name and name in _torch_nn_imports(self.site.source.tree):
            return name
        return None

    def _tensor(self, node: ast.AST) -> dict | None:
        """The spec of an example tensor the scope makes (`torch.randn(10, 2)`, or a name bound to one)."""
        if not isinstance(node, (ast.Call, ast.Name)):
            return None
        if self._scope_tensors is None:
            body = self.site.function.body if self.site.function is not None else self.site.source.tree.body
            self._scope_tensors = callsites._scope_inputs(body, self.site.env, self.site.source.options)[0]
        return callsites.tensor_spec(node, self.site.env, self.site.source.options, self._scope_tensors)

    def _built_before(self, name: str) -> ast.Call | None:
        """The last call of a tree class bound to `name` in the call's own scope
        before the call (a model handed to a wrapper); None if anything else
        binds it there."""
        body = self.site.function.body if self.site.function is not None else self.site.source.tree.body
        found = None
        for stmt in body:
            for node in callsites._walk_scope(stmt):
                if not (isinstance(node, ast.Assign) and node.lineno < self.site.call.lineno
                        and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)):
                    continue
                found = node.value if (len(node.targets) == 1 and isinstance(node.value, ast.Call)
                                       and node.value is not self.site.call
                                       and (self._tree_class(node.value.func)
                                            or self._torch_layer(node.value.func))) else None
        return found

    def arguments(self, call: ast.Call) -> tuple[list, dict]:
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            raise ValueError("unpacked arguments")
        return [self.value(a) for a in call.args], {k.arg: self.value(k.value) for k in call.keywords}


# torch.nn names that are not a layer to pass as an argument (containers take layers, not literals)
NOT_LAYERS = {"Module", "Parameter", "ParameterList", "ParameterDict", "Sequential", "ModuleList", "ModuleDict"}


def _plain(value) -> bool:
    """A literal (numbers, strings, tuples of them) that a layer call can be written back with."""
    if isinstance(value, dict):
        return set(value) == {"tuple"} and all(_plain(v) for v in value["tuple"])
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (bool, int, float, str))


def _json_value(value):
    """What the child can rebuild: tuples as lists, a config object as a
    namespace (attribute access), sets sorted."""
    if isinstance(value, statics.ConfigObject):
        return {"namespace": {str(k): _json_value(v) for k, v in value.items()}}
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value) or {"class", "call", "namespace", "tuple", "layer", "tensor"} & set(value):
            raise ValueError("a dict the manifest format cannot carry")
        return {k: _json_value(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return {"tuple": [_json_value(v) for v in value]}
    if isinstance(value, list):
        return [_json_value(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(_json_value(v) for v in value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise ValueError(f"a {type(value).__name__} value")


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


MAX_SITES = 3  # entries per class from distinct call sites (each flag a site turns on gets checked)


def _parse(path: Path, text: str | None = None) -> ast.Module | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace") if text is None else text
        if source_problem(text) is not None:  # nested too deeply for the parsers and walkers below
            return None
        return ast.parse(text)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def site_files(root: Path) -> list[tuple[str, ast.Module]]:
    """Files that only build models: tests (`tests/`, `test_*.py`) and each
    Python block of a README."""
    out = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part.startswith(".") or (part in SKIP_DIRS and part not in ("tests", "test"))
               for part in rel.parts[:-1]) or not path.is_file() or path.is_symlink():
            continue
        in_tests = any(part in ("tests", "test") for part in rel.parts[:-1])
        if path.suffix == ".py" and (in_tests or rel.name.startswith("test_")):
            tree = _parse(path)
            if tree is not None:
                out.append((rel.as_posix(), tree))
        elif path.suffix.lower() == ".md" and rel.stem.lower() == "readme":
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            out += [(rel.as_posix(), block) for block in callsites.readme_blocks(text)]
    return out


def candidates(root: Path) -> list[dict]:
    """[{module, class, name, line, ...}] for every class deriving (directly,
    through a torch.nn class, or via another class of the tree) from
    nn.Module, module-level instances (`G = nn.Sequential(...)`), and factory
    functions returning one. Each class gets an entry per distinct call site
    (modules, tests, README blocks; callee resolved through imports) whose
    arguments are known statically, with the inputs the site feeds it when
    they are literal tensors; else a config dataclass of the same module
    built with its defaults."""
    sources: list[callsites.Source] = []
    for path in python_files(root):
        tree = _parse(path)
        if tree is not None:
            rel = path.relative_to(root).as_posix()
            sources.append(callsites.Source(rel, tree, module_name(root, path)))
    only_sites = [callsites.Source(rel, tree) for rel, tree in site_files(root)]
    for source in sources + only_sites:
        source.options = statics.argparse_options(source.tree)
    parsed = [(s.module, s.tree) for s in sources]
    classes: list[tuple[str, ast.ClassDef]] = []
    nn_names: dict[str, set[str]] = {}
    for mod, tree in parsed:
        nn_names[mod] = _torch_nn_imports(tree)
        classes += [(mod, node) for node in tree.body if isinstance(node, ast.ClassDef)]
    module_classes: set[str] = set()  # names, as a base class names them
    module_keys: set[tuple[str, str]] = set()  # a Keras `LambdaLayer` beside a torch one of that name is no module
    changed = True
    while changed:  # inheritance through the tree's own classes
        changed = False
        for mod, node in classes:
            if (mod, node.name) not in module_keys and any(
                    _is_module_base(_dotted(b), nn_names[mod], module_classes) for b in node.bases):
                module_classes.add(node.name)
                module_keys.add((mod, node.name))
                changed = True
    found = [(mod, node) for mod, node in classes if (mod, node.name) in module_keys]
    keys = {f"{mod}:{node.name}" for mod, node in found}
    configs = {(mod, node.name): _field_defaults(node) for mod, node in classes if _dataclass_defaults(node)}
    factories = {f"{mod}:{node.name}": (mod, node, built) for mod, tree in parsed
                 for node, built in _factory_functions(tree, module_classes, nn_names[mod])}
    resolver = callsites.Resolver(sources + only_sites)
    by_class: dict[str, list] = {}
    for key, site in callsites.sites(sources + only_sites, resolver, lambda k: k in keys or k in factories):
        by_class.setdefault(key, []).append(site)
    entries = []
    for mod, node in found:
        entries += _class_entries(mod, node, by_class.get(f"{mod}:{node.name}", []), resolver, configs)
    for key, (mod, node, built) in factories.items():
        entries += _factory_entries(mod, node, built, by_class.get(key, []), resolver, configs)
    for source in sources:
        hints = _shape_hints(source.tree)
        for entry in entries:
            if entry["module"] == source.module and hints:
                entry["shape_hints"] = hints
        entries += _instances(source, nn_names[source.module], hints)
    by_module = {s.module: s for s in sources}
    functions = {f"{s.module}:{n.name}": (s, n) for s in sources for n in s.tree.body if isinstance(n, ast.FunctionDef)}
    references = {f"{mod}:{node.name}": _references(node, by_module[mod], resolver, functions) for mod, node in found}
    references.update({key: _references(node, by_module[mod], resolver, functions)
                       for key, (mod, node, _) in factories.items()})
    _attach_parents(entries, references)
    return entries


def _class_entries(mod: str, node: ast.ClassDef, sites: list, resolver, configs) -> list[dict]:
    base = {"module": mod, "class": node.name, "name": node.name, "line": node.lineno, "discovered": True}
    required = _required_params(node)
    entries, seen, unknown, partial = [], set(), [], None
    builders: set[str] = set()  # the functions and classes whose code builds it with values only they know
    for site in sites:
        source = site.source
        literals = _Literals(site, resolver, _config_parameters(site.function, site.owner, source.module, configs))
        where = _where(site)
        try:
            args, kwargs = literals.arguments(site.call)
        except LITERAL_ERRORS as exc:
            unknown.append(f"{where}: {exc}")
            builders.add(_builder(site))
            partial = partial or _partial_arguments(node, site.call, literals, where)
            continue
        if required and len(args) + len(kwargs) < len(required):
            continue
        fingerprint = repr((_bound(node, args, kwargs), site.inputs))  # `Norm(w, b)` and `Norm(w, bias=b)` are one
        if fingerprint in seen:
            continue
        seen.add(fingerprint)
        if literals.config_read:
            where += f" with {literals.config_read.split(':')[1]}()'s field defaults"
        entries.append(_site_entry(base, args, kwargs, where, site.inputs, node.name, len(entries)))
        if len(entries) == MAX_SITES:
            break
    if entries and not _builds_layers(node) and not any(e.get("inputs") for e in entries):
        entries = entries[:1]  # no layer to infer an input from: a parent's forward shows one
        entries[0]["needs_arguments"] = "optional"
    if entries:
        shown = [e["inputs"] for e in entries if e.get("inputs")]
        for entry in entries:  # a site without tensors may still take another site's (tried, never assumed)
            if not entry.get("inputs") and shown:
                entry["shape_hints"] = [spec[0]["shape"] for spec in shown if spec[0]["dtype"] == "float32"]
        return entries
    entry = dict(base)
    config = [name for m, name in configs if m == mod]
    if required and len(required) == 1 and len(config) == 1:
        entry.update(kwargs={required[0]: {"call": f"{mod}:{config[0]}"}},
                     arguments_from=f"{config[0]}() with its defaults")
    elif required and unknown:
        entry["arguments_unknown"] = unknown[:3]  # call sites whose arguments need the script's own work
        if "" not in builders:  # every such site inside a function or class: a parent may build it (_attach_parents)
            entry["built_by"] = sorted(builders)
        if partial:  # what is known goes in the hint; only the rest reads FILL_IN (or a stand-in for a count)
            entry.update({k: v for k, v in partial.items() if k != "complete"})
            if partial.get("complete"):
                entry["args"] = []
                return [entry]
    if required and ("kwargs" not in entry or partial):
        entry["needs_arguments"] = True  # a parent that builds it may still check it (_attach_parents)
    elif not _builds_layers(node):
        entry["needs_arguments"] = "optional"  # no layer to infer an input from: a parent's forward shows one
    return [entry]


def _builder(site) -> str:
    """'factory module:Name' or 'class module:Name', the top-level function or class whose code holds the
    call site ('' for module-level code)."""
    line = site.call.lineno
    return next((f"{'class' if isinstance(n, ast.ClassDef) else 'factory'} {site.source.module}:{n.name}"
                 for n in site.source.tree.body
                 if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.lineno <= line <= (n.end_lineno or n.lineno)), "")


def _builds_layers(node: ast.ClassDef) -> bool:
    """Whether __init__ builds anything (a call of an nn class or of a class)."""
    init = next((b for b in node.body if isinstance(b, ast.FunctionDef) and b.name == "__init__"), None)
    if init is None:
        return False
    return any(isinstance(n, ast.Call) and _dotted(n.func).rsplit(".", 1)[-1][:1].isupper() for n in ast.walk(init))


def _bound(node: ast.ClassDef, args: list, kwargs: dict) -> list:
    """Arguments by parameter name where __init__ names them, sorted."""
    init = next((b for b in node.body if isinstance(b, ast.FunctionDef) and b.name == "__init__"), None)
    names = [a.arg for a in (init.args.posonlyargs + init.args.args)[1:]] if init is not None else []
    named = dict(kwargs)
    extra = []
    for index, value in enumerate(args):
        if index < len(names) and not init.args.vararg:
            named[names[index]] = value
        else:
            extra.append(value)
    return [extra, sorted(named.items(), key=lambda kv: kv[0])]


def _partial_arguments(node: ast.ClassDef, call: ast.Call, literals, where: str) -> dict | None:
    """The arguments of a call site that are known, by parameter name, and
    which are not: `RNNLM(vocab_size, embed_size, ...)` where only the
    vocabulary comes from the data."""
    init = next((b for b in node.body if isinstance(b, ast.FunctionDef) and b.name == "__init__"), None)
    if init is None or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    names = [a.arg for a in (init.args.posonlyargs + init.args.args)[1:]]
    known, missing = {}, []
    pairs = list(zip(names, call.args)) + [(k.arg, k.value) for k in call.keywords if k.arg]
    for name, value in pairs:
        try:
            known[name] = literals.value(value)
        except (ValueError, SyntaxError, TypeError, ArithmeticError, KeyError, IndexError, AttributeError,
                RecursionError):
            missing.append(name)
    if not missing:
        return None
    # a README's or test's placeholder names only: inside the library, a parent builds it with real sizes
    chosen = _chosen_sizes(init, call, missing, where) if literals.site.source.module is None else None
    if chosen is not None:
        return {**chosen, "kwargs": {**known, **chosen["chosen_sizes"]}}
    if not known:
        return None
    if all(name in STAND_INS for name in missing):  # a count read from the data: any size builds the same layers
        stand = {name: STAND_INS[name] for name in missing}
        return {"kwargs": {**known, **stand}, "stand_ins": stand, "complete": True,
                "arguments_from": f"{where}, with " + ", ".join(f"{k} = {v}" for k, v in stand.items())
                                  + " standing in for a size the script computes from its data "
                                    "(give the real one in porting.toml to check that size)"}
    return {"kwargs": known, "arguments_from": f"{where}, except {', '.join(missing)} (computed from the "
                                              "script's own data)"}


def _chosen_sizes(init: ast.FunctionDef, call: ast.Call, missing: list[str], where: str) -> dict | None:
    """When every value a call site leaves unknown is a placeholder for a size (`TCN(num_inputs,
    num_channels)`), the sizes the checker builds it with, said in `arguments_from`."""
    annotations = sizes.parameters(init)
    chosen = {name: sizes.choose(name, annotations.get(name)) for name in missing}
    if any(value is None for value in chosen.values()):
        return None
    unpacked = any(k.arg is None for k in call.keywords)
    return {"chosen_sizes": chosen, "complete": True,
            "arguments_from": f"{where}, with sizes chosen by the checker: "
                              + ", ".join(f"{k} = {v}" for k, v in chosen.items())
                              + " (the call names them, gives no value"
                              + ("; its **kwargs left at their defaults" if unpacked else "")
                              + "; give real ones in porting.toml to check those)"}


# Constructor parameters that are a count of the data's symbols or classes: when only these are
# unknown statically (`len(corpus.dictionary)`), a stand-in builds the same architecture.
STAND_INS = {**dict.fromkeys(("vocab_size", "n_vocab", "vocab_len", "ntoken", "ntokens", "n_tokens", "num_tokens",
                              "num_embeddings", "num_words", "n_words", "num_chars", "n_chars"), 100),
             **dict.fromkeys(("num_classes", "n_classes", "nclass", "nclasses", "num_labels", "n_labels",
                              "num_class", "n_class"), 10)}


MAX_PARENTS = 4  # parents tried in turn for a block (each one built costs the child time)
PARENT_KEYS = ("module", "class", "name", "factory", "instance", "args", "kwargs", "within", "inputs", "shape_hints",
               "arguments_from", "chosen_sizes")


def _references(node: ast.AST, source, resolver, functions: dict | None = None) -> set[str]:
    """Classes of the tree a class body names (what its __init__ may build), and those the tree's
    functions it calls name (`FeedForward(dim)` returning `nn.Sequential(..., GEGLU(), ...)`)."""
    table = resolver.bindings(source)
    out = set()
    # the body only: a base class (`class TCN(BaseTCN)`) is inherited, not built inside
    for inner in (n for stmt in node.body for n in ast.walk(stmt)):
        if isinstance(inner, (ast.Name, ast.Attribute)):
            ref = resolver.resolve(inner, table)
            if ref is not None and ref[0] == "class":
                out.add(ref[1])
            elif ref is not None and ref[0] == "function" and functions and ref[1] in functions:
                helper_source, helper = functions[ref[1]]
                out |= _references(helper, helper_source, resolver)  # one level: a helper's own helpers aside
    return out


def _attach_parents(entries: list[dict], references: dict[str, set[str]]) -> None:
    """An entry whose arguments nothing static gives is checked as a parent
    entry builds it: a parent passed its class (`ResNet(ResidualBlock, ...)`)
    first, else one whose class body names it. Parents may themselves be
    built inside another (a few rounds)."""
    for _ in range(3):
        changed = False
        for entry in entries:
            if not entry.get("needs_arguments"):
                continue
            key = f"{entry['module']}:{entry['class']}"
            ready = [p for p in entries if p is not entry and not p.get("needs_arguments")
                     and p.get("class") != entry["class"]]
            passed = [p for p in ready if f'"{key}"' in json.dumps([p.get("args"), p.get("kwargs")])]
            named = [p for p in ready if not p.get("instance")
                     and key in references.get(f"{p['module']}:{p.get('factory') or p['class']}", set())]
            parents = passed + [p for p in named if p not in passed]
            if not parents:
                continue
            parent = parents[0]
            entry.pop("kwargs", None)  # partial call-site values: the parent's build has them all
            entry["within"] = {k: parent[k] for k in PARENT_KEYS if k in parent}
            # A block built only under a flag (`attn_dim=...`) may be missing from the first parent as built:
            # the other parents, then the parents' own parents (the block is looked for at any depth).
            others = [{k: p[k] for k in PARENT_KEYS if k in p} for p in parents[1:]]
            for p in parents:
                others += [a for a in [p.get("within"), *p.get("within_also", [])] if a]
            unique = []
            for other in others:
                if other != entry["within"] and other not in unique:
                    unique.append(other)
            if unique:
                entry["within_also"] = unique[:MAX_PARENTS - 1]
            entry["arguments_from"] = f"as {parent['name']} builds it" + (
                f" ({parent['arguments_from']})" if parent.get("arguments_from") else "")
            if entry.pop("needs_arguments") == "optional":  # buildable alone: the parent gives it inputs
                entry["arguments_from"] = f"inputs as {parent['name']}'s forward passes them"
            changed = True
        if not changed:
            break
    built = {f"{p['module']}:{p.get('factory') or p['class']}" for p in entries}
    for entry in entries:
        entry.pop("needs_arguments", None)
        # built only by code nothing here runs (mlp-mixer's Permutator factory, no README example): the
        # skip names it, a call of it being what a person adds
        uncalled = [name for name in entry.pop("built_by", []) if name.split(" ", 1)[1] not in built]
        if uncalled and not entry.get("within") and "kwargs" not in entry:
            entry["built_only_by"] = uncalled


def _instances(source, nn_names: set[str], hints) -> list[dict]:
    """`G = nn.Sequential(...)` at a module's top level: an object the loader
    builds, checked as it is."""
    out = []
    for node in source.tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call)):
            continue
        callee = _dotted(node.value.func)
        torch_layer = callee.startswith(("nn.", "torch.nn.")) or callee in nn_names
        if not torch_layer:  # an instance of a tree class is checked through its class's call sites
            continue
        layer = callee.rsplit(".", 1)[-1]
        if layer.endswith("Loss") or layer in ("Parameter", "ParameterList", "ParameterDict"):
            continue  # a criterion or a bare parameter: nothing of the model's to compare
        name = node.targets[0].id
        entry = {"module": source.module, "class": callee.rsplit(".", 1)[-1], "instance": name, "name": name,
                 "line": node.lineno, "discovered": True, "arguments_from": f"{source.rel}:{node.lineno}"}
        if hints:
            entry["shape_hints"] = hints
        out.append(entry)
    return out


def _factory_functions(tree: ast.Module, module_classes: set[str], nn_names: set[str]):
    """(function, class it builds) for module-level functions whose return value
    is a call of a module class of the tree (`def ResNet18(): return
    ResNet(BasicBlock, [2, 2, 2, 2])`) or of a torch.nn container (`def
    MLPMixer(*, dim, depth): return nn.Sequential(...)`)."""
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
            continue
        for ret in ast.walk(node):
            if not (isinstance(ret, ast.Return) and isinstance(ret.value, ast.Call)):
                continue
            callee = _dotted(ret.value.func)
            name = callee.rsplit(".", 1)[-1]
            if name in module_classes or (name in NN_CONTAINERS and (
                    callee.startswith(("nn.", "torch.nn.")) or callee in nn_names)):
                yield node, name
                break


NN_CONTAINERS = {"Sequential", "ModuleList", "ModuleDict"}


def _factory_entries(mod: str, node: ast.FunctionDef, built: str, sites: list, resolver, configs) -> list[dict]:
    """A factory is built as it is when nothing is required, else once per
    distinct call site whose arguments are known statically (the README's
    `MLPMixer(image_size=256, ...)`), with the inputs that site feeds it."""
    base = {"module": mod, "class": built, "factory": node.name, "name": f"{node.name}()", "line": node.lineno,
            "discovered": True}
    args = node.args
    required = [a.arg for a in (args.posonlyargs + args.args)[:len(args.posonlyargs + args.args) - len(args.defaults)]]
    required += [a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]
    if not required:
        return [base]
    entries, seen, unknown = [], set(), []
    for site in sites:
        literals = _Literals(site, resolver, _config_parameters(site.function, site.owner, site.source.module, configs))
        where = _where(site)
        try:
            call_args, call_kwargs = literals.arguments(site.call)
        except LITERAL_ERRORS as exc:
            unknown.append(f"{where}: {exc}")
            continue
        fingerprint = repr((call_args, sorted(call_kwargs.items()), site.inputs))
        if fingerprint in seen or len(call_args) + len(call_kwargs) < len(required):
            continue
        seen.add(fingerprint)
        entries.append(_site_entry(base, call_args, call_kwargs, where, site.inputs, f"{node.name}()",
                                   len(entries)))
        if len(entries) == MAX_SITES:
            break
    if entries:
        return entries
    # nothing builds it with known values: no entry of its own (a manifest's
    # `factory = ...` with its arguments checks it); its blocks say what to give
    return []


def _site_entry(base: dict, args, kwargs, where: str, inputs, name: str, earlier: int) -> dict:
    """An entry built with one call site's arguments (and its example inputs); the second and later
    entries of one class or factory are numbered."""
    entry = dict(base, args=args, kwargs=kwargs, arguments_from=where)
    if inputs:
        entry.update(inputs=inputs, input_source=f"the call at {where}")
    if earlier:
        entry["name"] = f"{name}#{earlier + 1}"
    return entry


# what reading a call site's arguments as literals may raise: that site's values are unknown
LITERAL_ERRORS = (ValueError, SyntaxError, TypeError, ArithmeticError, KeyError, IndexError, AttributeError,
                  RecursionError)


def _where(site) -> str:
    """A call site as the report names it: file:line (and its label: a test case, a README block)."""
    return f"{site.source.rel}:{site.call.lineno}" + (f" ({site.label})" if site.label else "")
