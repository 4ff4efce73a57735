"""Layers PyTorch also calls with an unbatched input (issue 29): nn.Conv1d/2d/3d, nn.LSTM/GRU/RNN and their
cells. MindSpore's layer of the same name refuses an input without its batch axis, so a converted layer
is built from the local class of that name (support/helper_unbatched.py): MindSpore's layer, which runs
such an input as a batch of one. Only a call the mapping converted to MindSpore's layer is rewritten (a
marked call stays as it was); the layer map keeps MindSpore's class (parity aligns by it)."""
from __future__ import annotations

import libcst as cst

from ..core import rules
from ..core.context import ConversionContext
from ..core.names import dotted
from ..support import helpers

LAYERS = frozenset({"Conv1d", "Conv2d", "Conv3d", "LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell"})


def rewrite(ctx: ConversionContext, original: cst.Call, qualified: str, new: cst.BaseExpression) -> cst.BaseExpression:
    """nn.Conv2d(...) (MindSpore's, as converted) -> Conv2d(...), the local class; anything else as it is."""
    name = qualified.rsplit(".", 1)[1]
    if qualified != f"torch.nn.{name}" or name not in LAYERS or not isinstance(new, cst.Call) \
            or ctx.spelling.qualify(dotted(new.func) or "") != f"mindspore.nn.{name}":
        return new
    local = helpers.use(ctx, name)
    ctx.change(original, rules.API_ARGS, qualified, local,
               f"mindspore.nn.{name} -> {local}, {helpers.where(ctx, 'a local class')} (MindSpore's {name}, which "
               "also takes PyTorch's unbatched input: MindSpore's refuses an input without its batch axis)")
    return new.with_changes(func=cst.Name(local))
