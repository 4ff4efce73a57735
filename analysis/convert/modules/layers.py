"""Layers whose conversion needs more than renames: conv/pool padding, BatchNorm
momentum, Dropout probability, Linear -> Dense, and the cell containers."""
from __future__ import annotations

import libcst as cst

from analysis.knowledge.mapping import ApiEntry

from ..apis.mapped import convert_call
from ..apis.signatures import kwarg, plan_args
from ..core import rules
from ..core.context import ConversionContext
from ..core.layout import keyword_index, same_line
from ..core.names import code


def _literal_number(node: cst.BaseExpression | None) -> float | None:
    if isinstance(node, (cst.Integer, cst.Float)):
        return float(node.evaluated_value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = _literal_number(node.expression)
        return -inner if inner is not None else None
    return None


def _literal_str(node: cst.BaseExpression | None) -> str | None:
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value
    return None


def _number_text(value: float) -> str:
    text = repr(round(value, 10))
    return text


def _put(args: list[cst.Arg], name: str, replacement: list[cst.Arg]) -> list[cst.Arg]:
    """args with the keyword argument name replaced, where it stands, by replacement (nothing
    removes it); replacement is appended when name is not passed (relayout places it)."""
    index = keyword_index(args, name)
    if index is None:
        return [*args, *replacement]
    old = args[index]
    if replacement:
        last = replacement[-1].with_changes(comma=old.comma, whitespace_after_arg=old.whitespace_after_arg)
        replacement = [*(same_line(a) for a in replacement[:-1]), last]
    elif index > 0 and not _has_comment(args[index - 1].comma):
        # the argument goes: the one before takes its ending (line break, trailing comma, closing line)
        args = [*args[:index - 1], args[index - 1].with_changes(comma=old.comma,
                                                                whitespace_after_arg=old.whitespace_after_arg),
                *args[index:]]
    return [*args[:index], *replacement, *args[index + 1:]]


def _has_comment(comma) -> bool:
    whitespace = getattr(comma, "whitespace_after", None)
    return isinstance(whitespace, cst.ParenthesizedWhitespace) and whitespace.first_line.comment is not None


def _one_minus(node: cst.BaseExpression) -> cst.BaseExpression:
    value = _literal_number(node)
    if value is not None:
        return cst.parse_expression(_number_text(1.0 - value))
    return cst.parse_expression(f"1 - ({code(node)})")


def conv(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    dims = int(qualified[-2]) if qualified[-2].isdigit() else 2
    plan = plan_args(updated, entry, handled=frozenset({"padding", "padding_mode"}))
    padding = plan.passed.get("padding")
    mode = plan.passed.get("padding_mode")
    if mode is not None and _literal_str(mode) != "zeros":
        ctx.mark(original, rules.CONV_PADMODE, qualified,
                 f"padding_mode={code(mode)} has no Conv counterpart: pad the input with ops.pad first "
                 "and use pad_mode='valid'")
        return updated
    # pad_mode goes where padding= stands (just before it when padding stays), so the call keeps its layout
    args = _put(plan.args, "padding_mode", [])
    note = ""
    text = _literal_str(padding)
    number = _literal_number(padding)
    if padding is None or number == 0:
        args = _put(args, "padding", [kwarg("pad_mode", '"valid"')])
        note = "padding=0 -> pad_mode='valid'"
    elif text in ("same", "valid"):
        args = _put(args, "padding", [kwarg("pad_mode", f'"{text}"')])
        note = f"padding='{text}' -> pad_mode='{text}'"
    elif number is not None:
        args = _put(args, "padding", [kwarg("pad_mode", '"pad"'), kwarg("padding", padding)])
        note = "padding -> pad_mode='pad'"
    elif isinstance(padding, cst.Tuple) and dims > 1:
        items = [code(e.value) for e in padding.elements]
        if len(items) != dims:
            ctx.mark(original, rules.CONV_PADMODE, qualified, "padding tuple length does not match the conv")
            return updated
        doubled = ", ".join(f"{v}, {v}" for v in items)
        args = _put(args, "padding", [kwarg("pad_mode", '"pad"'), kwarg("padding", f"({doubled})")])
        note = "padding (per axis) -> pad_mode='pad' with (before, after) per axis"
    else:
        # an expression: MindSpore takes an int the same way, a tuple needs (before, after) pairs
        args = _put(args, "padding", [kwarg("pad_mode", '"pad"'), kwarg("padding", padding)])
        note = "padding -> pad_mode='pad' (review: a tuple value needs (before, after) pairs)"
    plan.args = args
    return convert_call(ctx, original, updated, qualified, entry, rule_id=rules.CONV_PADMODE, plan=plan, note=note)


# Arguments MindSpore's max pooling reads only with pad_mode='pad' (it refuses any other value of theirs in
# its default 'valid' mode); with padding=0 that mode pools exactly as PyTorch (checked on CPU: 1-3d,
# every kernel/stride/padding/dilation/ceil_mode mix, float16/32/64, values and return_indices' indices)
PAD_MODE_ONLY = {"dilation": 1, "return_indices": False, "ceil_mode": False}


def pool(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    plan = plan_args(updated, entry, handled=frozenset({"stride", "padding", "kernel_size"}))
    kernel = plan.passed.get("kernel_size")
    stride = plan.passed.get("stride")
    padding = plan.passed.get("padding")
    pad_only = [name for name, default in PAD_MODE_ONLY.items() if "MaxPool" in qualified and name in plan.passed
                and code(plan.passed[name]).strip() != str(default)]
    args = plan.args
    notes = []
    if stride is None or (isinstance(stride, cst.Name) and stride.value == "None"):
        if kernel is None:
            ctx.mark(original, rules.POOL_STRIDE, qualified, "set stride explicitly: MindSpore's default is 1")
            return updated
        args = _put(args, "stride", [kwarg("stride", kernel)])
        notes.append("stride defaults to kernel_size in PyTorch: made explicit")
    if padding is not None and _literal_number(padding) != 0:
        args = _put(args, "padding", [kwarg("pad_mode", '"pad"'), kwarg("padding", padding)])
        notes.append("padding -> pad_mode='pad'")
    elif padding is not None:
        args = _put(args, "padding", [])  # 0: MindSpore's default pad_mode='valid'
    if pad_only and not (padding is not None and _literal_number(padding) != 0):
        args = [*args, kwarg("pad_mode", '"pad"')]
        notes.append(f"pad_mode='pad' written (MindSpore reads {', '.join(f'{n}=' for n in pad_only)} only in that mode)")
    plan.args = args
    return convert_call(ctx, original, updated, qualified, entry, rule_id=rules.POOL_STRIDE,
                        plan=plan, note="; ".join(notes))


def batchnorm(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    plan = plan_args(updated, entry, handled=frozenset({"momentum", "track_running_stats"}))
    momentum = plan.passed.get("momentum")
    tracking = plan.passed.get("track_running_stats")
    if isinstance(momentum, cst.Name) and momentum.value == "None":
        ctx.mark(original, rules.BN_MOMENTUM, qualified,
                 "momentum=None (cumulative average) has no MindSpore counterpart; choose a momentum")
        return updated
    args = _put(plan.args, "momentum",
                [kwarg("momentum", _one_minus(momentum) if momentum is not None else cst.Float("0.9"))])
    note = "momentum m -> 1 - m (MindSpore weights the running statistic, not the new batch)"
    if tracking is not None:
        if isinstance(tracking, cst.Name) and tracking.value == "False":
            args = _put(args, "track_running_stats", [kwarg("use_batch_statistics", "True")])
            note += "; track_running_stats=False -> use_batch_statistics=True"
        elif isinstance(tracking, cst.Name) and tracking.value == "True":
            args = _put(args, "track_running_stats", [])
        else:
            ctx.mark(original, rules.BN_TRACK_STATS, qualified,
                     "track_running_stats from a variable: map False to use_batch_statistics=True by hand")
            return updated
    plan.args = args
    return convert_call(ctx, original, updated, qualified, entry, rule_id=rules.BN_MOMENTUM, plan=plan, note=note)


def dropout(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    plan = plan_args(updated, entry, handled=frozenset({"p"}))
    p = plan.passed.get("p") or cst.Float("0.5")
    if ctx.ms_version >= (2,):
        replacement = kwarg("p", p)
        note = "probability passed as p= (MindSpore >= 2.0)"
    else:
        replacement = kwarg("keep_prob", _one_minus(p))
        note = "p -> keep_prob = 1 - p (MindSpore < 2.0)"
    plan.args = _put(plan.args, "p", [replacement])
    return convert_call(ctx, original, updated, qualified, entry, rule_id=rules.DROPOUT_P, plan=plan, note=note)


def layernorm(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    """normalized_shape must be a tuple in MindSpore, and its eps defaults to 1e-7, not 1e-5."""
    plan = plan_args(updated, entry, handled=frozenset({"normalized_shape", "eps", "elementwise_affine"}))
    shape = plan.passed.get("normalized_shape")
    affine = plan.passed.get("elementwise_affine")
    if shape is None or (affine is not None and not (isinstance(affine, cst.Name) and affine.value == "True")):
        ctx.mark(original, rules.API_DIFF, qualified,
                 "LayerNorm without a learnable scale and shift (elementwise_affine=False) or without a shape: "
                 "use ops.LayerNorm with fixed gamma=1, beta=0")
        return updated
    if isinstance(shape, (cst.List, cst.Tuple)):
        if len(shape.elements) != 1:
            # MindSpore takes the first normalised axis as a non-negative index (only -1 is
            # allowed below zero), so it depends on the input's rank, which is unknown here.
            ctx.mark(original, rules.API_DIFF, qualified,
                     f"LayerNorm over the last {len(shape.elements)} axes: pass normalized_shape as a tuple and "
                     "begin_norm_axis=begin_params_axis=<input rank> - "
                     f"{len(shape.elements)}, and epsilon=1e-5 (MindSpore's default is 1e-7)")
            return updated
        shape_expr: cst.BaseExpression = cst.Tuple([cst.Element(shape.elements[0].value)])
    else:  # an int (a literal or, as almost always, a variable holding the feature size)
        shape_expr = cst.Tuple([cst.Element(shape)])
    eps = plan.passed.get("eps") or cst.Float("1e-05")
    args = _put(plan.args, "normalized_shape", [kwarg("normalized_shape", shape_expr)])
    args = _put(_put(args, "elementwise_affine", []), "eps", [kwarg("epsilon", eps)])
    plan.args = args
    return convert_call(ctx, original, updated, qualified, entry, rule_id=rules.API_DIFF, plan=plan,
                        note="normalized_shape as a tuple, eps -> epsilon (PyTorch's 1e-5 kept; MindSpore "
                        "defaults to 1e-7)")


def linear(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    return convert_call(ctx, original, updated, qualified, entry, rule_id=rules.LINEAR_DENSE)


def container(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    target = {"torch.nn.Sequential": "mindspore.nn.SequentialCell", "torch.nn.ModuleList": "mindspore.nn.CellList",
              "torch.nn.ModuleDict": "mindspore.nn.CellDict"}[qualified]
    new = updated.with_changes(func=ctx.ms_expr(target))
    nested = _nested_containers(updated) if qualified == "torch.nn.ModuleDict" else []
    if nested:
        ctx.mark(original, rules.CONTAINERS, qualified,
                 f"MindSpore's CellDict refuses CellList/SequentialCell/CellDict values ({', '.join(nested)}): make "
                 "this a Cell subclass that sets each entry as an attribute (self.h = nn.CellList(...)), so "
                 "attribute reads keep working")
        return updated
    ctx.change(original, rules.CONTAINERS, qualified, target, f"{qualified} -> {target}")
    return new


def _nested_containers(call: cst.Call) -> list[str]:
    """Keys of a ModuleDict's entries that are containers themselves (already converted: CellList ...)."""
    found: list[str] = []
    containers = ("CellList", "SequentialCell", "CellDict", "ModuleList", "Sequential", "ModuleDict")

    def is_container(value: cst.BaseExpression) -> bool:
        return isinstance(value, cst.Call) and code(value.func).rsplit(".", 1)[-1] in containers

    for arg in call.args:
        value = arg.value
        if isinstance(value, cst.Call) and code(value.func) == "dict":
            found += [a.keyword.value for a in value.args if a.keyword is not None and is_container(a.value)]
        elif isinstance(value, cst.Dict):
            found += [code(e.key) for e in value.elements if isinstance(e, cst.DictElement) and is_container(e.value)]
    return found


HANDLERS = {
    **{f"torch.nn.Conv{d}d": conv for d in (1, 2, 3)},
    **{f"torch.nn.{kind}Pool{d}d": pool for kind in ("Max", "Avg") for d in (1, 2, 3)},
    **{f"torch.nn.BatchNorm{d}d": batchnorm for d in (1, 2, 3)},
    "torch.nn.Dropout": dropout,
    "torch.nn.Linear": linear,
    "torch.nn.LayerNorm": layernorm,
    "torch.nn.Sequential": container,
    "torch.nn.ModuleList": container,
    "torch.nn.ModuleDict": container,
}
