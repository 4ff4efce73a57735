"""torch.save / torch.load, state_dict() / load_state_dict() (issue 16, pattern 7).

torch.save pickles anything; MindSpore's save_checkpoint writes a network's parameters only, and
appends '.ckpt' to any other file name (so `torch.load(path)` would not find the file). Hence:
- torch.save(net.state_dict(), 'name.ckpt'), with a name that surely ends in .ckpt ->
  mindspore.save_checkpoint(net, 'name.ckpt');
- any other torch.save (a training checkpoint's dict, tensors, arrays, a state dict under another
  name) -> save(obj, f), a helper written into the file (helper_source.py) that pickles the object
  with its tensors as numpy arrays under the name it is given;
- torch.load(f) -> load(f), a helper reading either kind of file;
- x.state_dict() / x.load_state_dict(sd) -> state_dict_of(x) / load_state_dict_into(x, sd): helpers
  telling at run time a network (its parameters by name) from an optimizer (its moments, step counts
  and group settings, as PyTorch's optimizer state), which the text alone cannot tell apart;
- torch.save of a network itself is marked: a Cell cannot be pickled; its state can.
"""
from __future__ import annotations

import ast

import libcst as cst

from analysis.knowledge.mapping import ApiEntry

from ..core import astwalk, rules
from ..core.bound import INSTANCE
from ..core.context import ConversionContext
from ..core.names import code, dotted, dotted_ast, resolve
from ..support import helpers
from ..training.idioms import networks

# torch.save / torch.load parameters in order; those the helpers take keep their names
SAVE_PARAMS = ("obj", "f", "pickle_module", "pickle_protocol", "_use_new_zipfile_serialization",
               "_disable_byteorder_record")
SAVE_DROPPED = {"pickle_protocol", "_use_new_zipfile_serialization", "_disable_byteorder_record"}  # format details
LOAD_PARAMS = ("f", "map_location", "pickle_module", "weights_only", "mmap")
LOAD_DROPPED = {"map_location", "mmap"}  # placement: MindSpore places data by context
# methods only a network has: a name the file calls them on holds one
NETWORK_METHODS = frozenset({"parameters", "named_parameters", "modules", "named_modules", "children", "eval",
                             "forward"})


def save(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    found = _bind(original, SAVE_PARAMS)
    if found is None or {"obj", "f"} - found.keys() or found.keys() - {"obj", "f"} - SAVE_DROPPED:
        ctx.mark(original, rules.CHECKPOINT, qualified,
                 "torch.save with a pickle_module: write the object with that module yourself (MindSpore tensors "
                 "as numpy arrays: tensor.asnumpy())")
        return updated
    obj, path = original.args[found["obj"]].value, original.args[found["f"]].value
    if _is_network(ctx, obj):
        ctx.mark(original, rules.CHECKPOINT, qualified,
                 f"{code(obj)} is a whole network (or optimizer) and a MindSpore Cell cannot be pickled: save its "
                 f"parameters instead (mindspore.save_checkpoint({code(obj)}, 'name.ckpt')) and where they are loaded "
                 "build it from its class, then mindspore.load_param_into_net(net, mindspore.load_checkpoint('name.ckpt'))")
        return updated
    receiver = _state_dict_receiver(obj)
    if receiver is not None and _ckpt_name(path) and code(receiver) not in ctx.optimizer_names:
        return _save_checkpoint(ctx, original, updated, qualified, found)
    local = helpers.use(ctx, "save")
    ctx.change(original, rules.CHECKPOINT, qualified, local,
               f"torch.save -> {local}(), a local function pickling the object with its tensors as numpy arrays "
               "(the file keeps its name; mindspore.save_checkpoint writes parameters only, to a .ckpt name)")
    return updated.with_changes(func=cst.Name(local), args=_kept(updated, found, {"obj", "f"}))


def load(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    found = _bind(original, LOAD_PARAMS)
    if found is None or "f" not in found or found.keys() - {"f", "weights_only"} - LOAD_DROPPED:
        ctx.mark(original, rules.CHECKPOINT, qualified,
                 "torch.load with a pickle_module or pickle options: read the file with pickle yourself, or save it "
                 "again without them")
        return updated
    network = _loaded_network(ctx, original)
    if network:
        ctx.mark(original, rules.CHECKPOINT, qualified,
                 f"{network} is used as a whole network, and a MindSpore Cell cannot be pickled: build it from its "
                 "class, then load parameters saved with mindspore.save_checkpoint into it: "
                 "mindspore.load_param_into_net(net, mindspore.load_checkpoint('name.ckpt'))")
        return updated
    local = helpers.use(ctx, "load")
    ctx.change(original, rules.CHECKPOINT, qualified, local,
               f"torch.load -> {local}(), a local function reading a pickle of tensors (what torch.save becomes) or "
               "a checkpoint mindspore.save_checkpoint wrote (map_location dropped: MindSpore places data by context)")
    return updated.with_changes(func=cst.Name(local), args=_kept(updated, found, {"f", "weights_only"}))


def state_dict(ctx: ConversionContext, original: cst.Call, receiver: cst.BaseExpression) -> cst.Call:
    """x.state_dict() -> state_dict_of(x)."""
    local = helpers.use(ctx, "state_dict_of")
    ctx.change(original, rules.CHECKPOINT, "torch.nn.Module.state_dict", local,
               f"state_dict() -> {local}(x), a local function: a network's parameters by name (parameters_dict), "
               "an optimizer's moments, step counts and group settings")
    return cst.Call(func=cst.Name(local), args=[cst.Arg(value=receiver)])


def load_state_dict(ctx: ConversionContext, original: cst.Call, updated: cst.Call,
                    receiver: cst.BaseExpression) -> cst.BaseExpression:
    """x.load_state_dict(sd[, strict]) -> load_state_dict_into(x, sd[, strict])."""
    found = _bind(original, ("state_dict", "strict", "assign"))
    if found is None or "state_dict" not in found or "assign" in found:
        ctx.mark(original, rules.CHECKPOINT, "torch.nn.Module.load_state_dict",
                 "load_state_dict with these arguments: copy each value into the parameter of its name with "
                 "param.set_data(value)")
        return updated
    local = helpers.use(ctx, "load_state_dict_into")
    ctx.change(original, rules.CHECKPOINT, "torch.nn.Module.load_state_dict", local,
               f"load_state_dict -> {local}(x, state), a local function copying each value into the parameter of "
               "its name (strict as PyTorch's); an optimizer also takes back its group settings")
    args = _kept(updated, found, {"state_dict", "strict"})
    return cst.Call(func=cst.Name(local), args=[cst.Arg(value=receiver,
                                                        comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                                                *args])


def _save_checkpoint(ctx, original, updated, qualified, found):
    first, second = updated.args[found["obj"]], updated.args[found["f"]]
    if not isinstance(getattr(second.comma, "whitespace_after", None), cst.ParenthesizedWhitespace):
        second = second.with_changes(comma=cst.MaybeSentinel.DEFAULT)  # options after it are dropped
    value = first.value  # state_dict_of(net) by now (or net.state_dict() where that was left)
    helper = ctx.helpers.get("state_dict_of", ("",))[0]
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == helper and value.args:
        helpers.release(ctx, "state_dict_of")  # the call goes: save_checkpoint takes the network itself
        model = value.args[0].value
    elif isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
        model = value.func.value
    else:
        model = _state_dict_receiver(original.args[found["obj"]].value)
    ctx.change(original, rules.CHECKPOINT, qualified, "mindspore.save_checkpoint",
               "torch.save(model.state_dict(), 'name.ckpt') -> mindspore.save_checkpoint(model, 'name.ckpt')")
    # the arguments keep their commas and line breaks (relayout closes the call as it was)
    return updated.with_changes(func=ctx.ms_expr("mindspore.save_checkpoint"),
                                args=[first.with_changes(value=model, keyword=None, equal=cst.MaybeSentinel.DEFAULT),
                                      second.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)])


def _bind(call: cst.Call, params: tuple[str, ...]) -> dict[str, int] | None:
    """PyTorch parameter name -> index of its argument in call.args; None for *args, **kwargs, too many
    positional arguments or a name PyTorch's signature lacks."""
    found: dict[str, int] = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        name = arg.keyword.value if arg.keyword else params[index] if index < len(params) else None
        if name is None or name not in params or name in found:
            return None
        found[name] = index
    return found


def _kept(updated: cst.Call, found: dict[str, int], keep: set[str]) -> list[cst.Arg]:
    """The arguments of `keep`, in their order; the last one loses its comma when others were dropped.
    A kept argument after a dropped positional one is passed by its name."""
    args, dropped = [], False
    for name, index in sorted(found.items(), key=lambda item: item[1]):
        arg = updated.args[index]
        if name not in keep:
            dropped = True
            continue
        if dropped and arg.keyword is None:
            arg = arg.with_changes(keyword=cst.Name(name), equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
        args.append(arg)
    if args and len(args) < len(updated.args):
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return args


def _state_dict_receiver(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """x for `x.state_dict()`."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "state_dict" \
            and not node.args:
        return node.func.value
    return None


def _ckpt_name(node: cst.BaseExpression) -> bool:
    """The path surely ends in .ckpt: a literal, an f-string, a format()/% template or a joined path
    whose last piece does (mindspore.save_checkpoint appends .ckpt to any other name)."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return isinstance(value, str) and value.endswith(".ckpt")
    if isinstance(node, cst.FormattedString):
        return bool(node.parts) and isinstance(node.parts[-1], cst.FormattedStringText) \
            and node.parts[-1].value.endswith(".ckpt")
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "format":
        return _ckpt_name(node.func.value)
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, (cst.Add, cst.Divide)):  # prefix + 'x.ckpt', Path(d) / 'x.ckpt'
            return _ckpt_name(node.right)
        if isinstance(node.operator, cst.Modulo):
            return _ckpt_name(node.left)
    if isinstance(node, cst.Call) and (dotted(node.func) or "").endswith(("path.join", "osp.join")) and node.args \
            and node.args[-1].keyword is None and not node.args[-1].star:
        return _ckpt_name(node.args[-1].value)
    return False


def _is_network(ctx: ConversionContext, node: cst.BaseExpression) -> bool:
    """A network or an optimizer: built right there (a torch.nn layer, one of the file's modules, a
    torchvision model), or a name bound to one or used as one somewhere in the file."""
    classes, names = networks(ctx.tree, ctx.aliases)
    if isinstance(node, cst.Call):
        return _network_kind(code(node.func) in classes, resolve(node.func, ctx.aliases) or "")
    name = dotted(node)
    if name is None:
        return False
    kind = ctx.bound.get(name, "")
    return name in names or _network_kind(kind.startswith(INSTANCE) and kind[len(INSTANCE):] in classes, kind) \
        or _used_as_network(ctx, name, NETWORK_METHODS | {"state_dict", "zero_grad"})


def _network_kind(file_class: bool, qualified: str) -> bool:
    return file_class or qualified.startswith("torchvision.models.") \
        or qualified.startswith("torch.nn.") and qualified.rsplit(".", 1)[1][:1].isupper()


def _loaded_network(ctx: ConversionContext, call: cst.Call) -> str:
    """X when the statement is `X = torch.load(...)` and the file calls X or a network's method on it."""
    statement = ctx.statements[-1][0] if ctx.statements else None
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Assign) and statement.body[0].value is call
            and len(statement.body[0].targets) == 1 and isinstance(statement.body[0].targets[0].target, cst.Name)):
        return ""
    name = statement.body[0].targets[0].target.value
    return name if _used_as_network(ctx, name, NETWORK_METHODS, called=True) else ""


def _used_as_network(ctx: ConversionContext, name: str, methods: frozenset[str], called: bool = False) -> bool:
    """The file calls name.<one of methods>() (or name(...) itself, with called)."""
    if ctx.tree is None:
        return False
    for node in astwalk.nodes(ctx.tree):
        if isinstance(node, ast.Call):
            func = node.func
            if called and isinstance(func, ast.Name) and func.id == name:
                return True
            if isinstance(func, ast.Attribute) and func.attr in methods and dotted_ast(func.value) == name:
                return True
    return False
