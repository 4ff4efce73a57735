"""Calls of layers a cell stores, where MindSpore's layer takes its inputs in another form.

nn.LSTM's hidden state: PyTorch reads any pair (h, c), a list included (truncated backpropagation
often rebuilds it with a list comprehension); MindSpore's LSTM insists on a tuple. `self.lstm(x, hx)`
gets `tuple(hx)` unless hx is written as a tuple (tuple() of a tuple is the same tuple)."""
from __future__ import annotations

import libcst as cst

from . import rules
from .names import dotted

PAIR_STATE = ("torch.nn.LSTM",)  # layers whose second input is a (h, c) pair


def stored_layer(ctx, class_name: str, func: cst.BaseExpression) -> str | None:
    """The torch class of the layer `self.<attr>` names in class_name (from the layer map), else None."""
    name = dotted(func)
    if not name or not name.startswith("self."):
        return None
    attribute = name[5:]
    for record in ctx.layer_map:
        if record.class_name == class_name and record.attribute == attribute:
            return record.torch_api
    return None


def pair_state(ctx, class_name: str, original: cst.Call, updated: cst.Call) -> cst.Call | None:
    """self.lstm(x, hx) -> self.lstm(x, tuple(hx)); None when nothing changes."""
    layer = stored_layer(ctx, class_name, original.func)
    if layer not in PAIR_STATE:
        return None
    args = list(updated.args)
    if len(args) < 2 or args[1].keyword is not None or args[1].star:
        return None
    state = args[1].value
    if isinstance(state, cst.Tuple) or (isinstance(state, cst.Name) and state.value == "None"):
        return None
    args[1] = args[1].with_changes(value=cst.Call(func=cst.Name("tuple"), args=[cst.Arg(value=state)]))
    ctx.change(original, rules.API_ARGS, layer, "mindspore.nn.LSTM",
               "the (h, c) state passed as tuple(...): MindSpore's LSTM takes only a tuple")
    return updated.with_changes(args=args)


def stored_names(tree) -> set[str]:
    """Attribute names `self.<name> = nn.LSTM(...)` binds anywhere in the file (the outline walks the
    statements calling them); read with the stdlib ast, by the class's last name."""
    import ast

    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            func = node.value.func
            last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if last in {p.rsplit(".", 1)[1] for p in PAIR_STATE}:
                names.update(t.attr for t in node.targets if isinstance(t, ast.Attribute))
    return names
