"""functools.partial(<torch API>, device=...): MindSpore's functions take no device, so a bound device=
would reach every call of the converted partial and raise; it is dropped (placement follows the
process's device context). The analyzer's MS-PARTIAL-DEVICE finding names the same use."""
from __future__ import annotations

import libcst as cst

from ..core import rules
from ..core.names import code, dotted, resolve
from . import signatures


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


def bound_api(call: cst.Call, aliases: dict[str, str]) -> cst.BaseExpression | None:
    """The PyTorch API a partial() binds (`partial(nn.Conv1d, kernel_size=1)`), else None."""
    if not is_partial(call) or not call.args or call.args[0].keyword is not None or call.args[0].star:
        return None
    head = call.args[0].value
    return head if (resolve(head, aliases) or "").startswith("torch.") else None


def deferred(ctx, qualified: str, has_handler: bool) -> bool:
    """Whether the API a partial() binds must be converted with its bound arguments rather than renamed:
    renaming alone keeps PyTorch's argument names and defaults (`partial(nn.Linear, bias=False)` became
    `partial(nn.Dense, bias=False)`, and `partial(nn.Conv1d, ...)` silently lost its bias)."""
    entry = ctx.mint_entry(qualified) or ctx.classic.get(qualified)
    return has_handler or (entry is not None and not entry.helper and entry.category != "consistent")


def convert_bound(ctx, heads: set[int], original: cst.Call, updated: cst.Call, convert) -> cst.Call | None:
    """partial(torch_api, *bound) -> partial(ms_api, *converted): the API converted as a call of the bound
    arguments alone (each call through the partial appends its own after them). Kept and marked when the
    conversion is no plain call of a MindSpore name with those arguments (a composition, a helper that
    needs the call's tensors, a marker of its own)."""
    head = original.args[0].value if original.args else None
    if head is None or id(head) not in heads:
        return None
    qualified = resolve(head, ctx.aliases)
    call = cst.Call(func=updated.args[0].value, args=updated.args[1:])
    entry = ctx.mint_entry(qualified) or ctx.classic.get(qualified)
    later: list[cst.Arg] = []
    if entry is not None and signatures.leaves_required_out(call, entry):
        names = signatures.later_positionals(call, entry)
        if names is None:
            return _mark_apart(ctx, original, updated, head, qualified, entry)
        # stand-ins for what the calls through the partial give: converted in place, then taken out again
        later = [cst.Arg(cst.Name(f"later_{name}")) for name in names]
        given = sum(1 for a in call.args if a.keyword is None)
        call = call.with_changes(args=[*call.args[:given], *later, *call.args[given:]])
    marks = len(ctx.unconverted)
    new = convert(ctx, original, call, qualified)
    plain = isinstance(new, cst.Call) and dotted(new.func) is not None and new.func is not call.func \
        and _positional(new) == _positional(call)  # the calls through it append theirs after these
    if plain and later:
        given = _positional(call) - len(later)
        stand_ins = [a.value for a in new.args[given:given + len(later)]]
        plain = all(a is b.value for a, b in zip(stand_ins, later)) and not any(
            _holds(a, b.value) for a in new.args[:given] + new.args[given + len(later):] for b in later)
        if plain:
            new = new.with_changes(args=[*new.args[:given], *new.args[given + len(later):]])
    if len(ctx.unconverted) > marks or not plain:
        ctx.keep(head)
        if len(ctx.unconverted) == marks:
            ctx.mark(original, rules.API_DIFF, qualified,
                     f"functools.partial over {qualified}: its MindSpore form is not one call with the same "
                     "arguments, so the partial cannot be rewritten as it stands; write the partial over the "
                     "MindSpore call by hand")
        return updated
    args = [cst.Arg(new.func), *new.args]
    args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return updated.with_changes(args=args)


def _mark_apart(ctx, original, updated, head, qualified, entry) -> cst.Call:
    ctx.keep(head)
    ctx.mark(original, rules.API_DIFF, qualified,
             f"functools.partial binds only some arguments of {qualified}, whose MindSpore counterpart "
             f"({entry.primary}) names or defaults its arguments differently: the bound and the later "
             "arguments cannot be converted apart; write a function that builds the MindSpore object "
             "from all of them")
    return updated


def _holds(arg: cst.Arg, node: cst.CSTNode) -> bool:
    """Whether a stand-in ended up inside another argument (a value computed from it)."""
    found = []

    class Find(cst.CSTVisitor):
        def on_visit(self, n):
            if n is node:
                found.append(n)
            return not found

    arg.visit(Find())
    return bool(found)


def _positional(call: cst.Call) -> int:
    return sum(1 for a in call.args if a.keyword is None)
