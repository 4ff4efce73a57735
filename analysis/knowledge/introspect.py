"""Both frameworks' signatures, read from the installed torch and MindSpore (build time only).

Used by build.py, never by the product at run time (it imports both frameworks). A signature is
a list of parameters, each [name, kind, default, type]:
  kind: "p" positional or keyword, "o" positional only, "k" keyword only, "v" *args, "w" **kwargs
  default: the default's source text, or None when the parameter is required
  type: the ATen type where the schema gives one ("Tensor", "int[]", ...), else ""
PyTorch's builtins have no Python signature: their ATen schemas are what the Python binding
accepts (the names a user may pass by keyword, `self` spelled `input`), and each overload is
kept; the documented first line adds the defaults ATen spells differently (stride=[] is
stride=None). MindSpore's C-level Tensor methods document their overloads on their first lines.
"""
from __future__ import annotations

import importlib
import inspect
import re

from analysis.knowledge.mapping import signature_parameters

_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: "o",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "p",
    inspect.Parameter.KEYWORD_ONLY: "k",
    inspect.Parameter.VAR_POSITIONAL: "v",
    inspect.Parameter.VAR_KEYWORD: "w",
}
_SIG_LINE = re.compile(r"^\s*([A-Za-z_][\w.]*)\((.*)\)\s*(->.*)?$")


def resolve(name: str):
    """The object a dotted name names, or None."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except Exception:  # noqa: BLE001 - any import failure means: not a module
            continue
        try:
            for part in parts[cut:]:
                obj = getattr(obj, part)
        except AttributeError:
            return None
        return obj
    return None


def _from_inspect(obj, drop_first: bool) -> list[list] | None:
    target = obj.__init__ if inspect.isclass(obj) else obj
    if inspect.isclass(obj) and getattr(target, "__qualname__", "") in ("Module.__init__", "Cell.__init__", "object.__init__"):
        return []  # a layer without options of its own
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return None
    params = []
    for p in sig.parameters.values():
        default = None if p.default is inspect.Parameter.empty else _literal(p.default)
        params.append([p.name, _KINDS[p.kind], default, ""])
    if inspect.isclass(obj) or drop_first:
        params = params[1:] if params and params[0][1] in "po" else params
    if [p[1] for p in params] == ["v", "w"]:
        inner = _dispatched(obj)
        # a dispatching wrapper: boolean_dispatch's (F.max_pool2d) holds both functions, the one with the flag
        # (return_indices=) takes every argument; any other (overrides) says nothing
        return _from_inspect(inner, drop_first) if inner is not None else None
    return params


def _dispatched(obj):
    """The function of torch's boolean_dispatch wrapper taking the most parameters (F.max_pool2d:
    max_pool2d_with_indices, which takes return_indices=), else None."""
    found = [c.cell_contents for c in (getattr(obj, "__closure__", None) or ()) if inspect.isfunction(c.cell_contents)]
    if len(found) != 2 or not any(isinstance(c.cell_contents, str) for c in obj.__closure__):
        return None
    return max(found, key=lambda f: len(inspect.signature(f).parameters))


def _literal(value) -> str:
    if isinstance(value, (str, int, float, bool, type(None), tuple, list)):
        text = repr(value)
        return text if len(text) < 80 else "<object>"
    module = getattr(value, "__module__", "") or ""
    name = getattr(value, "__name__", None)
    if name and module.startswith(("torch", "mindspore")):
        return f"{module}.{name}"
    text = repr(value)
    if text.startswith("torch.") and text.replace(".", "").replace("_", "").isalnum():
        return text  # torch.float32, torch.contiguous_format
    return "<object>"


def split_params(text: str) -> list[str]:
    depth, items, current = 0, [], []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            items.append("".join(current))
            current = []
        else:
            current.append(ch)
    items.append("".join(current))
    return [i.strip() for i in items if i.strip()]


def parse_params(text: str, drop_self: bool = False) -> list[list] | None:
    """'input, dim=None, *, keepdim=False' -> parameters (annotations dropped)."""
    params, keyword_only = [], False
    for item in split_params(text):
        if item == "*":
            keyword_only = True
            continue
        if item == "/":
            for p in params:
                p[1] = "o"
            continue
        name, _, default = item.partition("=")
        name = name.split(":")[0].strip()
        if name.startswith("**"):
            params.append([name[2:], "w", None, ""])
            continue
        if name.startswith("*"):
            params.append([name[1:], "v", None, ""])
            keyword_only = True
            continue
        if not name.isidentifier():
            return None
        params.append([name, "k" if keyword_only else "p", default.strip() or None, ""])
    if drop_self and params and params[0][0] == "self":
        params = params[1:]
    return params


def doc_signatures(obj, name: str) -> list[list[list]]:
    """The signatures a docstring's first lines spell out (name(...) -> ...), one per overload."""
    doc = inspect.getdoc(obj) or ""
    found = []
    for line in doc.splitlines():
        if not line.strip():
            if found:
                break
            continue
        m = _SIG_LINE.match(line)
        if not m or m.group(1).rsplit(".", 1)[-1] != name:
            break
        params = parse_params(",".join(signature_parameters(line)), drop_self=True)  # up to ITS closing paren
        if params is not None:
            found.append(params)
    return found


def _doc_overloads(obj, name: str, known: list) -> list[list[list]]:
    """Overloads a docstring names in backticks (`argmax(dim=None, keepdim=False)`): MindSpore's
    Tensor methods accept them beside the first-line form."""
    found = []
    for text in re.findall(rf"`{name}(\([^`]*)`", inspect.getdoc(obj) or ""):
        # up to the list's own closing parenthesis: `median(dim=None) -> (Tensor, LongTensor)` returns a pair
        params = parse_params(",".join(signature_parameters(text)), drop_self=True)
        if params and params not in known and params not in found:
            found.append(params)
    return found


def _aten_schemas(op: str, method: bool) -> list[list[list]]:
    import torch

    try:
        schemas = torch._C._jit_get_schemas_for_operator(f"aten::{op}")
    except RuntimeError:
        return []
    found = []
    with_self = any(a.name == "self" for schema in schemas for a in schema.arguments)
    for schema in schemas:
        args = schema.arguments
        if (method or with_self) and not any(a.name == "self" for a in args):
            continue  # TorchScript's scalar overloads (cos(int a)): Python binds only the tensor ones
        if any(a.name == "self" and str(a.type) not in ("Tensor", "Optional[Tensor]") for a in args):
            continue  # TorchScript's list overloads (sum(int[] self)): not Python's, and they would take
            #           torch.sum(a, 1) for sizes given one by one
        if any(a.alias_info is not None and a.alias_info.is_write and a.name != "self" for a in args):
            continue  # an out= variant: out= is refused by the converter on its own
        if schema.overload_name.endswith(("_out", "out")) or "Dimname" in str(schema):
            continue  # named-dimension overloads: not expressible in MindSpore
        params = []
        for a in args:
            name = a.name
            if name == "self":
                if method:
                    continue
                name = "input"
            default = _aten_default(a) if a.has_default_value() else None
            if default is not None and default != "None" and name in ("dtype", "layout", "memory_format"):
                default = "<object>"  # an enum ATen stores as an int
            params.append([name, "k" if a.kwarg_only else "p", default, str(a.type)])
        if params not in found:
            found.append(params)
    return found


def _aten_default(arg) -> str:
    value = arg.default_value
    if isinstance(value, (bool, int, float, str, type(None))):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return repr(list(value)) if value else "None"  # int[2] stride=[] means "not given"
    return "<object>"


# Namespaced builtins are ATen ops with a prefix: torch.linalg.norm is aten::linalg_norm (ord=...),
# not aten::norm (p=...), which is torch.norm's
_ATEN_PREFIX = {"torch.linalg.": "linalg_", "torch.special.": "special_", "torch.fft.": "fft_"}


def _aten_name(name: str, last: str) -> str:
    for module, prefix in _ATEN_PREFIX.items():
        if name.startswith(module) and name.count(".") == module.count("."):
            return prefix + last
    return last


def torch_signatures(name: str) -> tuple[list[list[list]], str]:
    """(overloads, source) for a PyTorch API name; ([], '') when nothing can be read."""
    obj = resolve(name)
    method = name.startswith("torch.Tensor.")
    last = name.rsplit(".", 1)[1]
    if obj is None:
        return [], ""
    params = _from_inspect(obj, drop_first=method and not inspect.isclass(obj))
    if params is not None:
        return [params], "inspect"
    docs = doc_signatures(obj, last)
    aten = _aten_schemas(_aten_name(name, last), method) if not inspect.isclass(obj) else []
    if aten:
        documented = {p[0]: p[2] for sig in docs for p in sig if p[2] is not None}
        for sig in aten:
            for p in sig:
                if p[0] in documented and p[2] in (None, "None", "<object>") and documented[p[0]] != "None":
                    if p[2] is not None:  # ATen's None means "computed"; the docs say what
                        p[2] = documented[p[0]]
                elif p[0] in documented and p[2] is not None and p[2].startswith("["):
                    p[2] = documented[p[0]]
        return aten, "aten"
    if docs:
        return docs, "doc"
    return [], ""


def mindspore_signatures(name: str) -> tuple[list[list[list]], str]:
    """(overloads, source) for a MindSpore API name (a class's __init__, a Tensor method without self)."""
    obj = resolve(name)
    if obj is None:
        return [], ""
    method = name.startswith("mindspore.Tensor.")
    last = name.rsplit(".", 1)[1]
    if method and inspect.isfunction(obj):
        params = _from_inspect(obj, drop_first=True)
        if params is not None:
            return [params], "inspect"
    if method:
        docs = doc_signatures(obj, last)
        if docs:
            return docs + _doc_overloads(obj, last, docs), "doc"
        refer = re.search(r":func:`(mindspore\.ops\.\w+)`", inspect.getdoc(obj) or "")
        if refer:
            found, _ = mindspore_signatures(refer.group(1))
            if found:
                return [sig[1:] for sig in found], "ops"
    params = _from_inspect(obj, drop_first=method and not inspect.isclass(obj))
    if params is not None:
        return [params], "inspect"
    docs = doc_signatures(obj, last)
    return (docs, "doc") if docs else ([], "")
