"""Calls on objects whose kind the file's assignments tell (bound.py): the cases where the
converted object would accept the same call and silently do something else, or refuse it.

- s.numel() on a torch.Size (s = x.size()): the converted x.shape is a tuple -> math.prod(s)
- Sequential insert()/extend(): SequentialCell has neither -> marked
- Sequential / ModuleList append() (and extend()) whose result is used: PyTorch returns the
  container, MindSpore None -> marked (a statement of its own converts)
- a ConvTranspose layer called with output_size: MindSpore's construct takes the input only
  -> transposed.output_size_call (a local helper runs the layer's weights at that size)
- torch.Size(seq) -> tuple(seq)
- requires_grad_() on a layer or converted cell: Cell has none -> marked
- dtype casts of a layer or cell by to(dtype)/type(dtype): to(torch.float64) marked, float32 dropped
  (double()/float()/half() are idioms.py's cast_cell)
- x.max(dim=1).values / .indices -> [0] / [1] (MindSpore returns a plain tuple)
"""
from __future__ import annotations

import libcst as cst

from ..apis import sample_checks
from ..core import rules
from ..core.bound import INSTANCE, SIZE
from ..core.fresh import is_fresh
from ..core.names import code, dotted, resolve
from ..support import helpers
from . import transposed

SEQUENTIAL = "torch.nn.Sequential"
MODULE_LIST = "torch.nn.ModuleList"
CONV_TRANSPOSE = tuple(f"torch.nn.ConvTranspose{d}d" for d in (1, 2, 3))
# kinds some rule here (or paramnames) acts on: lines naming a variable of these kinds are walked
KINDS = frozenset({SIZE, SEQUENTIAL, MODULE_LIST, "torch.nn.Embedding", *CONV_TRANSPOSE})
# method names acted on whatever the receiver's name
METHODS = frozenset({"requires_grad_"})  # forward: layercalls.HOT


def hot_names(bound: dict[str, str]) -> set[str]:
    """Identifiers that make a line worth walking (outline.py)."""
    return {key.rsplit(".", 1)[-1] for key, kind in bound.items() if kind in KINDS} | METHODS


def size(ctx, original: cst.Call, updated: cst.Call, qualified: str, entry) -> cst.BaseExpression:
    """torch.Size(seq) -> tuple(seq): MindSpore's shapes are plain tuples."""
    if len(updated.args) > 1 or any(a.keyword or a.star for a in updated.args):
        return updated
    ctx.change(original, rules.TENSOR_SIZE, SIZE, "tuple", "torch.Size(...) -> tuple(...) (a MindSpore shape is a tuple)")
    return updated.with_changes(func=cst.Name("tuple"))


HANDLERS = {SIZE: size}


def _kind(state, node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "size" \
            and not node.args:
        return SIZE
    if isinstance(node, cst.Call) and resolve(node.func, state.ctx.aliases) == SIZE:
        return SIZE
    if isinstance(node, cst.Attribute) and node.attr.value == "shape":
        return SIZE
    name = dotted(node)
    bound = state.ctx.bound
    return bound.get(name) if name else None


def _is_module(state, kind: str | None) -> bool:
    """A torch.nn layer or container, or an instance of a class converted to a Cell."""
    if not kind:
        return False
    if kind.startswith(INSTANCE):
        return kind[len(INSTANCE):] in state.cells
    return kind.startswith("torch.nn.") and kind.rsplit(".", 1)[1][:1].isupper()


def _constructed(state, node: cst.BaseExpression) -> str | None:
    """The torch class a receiver is built from right there: nn.Linear(2, 2).double()."""
    return resolve(node.func, state.ctx.aliases) if isinstance(node, cst.Call) else None


def _module_cast(state, call: cst.Call, method: str) -> str:
    """What a dtype cast of a module asks for: '' when the call is none, 'float32' when it changes
    nothing (a Cell's parameters are float32), else what it does."""
    if method in ("to", "type"):  # double()/float()/half() without arguments: idioms.py (cast_cell)
        from ..apis.mapped import dtype_name

        for arg in call.args:
            dtype = dtype_name(resolve(arg.value, state.ctx.aliases) or "")
            if dtype and (arg.keyword is None or arg.keyword.value == "dtype"):
                if dtype == "mindspore.float32" and len(call.args) == 1:
                    return "float32"
                return f"{method}({code(arg.value)}) casts every parameter"
    return ""


def _trained(state) -> set[str]:
    from ..training.idioms import trained_names  # the names an optimizer of the file trains

    return trained_names(state)


def _single_dtype(state, call: cst.Call) -> str | None:
    """The MindSpore dtype of net.to(torch.float64) / net.to(dtype=torch.float16), the call's only argument."""
    from ..apis.mapped import dtype_name

    if len(call.args) != 1 or call.args[0].star or (call.args[0].keyword and call.args[0].keyword.value != "dtype"):
        return None
    return dtype_name(resolve(call.args[0].value, state.ctx.aliases) or "")


def rewrite(state, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
    """The rewritten (or marked: updated itself) call, or None when no rule here applies."""
    ctx = state.ctx
    used = id(original) not in state.__dict__.get("unused_results", ())
    kind = _kind(state, original.func)
    if kind in CONV_TRANSPOSE:
        positional = [a for a in original.args if a.keyword is None and not a.star]
        if any(a.keyword is not None and a.keyword.value == "output_size" for a in original.args) \
                or len(positional) > 1:
            return transposed.output_size_call(ctx, original, updated, kind)
        return None
    if not isinstance(original.func, cst.Attribute):
        return None
    method = original.func.attr.value
    kind = _kind(state, original.func.value)
    if kind == SIZE and method == "numel" and not original.args:
        ctx.change(original, rules.TENSOR_SIZE, "torch.Size.numel", "math.prod",
                   "torch.Size.numel() -> math.prod(shape) (a converted size is a tuple)")
        ctx.imports.add("import math")
        return cst.Call(func=cst.parse_expression("math.prod"), args=[cst.Arg(value=updated.func.value)])
    if kind in (SEQUENTIAL, MODULE_LIST):
        target = "SequentialCell" if kind == SEQUENTIAL else "CellList"
        if kind == SEQUENTIAL and method in ("insert", "extend"):
            ctx.mark(original, rules.CONTAINERS, f"{kind}.{method}",
                     f"SequentialCell has no {method}(): build the SequentialCell again from the list of its cells "
                     f"(list({code(original.func.value)}.cell_list))")
            return updated
        if method in ("append", "extend") and used:
            ctx.mark(original, rules.CONTAINERS, f"{kind}.{method}",
                     f"{target}.{method}() returns None, PyTorch's returns the container: call it as a statement "
                     "of its own and use the container afterwards")
            return updated
        return None
    if _is_module(state, kind) or _is_module(state, _constructed(state, original.func.value)):
        cast = _module_cast(state, original, method)
        if cast == "float32":
            ctx.change(original, rules.CELL_API, f"torch.nn.Module.{method}", "",
                       f"module.{method}(...) to float32 removed: a Cell's parameters are float32 already")
            return updated.func.value
        if cast:
            dtype = _single_dtype(state, original)
            receiver = original.func.value
            trained = dtype == "mindspore.float64" and isinstance(receiver, cst.Name) and receiver.value in _trained(state)
            if dtype and not trained:  # net.to(torch.float64): the same cast as net.double()
                sample_checks.layer_cast(ctx, original, kind or _constructed(state, original.func.value), dtype)
                helper = helpers.use(ctx, "cast_cell")
                ctx.change(original, rules.CELL_API, f"torch.nn.Module.{method}", helper,
                           f"module.{method}({dtype}) -> {helper}(net, {dtype}), written into this file (casts its "
                           "floating-point parameters)")
                return cst.Call(func=cst.Name(helper), args=[
                    cst.Arg(value=updated.func.value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                    cst.Arg(value=ctx.ms_expr(dtype))])
            ctx.mark(original, rules.CELL_API, f"torch.nn.Module.{method}",
                     f"{cast}: a Cell has no such cast; cast its parameters: for p in net.get_parameters(): "
                     "p.set_data(p.astype(dtype))")
            return updated
    if method == "requires_grad_" and _is_module(state, kind):
        ctx.mark(original, rules.CELL_API, "torch.nn.Module.requires_grad_",
                 "Cell has no requires_grad_(): set p.requires_grad on each of its get_parameters()")
        return updated
    if method == "requires_grad_" and _in_forward(state) and is_fresh(ctx, original.func.value):
        # siren's coords = self.grid.clone().detach().requires_grad_() in forward: a tensor made there is no
        # optimizer's, only its value goes on; MindSpore takes gradients with respect to it from mindspore.grad
        ctx.change(original, rules.TENSOR_METHOD, "torch.Tensor.requires_grad_", "",
                   "requires_grad_() on a new tensor dropped: MindSpore tensors carry no gradient flag "
                   "(gradients with respect to it come from mindspore.grad)")
        return updated.func.value
    if method == "requires_grad_" and not _statement_of_its_own(ctx, original):
        # MindSpore's Tensor.requires_grad_() returns None: `y = x.requires_grad_()` would bind None
        ctx.mark(original, rules.TENSOR_METHOD, "torch.Tensor.requires_grad_",
                 "MindSpore's requires_grad_() returns None and a tensor carries no gradient flag: for a tensor "
                 "an optimizer updates write mindspore.Parameter(x, requires_grad=True); gradients come from "
                 "mindspore.value_and_grad")
        return updated
    return None


def _in_forward(state) -> bool:
    """The call is in a module's forward itself (not in a function nested in it)."""
    return bool(state.classes) and state.classes[-1][1] == "cell" and \
        len(state.functions) == state.classes[-1][2] + 1 and state.functions[-1] == "forward"


def _statement_of_its_own(ctx, call: cst.Call) -> bool:
    """call is a whole expression statement (`x.requires_grad_()`), so its result is not used."""
    statement = ctx.statements[-1][0] if ctx.statements else None
    return isinstance(statement, cst.SimpleStatementLine) and any(
        isinstance(small, cst.Expr) and small.value is call for small in statement.body)


# Tensor methods returning PyTorch's (values, indices) named tuple; MindSpore returns a plain tuple
NAMED_RESULTS = frozenset({"max", "min", "sort", "topk", "kthvalue", "mode", "cummax", "cummin", "median",
                           "nanmedian"})
FIELDS = {"values": 0, "indices": 1}


def named_field(ctx, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression | None:
    """x.max(dim=1).values -> x.max(dim=1)[0] (the same in PyTorch, and a plain tuple's item in MindSpore)."""
    call = original.value
    if original.attr.value not in FIELDS or not isinstance(call, cst.Call) \
            or not isinstance(call.func, cst.Attribute) or call.func.attr.value not in NAMED_RESULTS \
            or (call.func.attr.value in ("max", "min", "median", "nanmedian") and not call.args):
        return None
    ctx.change(original, rules.TENSOR_METHOD, f"torch.Tensor.{call.func.attr.value}", "tuple",
               f".{original.attr.value} of {call.func.attr.value}() -> [{FIELDS[original.attr.value]}] "
               "(MindSpore returns a plain tuple)")
    return cst.Subscript(value=updated.value,
                         slice=[cst.SubscriptElement(slice=cst.Index(value=cst.Integer(str(FIELDS[original.attr.value]))))])

