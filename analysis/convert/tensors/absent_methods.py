"""Tensor method calls no rule converts that cannot run as written in MindSpore, on a value the file
binds to a torch tensor (x = torch.ones(...); x.narrow_copy(...)):
- a method MindSpore's Tensor does not have at all: AttributeError;
- a method it has under the same name, called with a keyword its namesake does not take
  (x.quantile(0.5, dim=0): MindSpore's takes axis=): TypeError.
The analyzer reports these calls unmapped (manual); the converted text says so too, with a marker on the
call, instead of leaving it bare (the held-out bench, bench/heldout_calls.py, found them).

The names are data (absent_methods.json): the public methods of torch.Tensor that mindspore.Tensor
lacks, and the parameters of those it has (where Python can read them), read from the installed
frameworks by `python -m analysis.convert.tensors.absent_methods`."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import libcst as cst

from ..core import rules
from ..core.bound import tensor_receiver
from ..core.context import ConversionContext

PATH = Path(__file__).with_name("absent_methods.json")


@lru_cache(maxsize=1)
def _data() -> dict:
    return json.loads(PATH.read_text(encoding="utf-8")) if PATH.exists() else {"methods": [], "parameters": {}}


def names() -> frozenset[str]:
    """Every method name a rule here may act on (the outline walks the lines that call one)."""
    return frozenset(_data()["methods"]) | frozenset(_data()["parameters"])


def mark(ctx: ConversionContext, original: cst.Call, updated: cst.Call) -> cst.Call | None:
    """The call, marked, when its receiver is a torch tensor and, left as written, MindSpore's Tensor
    has no such method or takes none of a keyword it passes (None otherwise: left to the other rules,
    or to nobody). Only for calls no rule converted: the caller asks after the tables had their say."""
    func = original.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in names() \
            or not tensor_receiver(ctx, func.value):
        return None
    name = func.attr.value
    if name in _data()["methods"]:
        action = f"MindSpore tensors have no {name}(): left as written it raises AttributeError; rewrite it with " \
                 "MindSpore operations"
    else:
        taken = _data()["parameters"][name]
        foreign = [a.keyword.value for a in original.args if a.keyword is not None and a.keyword.value not in taken]
        if not foreign:
            return None
        action = f"MindSpore's Tensor.{name} takes no {foreign[0]}= (its parameters: {', '.join(taken) or 'none'}): " \
                 "left as written it raises TypeError; rewrite the call for MindSpore's parameters"
    # caution, not mark: the call is returned with its arguments converted (torch.ones(3) inside is no torch left)
    ctx.caution(original, rules.API_UNMAPPED, f"torch.Tensor.{name}", action)
    return updated


def build() -> dict:
    """The data file's content, from the installed torch and mindspore."""
    import mindspore
    import torch

    import inspect

    instance = mindspore.tensor([1.0])  # an instance too: a method found by attribute lookup counts as present
    public = [n for n in dir(torch.Tensor) if not n.startswith("_") and callable(getattr(torch.Tensor, n, None))]
    methods = sorted(n for n in public if not hasattr(mindspore.Tensor, n) and not hasattr(instance, n))
    parameters = {}
    for name in public:
        if name in methods:
            continue
        try:
            signature = inspect.signature(getattr(mindspore.Tensor, name))
        except (TypeError, ValueError):
            continue  # a builtin without a readable signature: nothing known of its keywords
        params = list(signature.parameters.values())[1:]  # self
        if any(p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in params):
            continue  # takes anything
        parameters[name] = [p.name for p in params]
    return {"about": "Public methods of torch.Tensor that mindspore.Tensor lacks (methods), and the parameters of "
                     "mindspore.Tensor's namesakes whose signature Python can read (parameters). Written by "
                     "`python -m analysis.convert.tensors.absent_methods`; read by absent_methods.py.",
            "versions": {"torch": torch.__version__, "mindspore": mindspore.__version__}, "methods": methods,
            "parameters": dict(sorted(parameters.items()))}


if __name__ == "__main__":
    data = build()
    PATH.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"{len(data['methods'])} absent methods, {len(data['parameters'])} signatures written to {PATH}")
