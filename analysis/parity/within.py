"""Entries checked as their parent builds them, in the sandboxed child.

A block whose arguments only a parent's code knows (`block(self.in_channels,
out_channels, stride)` in a ResNet, `Attention(latent_dim, heads=...)` in a
Perceiver) is taken from the built parent: the first submodule of its class,
the MindSpore cell at the same path of the converted parent, and as inputs
the tensors the parent's forward passes it (recorded by a hook), each with
its own shape and dtype."""
from __future__ import annotations

from . import arguments
from .sources import _class_file


class NotBuilt(Exception):
    """The parent could not be built or holds no such submodule (a skip's reason)."""


def build_parent(parent: dict, tree: str, load_class, notes: dict, module_type):
    """The parent object from its own entry (class, factory, instance or another parent)."""
    if parent.get("within"):
        return submodule(parent, tree, load_class, notes, module_type)[0]
    target = parent.get("instance") or parent.get("factory") or parent["class"]
    found = load_class(tree, parent["module"], target, notes)
    if parent.get("instance"):
        return found
    converted = module_type.__module__.startswith("mindspore")  # the MindSpore side: converted layer arguments
    args = arguments.resolve(parent.get("args", []), tree, load_class, notes, converted)
    kwargs = arguments.resolve(parent.get("kwargs", {}), tree, load_class, notes, converted)
    why = arguments.unbound(found, args, kwargs)
    if why:
        raise NotBuilt(f"its parent {parent['class']} cannot be built either ({why})")
    obj = found(*args, **kwargs)
    if not isinstance(obj, module_type):
        raise NotBuilt(f"its parent {target}() returned a {type(obj).__name__}")
    return obj


def submodule(job: dict, tree: str, load_class, notes: dict, module_type, path: str | None = None):
    """(the submodule, its path, the parent): at `path` when given (the
    converted side), else the first one of the job's class defined in the
    job's module, in the first of the job's parents (`within`, then
    `within_also`) that holds one; the job's `within` becomes that parent,
    so the converted side builds the same one."""
    if path is None and job.get("within_also"):
        tried = []
        for candidate in [job["within"], *job["within_also"]]:
            try:
                found = submodule(dict(job, within=candidate, within_also=[]), tree, load_class, notes, module_type)
            except NotBuilt as exc:
                tried.append(str(exc))
                continue
            job["within"] = candidate
            return found
        raise NotBuilt("; ".join(tried))
    parent = build_parent(job["within"], tree, load_class, notes, module_type)
    named = parent.cells_and_names() if hasattr(parent, "cells_and_names") else parent.named_modules()
    if path is not None:
        found = dict(named).get(path)
        if found is None:
            raise NotBuilt(f"the converted {job['within']['class']} has no cell at {path}")
        return found, path, parent
    from .discover import module_path

    rel = module_path(job["module"])
    for name, module in named:
        if not name or type(module).__name__ != job["class"]:
            continue
        file = (_class_file(type(module)) or "").replace("\\", "/")
        if file.endswith(("/" + rel, "/" + rel[:-3] + "/__init__.py")):
            return module, name, parent
    raise NotBuilt(f"{job['within']['class']} as built here holds no {job['class']}")


def recorded_inputs(parent, path: str, sub, parent_inputs: list, device: str, fw) -> list[dict] | None:
    """The specs of what the parent's forward passes the submodule the first
    time (tensors only; None when it passes anything else or never calls it)."""
    import torch

    seen: list = []

    def hook(module, args, kwargs):
        if not seen:
            seen.append((args, kwargs))

    handle = sub.register_forward_pre_hook(hook, with_kwargs=True)
    training = parent.training
    parent.eval()
    values = fw.to_torch(fw.make_arrays(parent_inputs, 0), device)
    names = [spec.get("name") for spec in parent_inputs]
    try:
        with torch.no_grad():
            parent(*[v for v, n in zip(values, names) if not n], **{n: v for v, n in zip(values, names) if n})
    except Exception:  # user code: no recording, inference takes over
        return None
    finally:
        handle.remove()
        parent.train(training)
    if not seen:
        return None
    args, kwargs = seen[0]
    if not all(isinstance(v, torch.Tensor) for v in args):  # `block(x, None, False)`: by name, as forward's
        named = _by_name(sub, args, kwargs)
        if named is None:
            return None
        args, kwargs = (), named
    kwargs = {k: v for k, v in kwargs.items() if not _is_default(sub, k, v)}  # `mask=None` passed on
    values = list(args) + list(kwargs.values())
    if not values or not all(isinstance(v, torch.Tensor) or _is_constant(v) for v in values) \
            or not any(isinstance(v, torch.Tensor) for v in values):
        return None
    names = [None] * len(args) + list(kwargs)
    # a flag or None forward requires (`inference=False`, `embeddings=None`): passed as the parent passes it
    return [_spec(v, name) if isinstance(v, torch.Tensor) else {"constant": v, "name": name}
            for v, name in zip(values, names)]


CONSTANT_TYPES = (bool, int, float, str, type(None))


def _is_constant(value) -> bool:
    return isinstance(value, CONSTANT_TYPES)


def _by_name(module, args: tuple, kwargs: dict) -> dict | None:
    """The recorded call's arguments by forward()'s parameter names (None when they do not bind)."""
    import inspect

    try:
        bound = inspect.signature(module.forward).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return None
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in bound.signature.parameters.values()
           if p.name in bound.arguments):
        return None
    return dict(bound.arguments)


def _is_default(module, name: str, value) -> bool:
    """A keyword the parent passes that equals forward()'s own default (None,
    `inverted_attention=False`): leaving it out changes nothing."""
    import inspect

    import torch

    if isinstance(value, torch.Tensor):
        return False
    try:
        param = inspect.signature(module.forward).parameters.get(name)
    except (TypeError, ValueError):
        return value is None
    if value is None and (param is None or param.default is not inspect.Parameter.empty):
        return True  # taken by **kwargs, or forward's own default: a None forward requires is passed on
    try:
        return param is not None and param.default is not inspect.Parameter.empty and bool(param.default == value)
    except Exception:  # an exotic default's __eq__
        return False


DTYPES = {"torch.float32": "float32", "torch.float64": "float64", "torch.float16": "float16",
          "torch.int64": "int64", "torch.int32": "int32", "torch.bool": "bool"}


def _spec(tensor, name: str | None) -> dict:
    spec = {"shape": list(tensor.shape), "dtype": DTYPES.get(str(tensor.dtype), "float32")}
    if spec["dtype"] in ("int64", "int32") and tensor.numel():
        spec["range"] = [int(tensor.min()), int(tensor.max()) + 1]  # ids stay within what the parent fed
    if spec["dtype"] in ("bool", "int64", "int32") and tensor.numel() > 1 and bool((tensor == tensor.flatten()[0]).all()):
        spec["fill"] = tensor.flatten()[0].item()  # a constant mask or state the parent fed stays that constant
    if name:
        spec["name"] = name
    return spec
