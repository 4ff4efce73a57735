"""Constructor arguments of an entry point, in the sandboxed child: manifest
or call-site values may name a class of the tree (`{ class = "m:Block" }`) or
an object to build first (`{ call = "m:GPTConfig", kwargs = {...} }`, nested
freely); each side resolves them in its own tree, so the MindSpore cell gets
the converted Block or config. Also: which required arguments are missing,
and the `porting.toml` lines that would supply them."""
from __future__ import annotations

import inspect

from .manifest import split_target


def resolve(value, tree: str, load_class, notes: dict | None = None):
    if isinstance(value, dict) and set(value) == {"class"}:
        module, name = split_target(value["class"])
        return load_class(tree, module, name, notes)
    if isinstance(value, dict) and "call" in value and set(value) <= {"call", "args", "kwargs"}:
        module, name = split_target(value["call"])
        target = load_class(tree, module, name, notes)
        return target(*resolve(value.get("args", []), tree, load_class, notes),
                      **resolve(value.get("kwargs", {}), tree, load_class, notes))
    if isinstance(value, dict) and set(value) == {"namespace"} and isinstance(value["namespace"], dict):
        import types  # a script's config object (SimpleNamespace, a class of literal fields), read statically

        return types.SimpleNamespace(**resolve(value["namespace"], tree, load_class, notes))
    if isinstance(value, dict):
        return {k: resolve(v, tree, load_class, notes) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, tree, load_class, notes) for v in value]
    return value


def _signature(target) -> inspect.Signature | None:
    try:
        return inspect.signature(target)
    except (TypeError, ValueError):
        return None


def unbound(target, args: list, kwargs: dict) -> str:
    """'' when the arguments fit the signature, else why not (missing names)."""
    sig = _signature(target)
    if sig is None:
        return ""
    try:
        sig.bind(*args, **kwargs)
    except TypeError as exc:
        return str(exc)
    return ""


def required(target) -> list[str]:
    sig = _signature(target)
    if sig is None:
        return []
    return [p.name for p in sig.parameters.values()
            if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def manifest_hint(job: dict, target, inputs: bool = False) -> str:
    """The porting.toml lines to add so this entry can be built and fed."""
    kind = "factory" if job.get("factory") else "class"
    name = job.get("factory") or job["class"]
    lines = ["[[entry]]", f'{kind} = "{job["module"]}:{name}"']
    if job.get("factory"):
        lines.append(f'class = "{job["class"]}"')
    missing = [p for p in required(target) if p not in (job.get("kwargs") or {})][len(job.get("args") or []):]
    if missing or job.get("kwargs"):
        given = [f"{k} = {_toml(v)}" for k, v in (job.get("kwargs") or {}).items()]
        lines.append("kwargs = { " + ", ".join(given + [f"{p} = ..." for p in missing]) + " }")
    if inputs or missing:
        lines.append('inputs = [{ shape = [4, ...], dtype = "float32" }]')
    return "add to porting.toml (replace each ...; an argument can be { class = \"module:Name\" } or " \
           "{ call = \"module:Config\", kwargs = {...} }): " + " | ".join(lines)


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    return repr(value)
