"""Receivers resolved before names: which expressions are certainly not torch objects.

A method is a torch API only when its receiver may be a torch tensor, module or optimizer.
`plt.scatter(...)`, `re.sub(...)`, `axes.ravel()` on what `plt.subplots()` returned, or
`accelerator.backward(loss)` share method names with tensors and are none of them. Both the
analyzer (scanner.py) and the converter (convert/calls.py) ask this module, so a call is
either torch's on both sides or on neither.

The table is read from the whole file once, flow-insensitively, the way convert/bound.py
reads torch kinds: a variable counts as foreign only when every binding of it in the file
(assignment, loop or with target, parameter) is foreign, so the table errs towards knowing
nothing. Which packages are foreign is data (knowledge/data/non_torch_packages.json).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import libcst as cst

VALUE, OBJECT = "value", "object"
BOUND = "torch_bound"  # an object of a torch-bound package (knowledge/data/torch_bound.json): torch, never converted
_DATA = Path(__file__).resolve().parent.parent / "knowledge" / "data" / "non_torch_packages.json"


@lru_cache(maxsize=1)
def _packages() -> tuple[frozenset[str], frozenset[str]]:
    data = json.loads(_DATA.read_text(encoding="utf-8"))
    return frozenset(data["values"]), frozenset(data["objects"])


def package_kind(qualified: str) -> str | None:
    """VALUE, OBJECT or None for a fully qualified imported name."""
    parts = qualified.split(".")
    if "torch" in parts[1:] or "layers" in parts[1:]:
        return None  # einops.layers.torch.Rearrange and the like are torch modules
    values, objects = _packages()
    if parts[0] in values:
        return VALUE
    if parts[0] in objects:
        return OBJECT  # (accelerate is torch-bound too, but its objects' methods are its own: accelerator.backward)
    if parts[0] in _bound_roots():
        return BOUND  # transformers' GPT2LMHeadModel.from_pretrained(...) is a torch model the converter leaves
    return None


@lru_cache(maxsize=1)
def _bound_roots() -> frozenset[str]:
    from analysis.knowledge.torch_bound import rows

    return frozenset(row["module"] for row in rows() if not row["converted"] and "." not in row["module"])


@dataclass
class ForeignTable:
    modules: dict[str, str] = field(default_factory=dict)  # local name -> qualified non-torch import
    variables: dict[str, str] = field(default_factory=dict)  # name -> VALUE/OBJECT, every binding agreeing


def _dotted(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr.value}" if head else None
    return None


def kind_of(node: cst.BaseExpression, table: ForeignTable) -> str | None:
    """VALUE when the expression is certainly a non-torch value (a numpy array, a plot, a string),
    OBJECT when it is a non-torch object whose methods may still return torch objects, else None."""
    if isinstance(node, cst.Name):
        if node.value in table.variables:
            return table.variables[node.value]
        qualified = table.modules.get(node.value)
        return package_kind(qualified) if qualified else None
    if isinstance(node, cst.Attribute):
        name = _dotted(node)
        head = name.split(".", 1)[0] if name else None
        if head is not None and head in table.modules and head not in table.variables:
            rest = name.split(".", 1)[1]
            return package_kind(f"{table.modules[head]}.{rest}")
        return VALUE if kind_of(node.value, table) == VALUE else None
    if isinstance(node, cst.Call):
        func = node.func
        callee = kind_of(func, table)
        if callee in (VALUE, BOUND):
            return callee  # (what a torch-bound package's callable returns stays that package's torch object)
        if callee == OBJECT:
            # a class of a non-torch package builds a non-torch object; its other callables may return anything
            last = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
            module_level = isinstance(func, cst.Name) or (_dotted(func) or "").split(".", 1)[0] in table.modules
            return OBJECT if module_level and last[:1].isupper() else None
        return None
    if isinstance(node, cst.Subscript):
        return VALUE if kind_of(node.value, table) == VALUE else None
    return None


def is_foreign(node: cst.BaseExpression, table: ForeignTable | None) -> bool:
    """The receiver is certainly no torch tensor, module or optimizer."""
    return table is not None and kind_of(node, table) in (VALUE, OBJECT)


def is_torch_bound(node: cst.BaseExpression, table: ForeignTable | None) -> bool:
    """The receiver is an object of a torch-bound package (a Hugging Face torch model): torch, and it stays
    torch after conversion, so no rewrite for a MindSpore Cell applies to it."""
    return table is not None and kind_of(node, table) == BOUND


# ---- reading the table -----------------------------------------------------------------------
def foreign_table(module: cst.Module) -> ForeignTable:
    imports: dict[str, list[str | None]] = {}
    bindings: list[tuple[cst.BaseExpression, cst.BaseExpression | None, str]] = []  # target, value, how
    _walk(module.body, imports, bindings)
    table = ForeignTable()
    for name, qualified in imports.items():
        if all(q is not None and q == qualified[0] for q in qualified):
            table.modules[name] = qualified[0]
    # a variable's kind may come from another variable's (a = np.zeros(); b = a.reshape()): settle it
    for _ in range(4):
        seen: dict[str, list[str | None]] = {}
        for target, value, how in bindings:
            kind = None
            if value is not None:
                kind = kind_of(value, table)
                if how == "iter" and kind != VALUE:
                    kind = None  # items of a non-torch object's iteration may be anything
            for name in _names(target):
                seen.setdefault(name, []).append(kind)
        variables = {name: kinds[0] for name, kinds in seen.items()
                     if kinds[0] is not None and all(k == kinds[0] for k in kinds)}
        for name in seen:
            if name in table.modules and name not in variables:
                table.modules.pop(name)  # rebound to something else somewhere
        if variables == table.variables:
            break
        table.variables = variables
    return table


def _names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in _names(el.value)]
    if isinstance(target, cst.StarredElement):
        return _names(target.value)
    return []


def _import_names(stmt, imports: dict[str, list[str | None]]) -> None:
    if isinstance(stmt, cst.Import):
        for alias in stmt.names:
            dotted = _dotted(alias.name) or ""
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                imports.setdefault(alias.asname.name.value, []).append(dotted)
            else:
                head = dotted.split(".", 1)[0]
                imports.setdefault(head, []).append(head)
    elif isinstance(stmt, cst.ImportFrom) and not isinstance(stmt.names, cst.ImportStar):
        base = _dotted(stmt.module) if stmt.module is not None and not stmt.relative else None
        for alias in stmt.names:
            local = alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) \
                else _dotted(alias.name) or ""
            # a relative import is the repository's own code: never foreign
            imports.setdefault(local, []).append(f"{base}.{_dotted(alias.name)}" if base else None)


def _small(statements, imports, bindings) -> None:
    for s in statements:
        if isinstance(s, (cst.Import, cst.ImportFrom)):
            _import_names(s, imports)
        elif isinstance(s, cst.Assign):
            for target in s.targets:
                if isinstance(target.target, (cst.Tuple, cst.List)) and isinstance(s.value, (cst.Tuple, cst.List)) \
                        and len(target.target.elements) == len(s.value.elements):
                    for el, val in zip(target.target.elements, s.value.elements):
                        bindings.append((el.value, val.value, "assign"))
                else:
                    # unpacking a non-torch value gives non-torch values (fig, axes = plt.subplots())
                    how = "assign" if isinstance(target.target, cst.Name) else "iter"
                    bindings.append((target.target, s.value, how))
        elif isinstance(s, (cst.AnnAssign, cst.AugAssign)):
            bindings.append((s.target, s.value if isinstance(s, cst.AnnAssign) else None, "assign"))
        elif isinstance(s, (cst.Global, cst.Nonlocal)):
            for item in s.names:
                bindings.append((item.name, None, "assign"))


def _walk(statements, imports, bindings) -> None:
    for stmt in statements:
        if isinstance(stmt, cst.SimpleStatementLine):
            _small(stmt.body, imports, bindings)
            continue
        if isinstance(stmt, cst.FunctionDef):
            params = stmt.params
            for param in (*params.posonly_params, *params.params, *params.kwonly_params):
                bindings.append((param.name, None, "assign"))
            for star in (params.star_arg, params.star_kwarg):
                if isinstance(star, cst.Param):
                    bindings.append((star.name, None, "assign"))
        elif isinstance(stmt, cst.For):
            bindings.append((stmt.target, stmt.iter, "iter"))
        elif isinstance(stmt, cst.With):
            for item in stmt.items:
                if item.asname is not None:
                    bindings.append((item.asname.name, item.item, "assign"))
        elif isinstance(stmt, cst.Try):
            for handler in stmt.handlers:
                if handler.name is not None:
                    bindings.append((handler.name.name, None, "assign"))
        for suite in _suites(stmt):
            if isinstance(suite, cst.SimpleStatementSuite):
                _small(suite.body, imports, bindings)
            else:
                _walk(suite.body, imports, bindings)


def _suites(stmt):
    body = getattr(stmt, "body", None)
    if body is not None:
        yield body
    for handler in getattr(stmt, "handlers", ()):
        yield handler.body
    orelse = getattr(stmt, "orelse", None)
    while orelse is not None:
        yield orelse.body
        orelse = getattr(orelse, "orelse", None) if isinstance(orelse, cst.If) else None
    final = getattr(stmt, "finalbody", None)
    if final is not None:
        yield final.body
    for case in getattr(stmt, "cases", ()):
        yield case.body
