"""In-place functions: torch.relu_(x), torch.selu_(x), F.elu_(x, 0.5), F.leaky_relu_(x, 0.2),
F.threshold_(x, 0.1, 20.0)... and a functional call told `inplace=True` whose value nobody reads
(F.relu(x, inplace=True) on a line of its own). MindSpore has none of the first kind and drops the
second's write, so as they were the converted code fails or leaves x unchanged.

One rule, the in-place methods' (inplace.py): the out-of-place function's usual conversion (the call
without the trailing underscore, or without inplace=, through the whole dispatch), written back into
the tensor it changes, its first argument, with assign_value: x stays the same object (its aliases see
the values) and is the call's value. Part of a tensor (x[0]: PyTorch writes through it), self and
gradients are marked there; a tensor made in the call just takes the value.

`inplace=True` on a call whose value is read (x = F.relu(x, inplace=True)) becomes the call without it
(its value; x itself is not changed): real code nearly always rebinds the result there, and a write into
x would not compile under jit."""
from __future__ import annotations

import libcst as cst

from analysis.knowledge.mapping import load_signatures

from ..apis.signatures import fix_commas
from ..core import rules
from ..core.names import code
from . import inplace

# the families whose in-place functions write their first argument (torch.nn.init's are handled there)
FAMILIES = ("torch.", "torch.nn.functional.")


def _known(ctx, state_handlers, qualified: str) -> bool:
    return ctx.mint_entry(qualified) is not None or ctx.classic.get(qualified) is not None \
        or qualified in state_handlers


def in_place_base(ctx, handlers, qualified: str | None) -> str | None:
    """torch.relu for torch.relu_ (an in-place function the tables do not map, whose out-of-place one
    they do); None otherwise."""
    if not qualified or not qualified.endswith("_") or qualified.endswith("__"):
        return None
    family, name = qualified.rsplit(".", 1)
    if f"{family}." not in FAMILIES or name.startswith("_") or _known(ctx, handlers, qualified):
        return None
    # torch.selu_ / celu_ / rrelu_ / threshold_: their torch.* namesakes are the functional ones
    for base in (qualified[:-1], f"torch.nn.functional.{name[:-1]}"):
        if _known(ctx, handlers, base):
            return base
    return None


def _first(call: cst.Call) -> int | None:
    """The index of the argument the function changes: the first positional one, or input=."""
    if call.args and call.args[0].keyword is None and not call.args[0].star:
        return 0
    return next((i for i, a in enumerate(call.args) if a.keyword is not None and a.keyword.value == "input"), None)


def _inplace_index(call: cst.Call, qualified: str) -> int | None:
    """The index of an `inplace=True` argument (by keyword, or by position in PyTorch's signature)."""
    for i, a in enumerate(call.args):
        if a.keyword is not None and a.keyword.value == "inplace":
            return i if code(a.value).strip() == "True" else None
    sig = load_signatures().get(qualified)
    if sig is None or len(sig.torch) != 1:
        return None
    names = [p[0] for p in sig.torch[0]]
    if "inplace" not in names:
        return None
    at = names.index("inplace")
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if len(positional) > at and code(positional[at].value).strip() == "True" and not any(a.star for a in call.args):
        return call.args.index(positional[at])
    return None


def rewrite(state, original: cst.Call, updated: cst.Call, qualified: str | None, handlers) -> cst.BaseExpression | None:
    """The in-place call written back into its first argument; `updated` when marked; None when this is
    no call of either kind (the dispatch goes on)."""
    ctx = state.ctx
    base = in_place_base(ctx, handlers, qualified)
    if base is not None:
        plain = updated
    else:
        at = _inplace_index(updated, qualified) if qualified and f"{qualified.rsplit('.', 1)[0]}." in FAMILIES else None
        if at is None:
            return None
        base, plain = qualified, updated.with_changes(args=fix_commas([a for i, a in enumerate(updated.args) if i != at]))
        if id(original) not in state.__dict__.get("unused_results", ()):
            # its value is read: the result without inplace= (MindSpore's in-place kernels, ops.relu's
            # inplace=True, are missing on CPU); a write into x would not compile under jit
            state.__dict__.setdefault("qualified_as", {})[id(original)] = base
            return state.leave_Call(original, plain)
    first = _first(updated)
    if first is None or any(a.star for a in updated.args):
        return None
    name = qualified.rsplit(".", 1)[1]
    kind, target = inplace._target(ctx, original, updated.args[first].value, source=original.args[first].value)
    if kind == "grad":
        return inplace._mark_grad(ctx, original, updated, name)
    marks = len(ctx.unconverted)
    state.__dict__.setdefault("qualified_as", {})[id(original)] = base
    value = state.leave_Call(original, plain)
    if value is plain:  # the out-of-place call stays marked, or as it was
        if len(ctx.unconverted) == marks:
            ctx.mark(original, rules.API_UNMAPPED, qualified,
                     f"{qualified} has no MindSpore counterpart: write x.assign_value(<{base}(x, ...) converted>)")
        return updated
    return inplace._write_back(ctx, original, updated, target, value, name, base.rsplit(".", 1)[1], kind, api=qualified)
