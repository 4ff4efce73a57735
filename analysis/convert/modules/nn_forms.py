"""Layer call forms MindSpore's namesake reads another way (support/helper_nn_forms.py holds the helpers).

- nn.Softmax / nn.Softmin / nn.LogSoftmax: PyTorch's dim=None picks an axis from the input's rank (0 for
  0-, 1- and 3-d inputs, else 1), MindSpore's axis defaults to the last one, and MindSpore's kernels refuse
  a 0-d input -> the local class of that name (MindSpore's layer, PyTorch's dim), every call: the rank is
  only known when the layer runs.
- F.softmax / F.softmin / F.log_softmax without dim (or dim=None) -> softmax_family(); with a dim they go
  on to the tables.
- nn.SmoothL1Loss with beta=0 (MindSpore's layer refuses it) or a beta known only when it runs -> the
  local SmoothL1Loss cell (beta 0 is the L1 loss).
- nn.BatchNorm1d/2d/3d, nn.LayerNorm, nn.Transformer and its encoder/decoder layers with bias=False (or
  LayerNorm's elementwise_affine=False), which MindSpore's layers have no switch for -> MindSpore's layer
  wrapped in fixed_affine(), which holds the shift (and scale) at the identity and out of training.
- nn.LayerNorm over several trailing axes -> the local LayerNorm class (MindSpore's, with the first
  normalised axis taken from the input's rank when it runs).
- nn.LSTM with proj_size (MindSpore's LSTM has none) -> the local ProjectedLSTM cell, PyTorch's parameters.
The wrapping and the local class are written after the layer map has its record (after_map): the map keeps
MindSpore's class. A call with arguments PyTorch's signature does not name goes on to the tables, which mark it."""
from __future__ import annotations

import libcst as cst

from ..apis.compositions import literal_argument, bind_arguments
from ..apis.mapped import convert_call
from ..apis.signatures import kwarg
from ..core import rules
from ..core.context import ConversionContext
from ..core.names import code, dotted
from ..support import helpers
from . import layers

SOFTMAX_LAYERS = {"torch.nn.Softmax": "Softmax", "torch.nn.Softmin": "Softmin", "torch.nn.LogSoftmax": "LogSoftmax"}
SOFTMAX_FUNCTIONS = {f"torch.nn.functional.{kind}": kind for kind in ("softmax", "softmin", "log_softmax")}
IMPLICIT = "PyTorch's dim=None takes axis 0 of a 0-, 1- or 3-d input and 1 otherwise, MindSpore's the last axis"


def softmax_layer(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry):
    bound = bind_arguments(updated, ("dim",))
    if bound is None:
        return convert_call(ctx, original, updated, qualified, entry)
    why = f"{IMPLICIT}; MindSpore's kernel refuses a 0-d input"
    return helpers.call(ctx, original, qualified, SOFTMAX_LAYERS[qualified], list(updated.args), why=why,
                        template=updated, shown=qualified.rsplit(".", 1)[1])


def softmax_function(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry):
    bound = bind_arguments(updated, ("input", "dim", "_stacklevel", "dtype"))
    if bound is None or "input" not in bound or literal_argument(bound, "dim") is not None:
        return convert_call(ctx, original, updated, qualified, entry)
    args = [bound["input"].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)]
    args.append(kwarg("kind", f'"{SOFTMAX_FUNCTIONS[qualified]}"'))
    if "dtype" in bound:
        args.append(kwarg("dtype", bound["dtype"].value))
    args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in args]
    args = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in args[:-1]] + args[-1:]
    return helpers.call(ctx, original, qualified, "softmax_family", args, why=IMPLICIT,
                        shown=qualified.rsplit(".", 1)[1])


def smooth_l1_layer(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry):
    bound = bind_arguments(updated, ("size_average", "reduce", "reduction", "beta"))
    beta = literal_argument(bound, "beta", 1.0) if bound is not None else None
    if bound is None or "size_average" in bound or "reduce" in bound or not (beta is ... or beta == 0):
        return convert_call(ctx, original, updated, qualified, entry)
    return helpers.call(ctx, original, qualified, "SmoothL1Loss", list(updated.args), template=updated,
                        why="MindSpore's SmoothL1Loss refuses beta=0 (the L1 loss), which a beta known only when it "
                        "runs may be", shown="SmoothL1Loss")


LSTM_PARAMS = ("input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout", "bidirectional",
               "proj_size")


def lstm(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry):
    bound = bind_arguments(updated, LSTM_PARAMS)
    if bound is None or literal_argument(bound, "proj_size", 0) == 0 \
            or (isinstance(original.func, cst.Attribute) and original.func.attr.value == "__init__"):
        return convert_call(ctx, original, updated, qualified, entry)
    return helpers.call(ctx, original, qualified, "ProjectedLSTM", list(updated.args), template=updated,
                        why="MindSpore's LSTM has no proj_size", shown="LSTM")


# the switches PyTorch's layer takes for a learnable scale/shift that MindSpore's layer always has
AFFINE = {**{f"torch.nn.BatchNorm{d}d": ("bias",) for d in (1, 2, 3)},
          "torch.nn.LayerNorm": ("elementwise_affine", "bias"),
          **{f"torch.nn.Transformer{kind}": ("bias",) for kind in ("", "EncoderLayer", "DecoderLayer")}}
LAYER_NORM = ("normalized_shape", "eps", "elementwise_affine", "bias")  # its positional parameters
# original call's id -> (several normalised axes, {switch: value}) until after_map writes the rewrite
_PENDING: dict[int, tuple[bool, dict[str, cst.BaseExpression]]] = {}


def _last_without_comma(args: list[cst.Arg]) -> list[cst.Arg]:
    return [*args[:-1], args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)] if args else args


def affine_layer(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry):
    base = layers.HANDLERS.get(qualified)

    def plain(call: cst.Call):
        return (base or convert_call)(ctx, original, call, qualified, entry)

    # super().__init__(...) of a subclass is converted as the layer's own call (layercalls.base_init), which
    # takes the converted arguments: nothing may wrap it there
    if (isinstance(original.func, cst.Attribute) and original.func.attr.value == "__init__") \
            or any(a.star for a in updated.args):
        return plain(updated)
    args = list(updated.args)
    wide = None
    if qualified == "torch.nn.LayerNorm":
        index = next((i for i, a in enumerate(args) if (a.keyword is None and i == 0)
                      or (a.keyword is not None and a.keyword.value == "normalized_shape")), None)
        shape = args[index].value if index is not None else None
        if isinstance(shape, (cst.List, cst.Tuple)) and len(shape.elements) > 1:
            # converted as a one-axis norm (the tuple and epsilon written), then given every axis back
            wide = cst.Tuple([cst.Element(e.value) for e in shape.elements])
            args[index] = args[index].with_changes(value=cst.List([cst.Element(shape.elements[0].value)]))
    names = [a.keyword.value if a.keyword is not None else (LAYER_NORM[i] if qualified == "torch.nn.LayerNorm"
             and i < len(LAYER_NORM) else "") for i, a in enumerate(args)]
    switches = {name: a.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT) for name, a in zip(names, args)
                if name in AFFINE[qualified]}
    if wide is None and not switches:
        return plain(updated)
    call = updated.with_changes(args=_last_without_comma(
        [a for name, a in zip(names, args) if name not in switches]))
    new = plain(call)
    if new is call or not isinstance(new, cst.Call):
        return updated  # marked for another argument: left as it was written
    if wide is not None:
        new = new.with_changes(args=[a.with_changes(value=wide) if a.keyword is not None
                                     and a.keyword.value == "normalized_shape" else a for a in new.args])
    held = {name: arg.value for name, arg in switches.items() if literal_argument(switches, name) is not True}
    if wide is not None or held:
        _PENDING[id(original)] = (wide is not None, held)
    return new


def after_map(ctx: ConversionContext, original: cst.Call, new: cst.Call) -> cst.BaseExpression:
    """The converted layer call with what affine_layer left for after the layer map: MindSpore's LayerNorm
    -> the local LayerNorm over several axes, and the call wrapped in fixed_affine() for bias=False."""
    wide, held = _PENDING.pop(id(original), (False, {}))
    if wide:
        local = helpers.use(ctx, "LayerNorm")
        ctx.change(original, rules.API_ARGS, "torch.nn.LayerNorm", local,
                   f"mindspore.nn.LayerNorm -> {local}, {helpers.where(ctx, 'a local class')} (normalised over the "
                   "last len(normalized_shape) axes of any input rank: MindSpore's takes the first axis from the "
                   "front)")
        new = new.with_changes(func=cst.Name(local))
    if not held:
        return new
    scale = held.get("elementwise_affine")
    shift = held.get("bias", scale)
    if "bias" in held and scale is not None:
        shift = cst.parse_expression(f"({code(scale)}) and ({code(held['bias'])})")
    args = [cst.Arg(value=new, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))]
    if scale is not None:
        args.append(kwarg("scale", scale).with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
    args.append(kwarg("shift", shift))
    name = (dotted(original.func) or "layer").rsplit(".", 1)[-1]
    return helpers.call(ctx, original, f"torch.nn.{name}", "fixed_affine", args,
                        why="MindSpore's layer always has a learnable shift (and scale): held at the identity "
                        f"and out of training, as PyTorch's {', '.join(f'{k}=' for k in held)} leaves none")


HANDLERS = {**{name: softmax_layer for name in SOFTMAX_LAYERS},
            **{name: softmax_function for name in SOFTMAX_FUNCTIONS},
            "torch.nn.SmoothL1Loss": smooth_l1_layer, "torch.nn.LSTM": lstm,
            **{name: affine_layer for name in AFFINE}}
