"""torch.randn / torch.rand in a loop of the module's own code (a GAN's `z = torch.randn(batch, latent)` at
every step) become randn_draw / rand_draw (support/helper_random.py), which draw again from one operator per
shape instead of building one per call as ops.randn / ops.rand do (2 ms of CPU a draw on MindSpore 2.10,
0.15 ms reused). Only there: code inside a function or class may end up compiled into a graph (a training
step, a Cell's construct), where a helper keeping Python state would be read once at compile time; the
module's own statements never are. The values come from another sequence than ops.randn's (as ops.randn's
from PyTorch's), and repeat under mindspore.set_seed."""
from __future__ import annotations

import libcst as cst

from ..core import rules
from ..core.names import dotted
from ..support import helpers

# PyTorch function -> (what ops function the mapping wrote, the helper drawing from a reused operator)
DRAWS = {"torch.randn": ("randn", "randn_draw"), "torch.rand": ("rand", "rand_draw")}


def reuse_operator(walk, original: cst.Call, qualified: str, new: cst.BaseExpression) -> cst.BaseExpression:
    """new (the mapped call) with the helper as its function where the draw repeats in a loop of module
    code and its arguments are sizes and a dtype; otherwise new as it is."""
    if qualified not in DRAWS or walk.functions or walk.classes or not walk.loops or not isinstance(new, cst.Call):
        return new
    ctx = walk.ctx
    function, helper = DRAWS[qualified]
    if dotted(new.func) != f"{ctx.ms('mindspore.ops')}.{function}":
        return new
    if any(a.keyword is not None and a.keyword.value != "dtype" for a in new.args) \
            or any(a.star == "**" for a in new.args):
        return new
    local = helpers.use(ctx, helper)
    # a reused operator is cheap only run in order: through the launch queue a draw read back cost more
    # than ops.randn's (2.8-3.9 ms of CPU against 1.9-2.3 ms)
    helpers.use(ctx, "synchronous_cpu_launch")
    ctx.change(original, rules.API_ARGS, qualified, local,
               f"{qualified} in a loop -> {local}(), {helpers.where(ctx)}: it draws again from one random "
               f"operator per shape (ops.{function} builds a new one at each call, about 2 ms of CPU on CPU); "
               "reseeded by mindspore.set_seed")
    drawn = new.with_changes(func=cst.Name(local))
    ctx.loop_draws[id(drawn)] = ctx.changes[-1]  # inside_graph may undo it
    return drawn


def inside_graph(ctx, statements: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
    """statements (a training step's forward, which may be compiled) with the helpers' draws written as
    ops.randn / ops.rand again: a graph would read the helper's Python state once, at compile time."""
    back = {ctx.helpers[helper][0]: (helper, function) for function, helper in DRAWS.values() if helper in ctx.helpers}
    if not back:
        return statements

    records = ctx.loop_draws
    undone = []

    class _Back(cst.CSTTransformer):
        def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
            if isinstance(updated.func, cst.Name) and updated.func.value in back:
                helper, function = back[updated.func.value]
                helpers.release(ctx, helper)
                if id(original) in records:
                    undone.append(records.pop(id(original)))
                return updated.with_changes(func=cst.parse_expression(f"{ctx.ms('mindspore.ops')}.{function}"))
            return updated

    statements = [s.visit(_Back()) for s in statements]
    # the change records of draws written ops.randn again
    ctx.changes[:] = [c for c in ctx.changes if not any(c is record for record in undone)]
    return statements
