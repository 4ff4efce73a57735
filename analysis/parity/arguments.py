"""Constructor arguments of an entry point, in the sandboxed child: manifest
or call-site values may name a class of the tree (`{ class = "m:Block" }`) or
an object to build first (`{ call = "m:GPTConfig", kwargs = {...} }`, nested
freely; a tuple travels as `{ tuple = [256, 128] }`, since code that tests
`isinstance(size, tuple)` takes a list for something else; a torch.nn layer
as `{ layer = "ReLU" }` and an example tensor as `{ tensor = {...} }`, see
layers.py); each side
resolves them in its own tree, so the MindSpore cell gets the converted
Block or config. Also: which required arguments are missing,
and the `porting.toml` lines that would supply them."""
from __future__ import annotations

import inspect

from . import layers
from .manifest import PLACEHOLDER, split_target  # FILL_IN: valid TOML the loader refuses


def resolve(value, tree: str, load_class, notes: dict | None = None, converted: bool = False):
    """`converted`: the MindSpore side (a torch.nn layer argument becomes the converted layer)."""
    def again(inner):
        return resolve(inner, tree, load_class, notes, converted)

    if isinstance(value, dict) and set(value) == {"class"}:
        module, name = split_target(value["class"])
        return load_class(tree, module, name, notes)
    if isinstance(value, dict) and "call" in value and set(value) <= {"call", "args", "kwargs"}:
        module, name = split_target(value["call"])
        target = load_class(tree, module, name, notes)
        return target(*again(value.get("args", [])), **again(value.get("kwargs", {})))
    if isinstance(value, dict) and "layer" in value and set(value) <= {"layer", "args", "kwargs"}:
        return layers.layer(value["layer"], again(value.get("args", [])), again(value.get("kwargs", {})), converted)
    if isinstance(value, dict) and set(value) == {"tensor"} and isinstance(value["tensor"], dict):
        return layers.tensor(value["tensor"], converted)
    if isinstance(value, dict) and set(value) == {"tuple"} and isinstance(value["tuple"], list):
        return tuple(again(v) for v in value["tuple"])  # `(256, 128)` stays a tuple
    if isinstance(value, dict) and set(value) == {"namespace"} and isinstance(value["namespace"], dict):
        import types  # a script's config object (SimpleNamespace, a class of literal fields), read statically

        return types.SimpleNamespace(**again(value["namespace"]))
    if isinstance(value, dict):
        return {k: again(v) for k, v in value.items()}
    if isinstance(value, list):
        return [again(v) for v in value]
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
        left = [p for p in required(target) if p not in kwargs][len(args):]
        if len(left) > 1 and "missing" in str(exc):  # bind names the first only: a person fills all
            return f"missing required arguments: {', '.join(repr(p) for p in left)}"
        return str(exc)
    return ""


def required(target) -> list[str]:
    sig = _signature(target)
    if sig is None:
        return []
    return [p.name for p in sig.parameters.values()
            if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]




def forward_parameters(model_or_class) -> list[str]:
    """The tensors forward() takes (required ones first, then optional ones
    without a default other than None), for the inputs line of a hint."""
    forward = getattr(model_or_class, "forward", None)
    sig = _signature(forward) if forward is not None else None
    if sig is None:
        return ["x"]
    names = [p.name for p in sig.parameters.values() if p.name != "self"
             and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is inspect.Parameter.empty]
    return names or ["x"]


def manifest_hint(job: dict, target, inputs: bool = False, forward_of=None) -> str:
    """A `porting.toml` block (valid TOML) that would let this entry be built
    and fed: the arguments found so far filled in, each missing one and each
    forward input's shape as "FILL_IN"."""
    if job.get("instance"):
        kind, name = "instance", job["instance"]
    else:
        kind, name = ("factory", job["factory"]) if job.get("factory") else ("class", job["class"])
    lines = [f"[[entry]]  # {job.get('name', name)}", f'{kind} = {_toml(job["module"] + ":" + name)}']
    if job.get("factory"):
        lines.append(f'class = {_toml(job["class"])}')
    missing = [p for p in required(target) if p not in (job.get("kwargs") or {})][len(job.get("args") or []):]
    try:
        if job.get("args"):
            lines.append(f"args = {_toml(job['args'])}")
    except ValueError:
        lines.append("# the arguments found include None, which TOML cannot write: give them as kwargs")
    given = {k: v for k, v in (job.get("kwargs") or {}).items() if v is not None}  # None: the default's job
    if missing or given:
        lines.append(f"kwargs = {_toml({**given, **{p: PLACEHOLDER for p in missing}})}")
    if inputs or missing:
        params = forward_parameters(forward_of if forward_of is not None else target)
        lines.append(f"# forward({', '.join(params)}): one input each, in order; dtype float32, float64, "
                     "int64, int32, bool (int64 ids also take range = [0, vocabulary])")
        lines.append("inputs = [" + ", ".join(f'{{ shape = "{PLACEHOLDER}", dtype = "float32" }}'
                                              for _ in params) + "]")
    return "\n".join(lines)


def hint_reason(job: dict, target, why: str, inputs: bool = False, forward_of=None) -> dict:
    """The result fields of an entry that needs a person: why, and the block to add."""
    return {"status": "skipped", "manifest_hint": manifest_hint(job, target, inputs, forward_of),
            "reason": f"{why}; add the block in manifest_hint to porting.toml and replace each {PLACEHOLDER} "
                      "(an argument can be { class = \"module:Name\" } or { call = \"module:Config\", kwargs = {...} })"}


def _toml(value) -> str:
    if value is None:
        raise ValueError("TOML has no null")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, float) and value != value:
        return "nan"
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    return repr(value)


def _key(name) -> str:
    name = str(name)
    return name if name and all(c.isalnum() or c in "_-" for c in name) else _toml(name)
