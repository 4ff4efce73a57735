"""Seeds and parameter initialisation (checkpoints: checkpoints.py)."""
from __future__ import annotations

import libcst as cst

from analysis.knowledge.mapping import ApiEntry

from ..core import rules
from ..core.context import ConversionContext
from ..core.names import code, dotted
from ..data import checkpoints
from ..support import helpers

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
    tensor = _whole_tensor(ctx, original, qualified, updated.args[0].value)
    if tensor is None:
        return updated
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
    tensor = _whole_tensor(ctx, original, qualified, args["tensor"])
    if tensor is None:
        return updated
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


def _whole_tensor(ctx, original, qualified: str, tensor: cst.BaseExpression) -> cst.BaseExpression | None:
    """The tensor an init function writes: w.data is a copy in MindSpore (writing it leaves w as it was,
    and a Parameter's has no set_data), so w itself; part of one (w[0], w.view(-1)) is a copy too: marked."""
    if isinstance(tensor, cst.Attribute) and tensor.attr.value == "data":
        tensor = tensor.value
    if dotted(tensor) is None:
        ctx.mark(original, rules.INIT, qualified,
                 f"{code(tensor)} is part of a tensor, a copy in MindSpore: draw the part with "
                 "initializer(...).init_data() and write it with w[index] = ...")
        return None
    return tensor


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


# torch.nn.init functions a reference (used as a value, called later) becomes: the helper of the same
# name in support/helper_init.py, which makes the fill init() writes for a call (tests hold the two equal)
REFERENCED = frozenset({*INITIALIZERS, "uniform_", "calculate_gain"})


def init_reference(ctx: ConversionContext, original: cst.BaseExpression, qualified: str) -> cst.BaseExpression | None:
    """`kernel_init_fn = dict(xavier_uniform=nn.init.xavier_uniform_, ...)`, `init = nn.init.normal_`:
    the local function that takes PyTorch's parameters and fills its tensor in place as the rewrite of a
    call does; None for an init function that has none (dirac_, sparse_: still marked)."""
    name = qualified.rsplit(".", 1)[1]
    if not qualified.startswith("torch.nn.init.") or name not in REFERENCED:
        return None
    local = helpers.use(ctx, name)
    ctx.change(original, rules.INIT, qualified, local,
               f"{qualified} -> {local}, {helpers.where(ctx)} (used as a value: it takes PyTorch's parameters "
               "and writes the same MindSpore initializer's values into the tensor in place)")
    return cst.Name(local)


def calculate_gain(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str,
                   entry: ApiEntry | None):
    return helpers.call(ctx, original, qualified, "calculate_gain", list(updated.args), template=updated,
                        why="PyTorch's table of gains, plain arithmetic")


HANDLERS = {
    "torch.manual_seed": seed,
    "torch.random.manual_seed": seed,
    "torch.cuda.manual_seed": seed,
    "torch.cuda.manual_seed_all": seed,
    "torch.save": checkpoints.save,
    "torch.load": checkpoints.load,
    **{f"torch.nn.init.{name}": init for name in [*INITIALIZERS, "uniform_"]},
    "torch.nn.init.calculate_gain": calculate_gain,
}
