"""PyTorch's signature of a mapped API, for the generator: from Python introspection where torch
defines the API in Python, else from the first line of its docstring (how torch documents builtins)."""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass

from analysis.knowledge.introspect import resolve  # noqa: F401  (the generator imports it from here)
from analysis.knowledge.mapping import signature_parameters

POSITIONAL_ONLY, EITHER, KEYWORD_ONLY, VAR = "positional_only", "either", "keyword_only", "var"
_NO_DEFAULT = object()


@dataclass(frozen=True)
class Param:
    name: str
    kind: str
    default: str | None = None  # source text; None: required

    @property
    def required(self) -> bool:
        return self.default is None and self.kind != VAR


def _text(value) -> str | None:
    if value is inspect.Parameter.empty:
        return None
    try:
        text = repr(value)
    except Exception:
        return "<default>"
    return text if len(text) < 60 and "<" not in text else "<default>"


def _from_inspect(obj, drop_self: bool) -> list[Param] | None:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    kinds = {inspect.Parameter.POSITIONAL_ONLY: POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD: EITHER,
             inspect.Parameter.KEYWORD_ONLY: KEYWORD_ONLY, inspect.Parameter.VAR_POSITIONAL: VAR}
    params = []
    for p in sig.parameters.values():
        if p.kind == inspect.Parameter.VAR_KEYWORD or (drop_self and p.name == "self" and not params):
            continue
        params.append(Param(p.name, kinds[p.kind], _text(p.default)))
    return params


def _from_doc(obj, name: str) -> list[Param] | None:
    doc = inspect.getdoc(obj) or getattr(obj, "__doc__", None) or ""
    match = re.search(rf"(?m)^\s*(?:[\w.]+\.)?{re.escape(name)}\(", doc)  # linalg.cholesky(A, ...) too
    if not match:
        return None
    items = signature_parameters(doc[match.start():].lstrip())
    params, keyword_only = [], False
    for item in items:
        item = item.strip()
        if not item or item == "/":
            continue
        if item == "*":
            keyword_only = True
            continue
        head, _, default = item.partition("=")
        pname = head.split(":")[0].strip()
        if pname.startswith("*"):
            params.append(Param(pname.lstrip("*"), VAR))
            keyword_only = True
            continue
        if pname == "self" or not pname.isidentifier():
            continue
        params.append(Param(pname, KEYWORD_ONLY if keyword_only else EITHER, default.strip() or None))
    return params


def torch_params(api: str, obj=None) -> list[Param] | None:
    """The parameters of a function or method (without self), or of a class's constructor."""
    obj = obj if obj is not None else resolve(api)
    if obj is None:
        return None
    name = api.rsplit(".", 1)[-1]
    if inspect.isclass(obj):
        return _from_inspect(obj.__init__, drop_self=True)
    method = api.startswith("torch.Tensor.")
    found = _from_inspect(obj, drop_self=method) if inspect.isfunction(obj) else None
    if found is not None and all(p.kind == VAR for p in found):
        found = None  # a dispatch wrapper (*args): its docstring has the real signature
    return found or _accepted_names(api, _from_doc(obj, name))


def _accepted_names(api: str, params: list[Param] | None) -> list[Param] | None:
    """A builtin's documented parameters under the names its parser takes: the docs write
    `linalg.cholesky(A, ...)`, the parser binds ATen's schema, whose first tensor is `input` (`A=a`
    raises), so a keyword call is written as PyTorch runs it (the converter's keyword_aliases.py reads
    it back)."""
    if not params or api.startswith("torch.Tensor."):
        return params
    from analysis.knowledge import introspect

    try:
        schemas = introspect._aten_schemas(introspect._aten_name(api, api.rsplit(".", 1)[1]), False)
    except Exception:
        return params
    if not schemas:
        return params
    taken = {p[0] for schema in schemas for p in schema}
    first = [p[0] for p in schemas[0] if p[1] == "p"]
    out = []
    for index, param in enumerate(params):
        if param.kind == EITHER and param.name not in taken and index < len(first) and first[index] not in \
                {p.name for p in params}:
            param = Param(first[index], param.kind, param.default)
        out.append(param)
    return out
