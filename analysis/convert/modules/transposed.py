"""Transposed convolutions (ConvTranspose1d/2d/3d) where MindSpore's cell takes its arguments
otherwise:

- padding as a tuple: PyTorch gives one value per spatial axis, padding both sides; MindSpore's
  Conv2dTranspose/Conv3dTranspose take (before, after) per axis and Conv1dTranspose one int:
  (ph, pw) -> (ph, ph, pw, pw), (p,) -> p
- dilation along depth (3d): MindSpore refuses it -> marked
- output_padding other than 0: MindSpore's cell gives that output's shape but other values on CPU, so
  the layer becomes the support cell ConvTranspose<N>d (helper_cov_nn.py: PyTorch's signature, weight and
  bias names, the convolution by conv_transpose_nd)
- a layer called with output_size=: MindSpore's construct takes the input only, so the call becomes
  the local helper conv_transpose_output_size(layer, x, size), which runs the layer's weights with
  the output grown as PyTorch grows it (helper_source.py)

Both checked on CPU against PyTorch with the same weights: 1-3d, kernel 2/3, stride 2/3, padding
0/1/a tuple, dilation 1/2, groups 1/2, every valid extra size, batched and unbatched input.
"""
from __future__ import annotations

import libcst as cst

from analysis.knowledge.mapping import load_signatures

from ..apis.compositions import bind_arguments
from ..apis.mapped import convert_call
from ..apis.signatures import kwarg, plan_args
from ..core import rules
from ..core.context import ConversionContext
from ..support import helpers


def _zero(value: cst.BaseExpression) -> bool:
    """0, or a tuple/list of zeros."""
    if isinstance(value, (cst.Tuple, cst.List)):
        return all(isinstance(e, cst.Element) and _zero(e.value) for e in value.elements)
    return isinstance(value, cst.Integer) and value.evaluated_value == 0


def layer(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry):
    """nn.ConvTranspose2d(..., padding=(1, 2)) -> nn.Conv2dTranspose(..., padding=(1, 1, 2, 2), ...)."""
    dims = int(qualified[-2])
    sig = load_signatures().get(qualified)  # PyTorch's parameters in order, output_padding among them
    extra = bind_arguments(updated, tuple(p[0] for p in sig.torch[0])) if sig is not None and sig.torch else None
    if extra is not None and "output_padding" in extra and not _zero(extra["output_padding"].value):
        local = helpers.use(ctx, f"ConvTranspose{dims}d")
        ctx.change(original, rules.API_ARGS, qualified, local,
                   f"nn.ConvTranspose{dims}d(..., output_padding=...) -> {local}(...), {helpers.where(ctx, 'a cell')} "
                   "(MindSpore's transposed convolution gives other values with output_padding on CPU)")
        return updated.with_changes(func=cst.Name(local))
    plan = plan_args(updated, entry, handled=frozenset({"padding"})) if entry is not None else None
    padding = plan.passed.get("padding") if plan is not None else None
    dilation = plan.passed.get("dilation") if plan is not None else None
    depth = dilation.elements[0].value if isinstance(dilation, (cst.Tuple, cst.List)) and dilation.elements \
        else dilation
    if dims == 3 and isinstance(depth, cst.Integer) and depth.evaluated_value != 1:
        ctx.mark(original, rules.API_DIFF, qualified,
                 "MindSpore's Conv3dTranspose takes no dilation along the depth axis (the first): dilate only "
                 "height and width, or convert this layer by hand")
        return updated
    if not isinstance(padding, (cst.Tuple, cst.List)) or any(isinstance(e, cst.StarredElement)
                                                              for e in padding.elements):
        return convert_call(ctx, original, updated, qualified, entry)
    if len(padding.elements) != dims:
        ctx.mark(original, rules.CONV_PADMODE, qualified,
                 f"padding has {len(padding.elements)} values for a {dims}d transposed convolution: give one per axis")
        return updated
    values = [e.value for e in padding.elements]
    if dims == 1:
        written: cst.BaseExpression = values[0]
    else:
        written = cst.Tuple([cst.Element(v.deep_clone()) for v in values for _ in (0, 1)])
    # the handled padding= stands in plan.args under its own keyword: its value is replaced there
    args = [a.with_changes(value=written) if a.keyword is not None and a.keyword.value == "padding" else a
            for a in plan.args]
    if "pad_mode" not in dict(entry.fixed):
        args = [*args, kwarg("pad_mode", "'pad'")]
    plan.args = args
    return convert_call(ctx, original, updated, qualified, entry, rule_id=rules.CONV_PADMODE, plan=plan,
                        note="padding per axis -> " + ("one int" if dims == 1 else "(before, after) per axis"))


def output_size_call(ctx: ConversionContext, original: cst.Call, updated: cst.Call, kind: str) -> cst.BaseExpression:
    """upsample(h, output_size=size) -> conv_transpose_output_size(upsample, h, size)."""
    bound = bind_arguments(updated, ("input", "output_size"))
    if bound is None or set(bound) != {"input", "output_size"}:
        ctx.mark(original, rules.API_DIFF, kind,
                 "MindSpore's transposed convolution takes no output_size when called: build the layer with "
                 "output_padding = output size - ((input size - 1) * stride - 2 * padding + dilation * "
                 "(kernel_size - 1) + 1) per axis instead")
        return updated
    local = helpers.use(ctx, "conv_transpose_output_size")
    ctx.change(original, rules.API_ARGS, f"{kind}.forward", local,
               f"layer(x, output_size=...) -> {local}(layer, x, ...), {helpers.where(ctx)} "
               "(MindSpore's transposed convolution takes the input only)")
    values = [updated.func, bound["input"].value, bound["output_size"].value]
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return cst.Call(func=cst.Name(local), args=[cst.Arg(value=v, comma=comma) for v in values[:2]]
                    + [cst.Arg(value=values[2])])


HANDLERS = {f"torch.nn.ConvTranspose{d}d": layer for d in (1, 2, 3)}
