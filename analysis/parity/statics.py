"""The values a script sets up before it builds its model, read without
running it: literal constants (at top level, under `if __name__ ==
"__main__":`, in a function before the call), argparse defaults read as
`args.x` / `opt.x` (with `type=` applied), and simple config objects (a class
of literal attributes, `SimpleNamespace(...)`, a dict). Anything that would
need the script's own work (a file read, a dataset's length) stays unknown:
`evaluate` raises ValueError and the caller moves on."""
from __future__ import annotations

import ast
import operator

MAX_ITEMS = 10_000  # a range()/list bigger than this is not a size a model takes

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
           ast.Div: operator.truediv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
            ast.NotIn: lambda a, b: a not in b}


def _sized(value):
    if isinstance(value, (list, tuple, set, dict, str)) and len(value) > MAX_ITEMS:
        raise ValueError("too large to be a model size")
    return value


def _range(*args):
    if len(range(*args)) > MAX_ITEMS:
        raise ValueError("range too large")
    return list(range(*args))


BUILTINS = {"int": int, "float": float, "str": str, "bool": bool, "len": len, "min": min, "max": max, "abs": abs,
            "round": round, "sorted": sorted, "list": list, "tuple": tuple, "set": set, "sum": sum, "range": _range,
            "dict": dict}
TYPES = {"int": int, "float": float, "str": str}


class ConfigObject(dict):
    """A config object's fields (attribute access in the script)."""


def argparse_options(tree: ast.AST, env: dict | None = None) -> dict[str, object]:
    """dest -> default of every `parser.add_argument(...)` of the file (None when
    it has none; flags their implied default), `type=` applied to a string default
    as argparse does."""
    options: dict[str, object] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"):
            continue
        flags = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        dest = keywords.get("dest")
        if isinstance(dest, ast.Constant) and isinstance(dest.value, str):
            name = dest.value
        else:
            longs = [f for f in flags if f.startswith("--")]
            name = (longs[0] if longs else flags[0] if flags else "").lstrip("-").replace("-", "_")
        if not name.isidentifier():
            continue
        action = keywords.get("action")
        action = action.value if isinstance(action, ast.Constant) else None
        default = None if action != "store_true" else False
        if action == "store_false":
            default = True
        if "default" in keywords:
            try:
                default = evaluate(keywords["default"], env or {})
            except (ValueError, TypeError, ArithmeticError, KeyError, IndexError):
                continue  # a computed default (a path from os.environ...): unknown, not None
        kind = keywords.get("type")
        if isinstance(default, str) and isinstance(kind, ast.Name) and kind.id in TYPES:
            try:
                default = TYPES[kind.id](default)
            except ValueError:
                continue
        options[name] = default
    return options


def evaluate(node: ast.AST, env: dict, options: dict | None = None):
    """The value of an expression from literals and `env`; ValueError when
    it depends on anything else. `options` are argparse defaults, read
    through any name (`args.lr`, `opt.ngpu`, `config.hidden` in a function
    taking the parsed arguments)."""
    options = options or {}
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        if node.id in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[node.id]
        raise ValueError(f"unknown name {node.id}")
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = []
        for element in node.elts:
            if isinstance(element, ast.Starred):
                items += list(evaluate(element.value, env, options))
            else:
                items.append(evaluate(element, env, options))
        return _sized(set(items) if isinstance(node, ast.Set) else items if isinstance(node, ast.List)
                      else tuple(items))
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise ValueError("dict unpacking")
        return {evaluate(k, env, options): evaluate(v, env, options) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.Attribute):
        if isinstance(node.value, ast.Name) and node.value.id not in env and node.attr in options:
            return options[node.attr]
        owner = evaluate(node.value, env, options)
        if isinstance(owner, ConfigObject) and node.attr in owner:
            return owner[node.attr]
        raise ValueError(f"unknown attribute {node.attr}")
    if isinstance(node, ast.Subscript):
        owner = evaluate(node.value, env, options)
        if isinstance(node.slice, ast.Slice):
            parts = [evaluate(p, env, options) if p is not None else None
                     for p in (node.slice.lower, node.slice.upper, node.slice.step)]
            return owner[slice(*parts)]
        return owner[evaluate(node.slice, env, options)]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = evaluate(node.left, env, options), evaluate(node.right, env, options)
        if isinstance(node.op, ast.Pow) and isinstance(right, (int, float)) and abs(right) > 64:
            raise ValueError("power too large")
        if isinstance(node.op, ast.Mult):
            sequence, count = (left, right) if isinstance(left, (str, list, tuple)) else (right, left)
            if isinstance(sequence, (str, list, tuple)) and isinstance(count, int) and len(sequence) * count > MAX_ITEMS:
                raise ValueError("too large")
        return _sized(_BINARY[type(node.op)](left, right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](evaluate(node.operand, env, options))
    if isinstance(node, ast.BoolOp):
        values = [evaluate(v, env, options) for v in node.values]
        result = values[0]
        for value in values[1:]:
            result = (result and value) if isinstance(node.op, ast.And) else (result or value)
        return result
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
        return _COMPARE[type(node.ops[0])](evaluate(node.left, env, options),
                                           evaluate(node.comparators[0], env, options))
    if isinstance(node, ast.IfExp):
        branch = node.body if evaluate(node.test, env, options) else node.orelse
        return evaluate(branch, env, options)
    if isinstance(node, ast.Call):
        return _call(node, env, options)
    raise ValueError(f"not evaluated statically: {type(node).__name__}")


def _call(node: ast.Call, env: dict, options: dict):
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        raise ValueError("unpacked arguments")
    args = [evaluate(a, env, options) for a in node.args]
    kwargs = {k.arg: evaluate(k.value, env, options) for k in node.keywords}
    func = node.func
    if isinstance(func, ast.Name) and func.id in BUILTINS and func.id not in env:
        return _sized(BUILTINS[func.id](*args, **kwargs))
    if isinstance(func, ast.Name) and isinstance(env.get(func.id), ConfigClass):
        return env[func.id].build(args, kwargs)
    dotted = _dotted(func)
    if dotted.rsplit(".", 1)[-1] in ("SimpleNamespace", "EasyDict", "edict", "Namespace") and not args:
        return ConfigObject(kwargs)
    if isinstance(func, ast.Attribute) and func.attr in ("split", "strip", "lower", "upper", "keys", "values",
                                                         "items", "get", "index", "count"):
        owner = evaluate(func.value, env, options)
        if isinstance(owner, (str, dict, list, tuple)) and hasattr(owner, func.attr):
            result = getattr(owner, func.attr)(*args, **kwargs)
            return _sized(list(result) if func.attr in ("keys", "values", "items") else result)
    raise ValueError(f"call of {dotted or 'an expression'}")


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


class ConfigClass:
    """A plain class used as a config: literal class attributes and an
    __init__ storing literals or its own parameters' defaults."""

    def __init__(self, node: ast.ClassDef, env: dict, options: dict) -> None:
        self.fields: dict[str, object] = {}
        self.init: ast.FunctionDef | None = None
        self.env, self.options = env, options
        for item in node.body:
            if isinstance(item, ast.Assign) and len(item.targets) == 1 and isinstance(item.targets[0], ast.Name):
                try:
                    self.fields[item.targets[0].id] = evaluate(item.value, env, options)
                except (ValueError, TypeError, ArithmeticError, KeyError, IndexError):
                    pass
            elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and item.value is not None:
                try:
                    self.fields[item.target.id] = evaluate(item.value, env, options)
                except (ValueError, TypeError, ArithmeticError, KeyError, IndexError):
                    pass
            elif isinstance(item, ast.FunctionDef) and item.name == "__init__":
                self.init = item

    def build(self, args: list, kwargs: dict) -> ConfigObject:
        obj = ConfigObject(self.fields)
        if self.init is None:
            obj.update(kwargs)  # a dataclass-style config takes its fields by keyword
            return obj
        params = self.init.args.args[1:]
        defaults = self.init.args.defaults
        local = dict(self.env)
        for index, param in enumerate(params):
            offset = index - (len(params) - len(defaults))
            if index < len(args):
                local[param.arg] = args[index]
            elif param.arg in kwargs:
                local[param.arg] = kwargs[param.arg]
            elif offset >= 0:
                try:
                    local[param.arg] = evaluate(defaults[offset], self.env, self.options)
                except (ValueError, TypeError, ArithmeticError, KeyError, IndexError):
                    pass
        for stmt in ast.walk(self.init):
            if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Attribute)
                    and isinstance(stmt.targets[0].value, ast.Name) and stmt.targets[0].value.id == "self"):
                try:
                    obj[stmt.targets[0].attr] = evaluate(stmt.value, local, self.options)
                except (ValueError, TypeError, ArithmeticError, KeyError, IndexError):
                    pass
        return obj


def _is_config_class(node: ast.ClassDef) -> bool:
    """No bases but object (or a dataclass): a holder of settings, not a model."""
    return all(_dotted(b) in ("object", "") for b in node.bases) and not any(
        isinstance(item, ast.FunctionDef) and item.name not in ("__init__", "__post_init__", "__repr__")
        for item in node.body)


def _assign(stmt: ast.stmt, env: dict, options: dict) -> None:
    if isinstance(stmt, ast.Assign):
        targets, value = stmt.targets, stmt.value
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        targets, value = [stmt.target], stmt.value
    elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        targets, value = [stmt.target], ast.BinOp(left=ast.Name(id=stmt.target.id, ctx=ast.Load()), op=stmt.op,
                                                  right=stmt.value)
    else:
        return
    try:
        result = evaluate(value, env, options)
    except (ValueError, TypeError, ArithmeticError, KeyError, IndexError, AttributeError, RecursionError):
        result = _UNKNOWN
    for target in targets:
        if isinstance(target, ast.Name):
            if result is _UNKNOWN:
                env.pop(target.id, None)  # reassigned to something unknown: the older value is stale
            else:
                env[target.id] = result
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(result, (list, tuple)) \
                and len(result) == len(target.elts):
            for element, item in zip(target.elts, result):
                if isinstance(element, ast.Name):
                    env[element.id] = item
        elif (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
              and isinstance(env.get(target.value.id), ConfigObject) and result is not _UNKNOWN):
            env[target.value.id][target.attr] = result


_UNKNOWN = object()


def scope_values(body: list[ast.stmt], env: dict, options: dict, until: int | None = None) -> dict:
    """`env` extended by the assignments of `body` in order, walking into
    if/else (the `__main__` block included), try, with and loop bodies, up to
    line `until`; function and class bodies are their own scopes, though a
    config class is recorded."""
    for stmt in body:
        if until is not None and stmt.lineno >= until:
            if isinstance(stmt, (ast.If, ast.Try, ast.With, ast.For, ast.While)) and \
                    getattr(stmt, "end_lineno", stmt.lineno) >= until:
                pass  # the call is inside: walk in up to it
            else:
                break
        if isinstance(stmt, ast.ClassDef):
            if _is_config_class(stmt):
                env[stmt.name] = ConfigClass(stmt, dict(env), options)
            continue
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        _assign(stmt, env, options)
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and not isinstance(stmt, (ast.For, ast.While)) or \
                    (isinstance(stmt, (ast.For, ast.While)) and field == "body"):
                if inner:
                    scope_values(inner, env, options, until)
        for handler in getattr(stmt, "handlers", []) or []:
            scope_values(handler.body, env, options, until)
    return env
