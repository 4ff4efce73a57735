"""Seeds, parameter initialisation and checkpoints."""
from __future__ import annotations

import ast

import libcst as cst

from analysis.knowledge.mapping import ApiEntry

from . import astwalk, rules
from .context import ConversionContext
from .names import code

# torch.nn.init function -> (MindSpore initializer class, [(torch param, default, MindSpore param)]).
# Every parameter is written out: several MindSpore defaults differ (Normal's sigma is 0.01).
INITIALIZERS: dict[str, tuple[str, list[tuple[str, str, str]]]] = {
    "normal_": ("Normal", [("mean", "0.0", "mean"), ("std", "1.0", "sigma")]),
    "trunc_normal_": ("TruncatedNormal", [("mean", "0.0", "mean"), ("std", "1.0", "sigma"), ("a", "-2.0", "a"), ("b", "2.0", "b")]),
    "constant_": ("Constant", [("val", "", "value")]),
    "zeros_": ("Zero", []),
    "ones_": ("One", []),
    "eye_": ("Identity", []),
    "xavier_uniform_": ("XavierUniform", [("gain", "1.0", "gain")]),
    "xavier_normal_": ("XavierNormal", [("gain", "1.0", "gain")]),
    "kaiming_uniform_": ("HeUniform", [("a", "0", "negative_slope"), ("mode", "'fan_in'", "mode"), ("nonlinearity", "'leaky_relu'", "nonlinearity")]),
    "kaiming_normal_": ("HeNormal", [("a", "0", "negative_slope"), ("mode", "'fan_in'", "mode"), ("nonlinearity", "'leaky_relu'", "nonlinearity")]),
    "orthogonal_": ("Orthogonal", [("gain", "1", "gain")]),
}


def seed(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    new = updated.with_changes(func=ctx.ms_expr("mindspore.set_seed"))
    ctx.change(original, rules.SEED, qualified, "mindspore.set_seed", f"{qualified} -> mindspore.set_seed")
    return new


def init(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    name = qualified.rsplit(".", 1)[1]
    if name == "uniform_":
        return _uniform(ctx, original, updated, qualified)
    spec = INITIALIZERS.get(name)
    if spec is None or not updated.args or updated.args[0].keyword is not None:
        ctx.mark(original, rules.INIT, qualified, "set the parameter with initializer(...) and set_data by hand")
        return updated
    cls, params = spec
    tensor = updated.args[0].value
    values: dict[str, str] = {}
    for index, arg in enumerate(updated.args[1:]):
        key = arg.keyword.value if arg.keyword else (params[index][0] if index < len(params) else None)
        if key is None or key not in {p[0] for p in params}:
            ctx.mark(original, rules.INIT, qualified, f"argument {code(arg)} has no {cls} counterpart")
            return updated
        values[key] = code(arg.value)
    pieces = [f"{ms}={values.get(tp, default)}" for tp, default, ms in params if values.get(tp, default)]
    return _set_data(ctx, original, tensor, f"{ctx.ms('mindspore.common.initializer.' + cls)}({', '.join(pieces)})", qualified, cls)


def _uniform(ctx, original, updated, qualified):
    args = {a.keyword.value if a.keyword else ("tensor", "a", "b")[i]: a.value for i, a in enumerate(updated.args)}
    low, high = code(args.get("a", cst.Float("0.0"))), code(args.get("b", cst.Float("1.0")))
    tensor = args["tensor"]
    uniform = ctx.ms("mindspore.common.initializer.Uniform")
    if low.lstrip("-") == high and low.startswith("-"):
        return _set_data(ctx, original, tensor, f"{uniform}(scale={high})", qualified, "Uniform")
    # MindSpore's Uniform is symmetric: shift and scale a draw from [-1, 1] to [a, b]
    ops = ctx.ms("mindspore.ops")
    t = code(tensor)
    text = (f"{t}.{_setter(tensor)}((({ctx.ms('mindspore.common.initializer.initializer')}({uniform}(scale=1.0), {t}.shape, {t}.dtype).init_data()"
            f" + 1) / 2 * (({high}) - ({low})) + ({low})).astype({t}.dtype))")
    del ops
    ctx.change(original, rules.INIT, qualified, "mindspore.common.initializer.Uniform",
               f"{qualified} -> Uniform initializer rescaled to [a, b] + {_setter(tensor)}")
    return cst.parse_expression(text)


def _setter(tensor: cst.BaseExpression) -> str:
    """set_data exists on Parameters only (layer.weight); a plain name may hold a plain tensor, and
    assign_value works on both (it returns the tensor, as PyTorch's init functions do)."""
    return "set_data" if isinstance(tensor, cst.Attribute) else "assign_value"


def _set_data(ctx, original, tensor, init_text: str, qualified: str, cls: str):
    t = code(tensor)
    # init_data() materialises the values now, as PyTorch's in-place init does
    text = f"{t}.{_setter(tensor)}({ctx.ms('mindspore.common.initializer.initializer')}({init_text}, {t}.shape, {t}.dtype).init_data())"
    ctx.change(original, rules.INIT, qualified, f"mindspore.common.initializer.{cls}",
               f"{qualified} -> initializer({cls}) + {_setter(tensor)}")
    return cst.parse_expression(text)


def save(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    positional = [a for a in original.args if a.keyword is None]
    obj = positional[0].value if positional else None
    if (
        len(positional) == 2
        and isinstance(obj, cst.Call)
        and isinstance(obj.func, cst.Attribute)
        and obj.func.attr.value == "state_dict"
        and not obj.args
    ):
        first, second = (a for a in updated.args if a.keyword is None)
        if not isinstance(getattr(second.comma, "whitespace_after", None), cst.ParenthesizedWhitespace):
            second = second.with_changes(comma=cst.MaybeSentinel.DEFAULT)  # options after it are dropped
        value = first.value
        model = value.func.value if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) \
            else obj.func.value
        ctx.change(original, rules.CHECKPOINT, qualified, "mindspore.save_checkpoint",
                   "torch.save(model.state_dict(), path) -> mindspore.save_checkpoint(model, path)")
        # the arguments keep their commas and line breaks (relayout closes the call as it was)
        return updated.with_changes(func=ctx.ms_expr("mindspore.save_checkpoint"),
                                    args=[first.with_changes(value=model), second])
    ctx.mark(original, rules.CHECKPOINT, qualified,
             "only model.state_dict() converts to save_checkpoint (mindspore.save_checkpoint(net, 'name.ckpt')); "
             "save other objects (dicts, arrays, whole models) with pickle or numpy.save")
    return updated


def load(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    positional = [a for a in updated.args if a.keyword is None][:1]
    if not positional:
        ctx.mark(original, rules.CHECKPOINT, qualified, "load the checkpoint with mindspore.load_checkpoint(path)")
        return updated
    keyed = _loaded_into_keyed_name(ctx, original)
    if keyed:
        ctx.mark(original, rules.CHECKPOINT, qualified,
                 f"{keyed}[...] reads entries of a saved dict (not only parameters): mindspore.load_checkpoint reads "
                 "parameter checkpoints only; save such dicts with pickle (or a .ckpt per network, loaded with "
                 "mindspore.load_checkpoint(path, net)) and load them the same way")
        return updated
    ctx.change(original, rules.CHECKPOINT, qualified, "mindspore.load_checkpoint",
               "torch.load(path) -> mindspore.load_checkpoint(path) (returns a name -> Parameter dict)")
    return cst.Call(func=ctx.ms_expr("mindspore.load_checkpoint"),
                    args=[positional[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)])


def _loaded_into_keyed_name(ctx: ConversionContext, call: cst.Call) -> str:
    """X when the statement is `X = torch.load(...)` and the file reads X['key'] somewhere (a dict of
    things saved together: model, optimizer, step counters)."""
    statement = ctx.statements[-1][0] if ctx.statements else None
    tree = getattr(ctx.outline, "tree", None)
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Assign) and statement.body[0].value is call
            and isinstance(statement.body[0].targets[0].target, cst.Name)) or tree is None:
        return ""
    name = statement.body[0].targets[0].target.value
    for node in astwalk.nodes(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name \
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            return name
    return ""


HANDLERS = {
    "torch.manual_seed": seed,
    "torch.random.manual_seed": seed,
    "torch.cuda.manual_seed": seed,
    "torch.cuda.manual_seed_all": seed,
    "torch.save": save,
    "torch.load": load,
    **{f"torch.nn.init.{name}": init for name in [*INITIALIZERS, "uniform_"]},
}
