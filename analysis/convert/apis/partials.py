"""functools.partial(<torch API>, device=...): MindSpore's functions take no device, so a bound device=
would reach every call of the converted partial and raise; it is dropped (placement follows the
process's device context). The analyzer's MS-PARTIAL-DEVICE finding names the same use."""
from __future__ import annotations

import libcst as cst

from ..core import rules
from ..core.names import code, dotted, resolve


def drop_device(ctx, original: cst.Call, updated: cst.Call) -> cst.Call | None:
    """The partial without device=, or None when this is no partial of a torch API binding a device."""
    name = dotted(original.func)
    if name is None or ctx.foreign is None or not original.args or original.args[0].keyword is not None:
        return None
    head, _, rest = name.partition(".")
    module = ctx.foreign.modules.get(head)  # every import of the file, torch's aside (scan/receivers.py)
    if (f"{module}.{rest}" if module and rest else module) != "functools.partial":
        return None
    api = resolve(original.args[0].value, ctx.aliases)
    kept = [a for a in updated.args if not (a.keyword is not None and a.keyword.value == "device")]
    if api is None or len(kept) == len(updated.args):
        return None
    kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    ctx.change(original, rules.PARTIAL_DEVICE, api, "",
               "device= dropped from functools.partial(...): MindSpore places tensors by its device context")
    return updated.with_changes(args=kept)


def is_partial(call: cst.Call) -> bool:
    """Spelled functools.partial / partial (the walk's check, before the call's arguments are converted)."""
    return code(call.func) in ("partial", "functools.partial")


def placement_args(call: cst.Call, aliases: dict[str, str]) -> list[cst.Arg]:
    """The device= argument of a partial() over a PyTorch function: drop_device removes it, so it is not
    walked (a torch.device(...) in it would be marked, and keep torch imported, for nothing)."""
    if not call.args or call.args[0].keyword is not None or call.args[0].star \
            or not (resolve(call.args[0].value, aliases) or "").startswith("torch."):
        return []
    return [a for a in call.args if a.keyword is not None and a.keyword.value == "device"]
