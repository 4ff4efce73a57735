"""Calls on cells whose MindSpore spelling differs (issue 16, pattern 3 and the LSTM state).

- nn.LSTM's hidden state: PyTorch reads any pair (h, c), a list included (truncated backpropagation
  often rebuilds it with a list comprehension); MindSpore's LSTM insists on a tuple. `self.lstm(x, hx)`
  gets `tuple(hx)` unless hx is written as a tuple (tuple() of a tuple is the same tuple).
- forward: a Cell computes in construct and has no forward, so self.forward(...), super().forward(...)
  and Base.forward(self, ...) call construct.
- a subclass of a built-in layer (class Scaled(nn.Linear)) hands PyTorch's arguments to the base's
  __init__; the MindSpore base (nn.Dense) reads its own, so they are converted as a call of the layer."""
from __future__ import annotations

import ast

import libcst as cst

from ..core import astwalk, rules
from ..core.bound import INSTANCE
from ..core.names import code, dotted, dotted_ast, resolve_text


PAIR_STATE = ("torch.nn.LSTM", "torch.nn.LSTMCell")  # layers whose second input is a (h, c) pair


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


def called_layer(ctx, class_name: str, func: cst.BaseExpression) -> str | None:
    """The torch class of the layer a call calls: self.<attr> of the cell being defined, or a plain name
    every assignment binds to one layer."""
    layer = stored_layer(ctx, class_name, func) if class_name else None
    if layer is None and isinstance(func, cst.Name):
        layer = ctx.bound.get(func.value)
    return layer


def input_keyword(ctx, class_name: str, original: cst.Call, updated: cst.Call) -> cst.Call | None:
    """layer(input=x) -> layer(x): `input` is PyTorch's name for a layer's first forward argument, MindSpore's
    constructs name it otherwise (Dense.construct(x)); None when nothing changes."""
    args = list(updated.args)
    if not args or args[0].keyword is None or args[0].keyword.value != "input":
        return None
    layer = called_layer(ctx, class_name, original.func)
    if not layer or not layer.startswith("torch.nn.") or not layer.rsplit(".", 1)[1][:1].isupper():
        return None
    args[0] = args[0].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)
    ctx.change(original, rules.API_ARGS, layer, "mindspore.nn." + layer.rsplit(".", 1)[1],
               "input= passed by position: MindSpore's construct names its first argument otherwise")
    return updated.with_changes(args=args)


def pair_state(ctx, class_name: str, original: cst.Call, updated: cst.Call) -> cst.Call | None:
    """self.lstm(x, hx) -> self.lstm(x, tuple(hx)); None when nothing changes."""
    layer = called_layer(ctx, class_name, original.func)
    if layer not in PAIR_STATE:
        return None
    args = list(updated.args)
    if len(args) < 2 or args[1].keyword is not None or args[1].star:
        return None
    state = args[1].value
    if isinstance(state, cst.Tuple) or (isinstance(state, cst.Name) and state.value == "None"):
        return None
    args[1] = args[1].with_changes(value=cst.Call(func=cst.Name("tuple"), args=[cst.Arg(value=state)]))
    ctx.change(original, rules.API_ARGS, layer, "mindspore.nn." + layer.rsplit(".", 1)[1],
               f"the (h, c) state passed as tuple(...): MindSpore's {layer.rsplit('.', 1)[1]} takes only a tuple")
    return updated.with_changes(args=args)


# identifiers whose statements the walk must visit even without a torch name: forward calls, super()
# calls of a layer subclass's __init__
HOT = frozenset({"forward", "super", "__init__"})


def stored_names(tree) -> set[str]:
    """Attribute names `self.<name> = nn.LSTM(...)` binds anywhere in the file, and names called with
    input= (`self.fc(input=x)`: input_keyword), so that the outline walks the statements calling them;
    read with the stdlib ast, by the class's last name."""

    names = set()
    for node in astwalk.nodes(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)) \
                and any(k.arg == "input" for k in node.keywords):
            names.add(node.func.id if isinstance(node.func, ast.Name) else node.func.attr)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            func = node.value.func
            last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if last in {p.rsplit(".", 1)[1] for p in PAIR_STATE}:
                names.update(t.attr if isinstance(t, ast.Attribute) else t.id for t in node.targets
                             if isinstance(t, (ast.Attribute, ast.Name)))
    return names | HOT


# -- calls on cells: forward is construct, a built-in layer's own __init__ takes MindSpore's arguments --

def _is_super(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "super"


def forward_call(ctx, cells: set[str], original: cst.Call, updated: cst.Call) -> cst.Call | None:
    """self.forward(x), super().forward(x), Base.forward(self, x), m.forward(x) (`cells`: the cell classes
    of the file and the names bound to networks), self.enc.forward(x) on an instance of a cell class
    (bound.py) -> construct: a MindSpore cell's forward computation is its construct method."""
    func = updated.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "forward"):
        return None
    receiver = func.value
    kind = ctx.bound.get(dotted(receiver) or "", "")
    if not ((isinstance(receiver, cst.Name) and (receiver.value == "self" or receiver.value in cells))
            or _is_super(receiver) or (kind.startswith(INSTANCE) and kind[len(INSTANCE):] in cells)):
        return None
    ctx.change(original, rules.CELL_FORWARD, "torch.nn.Module.forward", "mindspore.nn.Cell.construct",
               f"{code(receiver)}.forward(...) -> {code(receiver)}.construct(...)")
    return updated.with_changes(func=func.with_changes(attr=cst.Name("construct")))


def layer_base(ctx, class_name: str) -> tuple[str, cst.BaseExpression] | None:
    """(torch class, its expression) when class_name subclasses a built-in torch.nn layer (not Module)."""
    tree = ctx.outline.tree if ctx.outline is not None else None
    if tree is None:
        return None
    for node in astwalk.nodes(tree):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            for base in node.bases:
                text = dotted_ast(base)
                qualified = resolve_text(text, ctx.aliases) if text else None
                if qualified and qualified.startswith("torch.nn.") and qualified != "torch.nn.Module" \
                        and qualified.rsplit(".", 1)[1][:1].isupper():
                    return qualified, cst.parse_expression(text)
            return None
    return None


def base_init(ctx, class_name: str, original: cst.Call, updated: cst.Call, convert_layer) -> cst.Call | None:
    """super().__init__(args) (or super(C, self).__init__, Base.__init__(self, args)) in a subclass of a
    built-in layer: args converted as for a call of the layer itself (nn.Linear(i, o, False) ->
    nn.Dense(i, o, has_bias=False)), since the MindSpore base reads MindSpore's arguments. convert_layer is
    the call dispatch's (calls.py), passed in so that this module does not import its caller."""
    func = updated.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "__init__"):
        return None
    base = layer_base(ctx, class_name)
    if base is None:
        return None
    qualified, expression = base
    args = list(updated.args)
    explicit = not _is_super(func.value)
    if explicit:  # Base.__init__(self, ...)
        if not (args and isinstance(args[0].value, cst.Name) and args[0].value.value == "self"):
            return None
        self_arg, args = args[0], args[1:]
    new = convert_layer(ctx, original, updated.with_changes(func=expression, args=args), qualified)
    if not isinstance(new, cst.Call) or new is None:
        return None
    new_args = _dtype_when_given(list(new.args))
    if explicit:
        target = new.func
        new_args = [self_arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                    if new_args else self_arg.with_changes(comma=cst.MaybeSentinel.DEFAULT), *new_args]
        return updated.with_changes(func=func.with_changes(value=target), args=new_args)
    return updated.with_changes(args=new_args)


def _dtype_when_given(args: list[cst.Arg]) -> list[cst.Arg]:
    """A subclass forwarding its own `dtype=None` default (`super().__init__(i, o, dtype=dtype)`): MindSpore's
    layers refuse dtype=None, so the keyword is passed only when the caller gave a dtype
    (`**({"dtype": dtype} if dtype is not None else {})`); a literal None is dropped."""
    kept: list[cst.Arg] = []
    for arg in args:
        if arg.keyword is None or arg.keyword.value != "dtype":
            kept.append(arg)
        elif isinstance(arg.value, cst.Name) and arg.value.value != "None":
            name = arg.value.value
            value = cst.parse_expression(f'{{"dtype": {name}}} if {name} is not None else {{}}')
            kept.append(arg.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT, star="**",
                                         value=cst.parse_expression(f"({code(value)})")))
        elif not (isinstance(arg.value, cst.Name) and arg.value.value == "None"):
            kept.append(arg)
    if kept and args and kept[-1] is not args[-1]:
        kept[-1] = kept[-1].with_changes(comma=args[-1].comma)
    return kept

