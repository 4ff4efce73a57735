"""PyTorch's legacy loss options size_average= and reduce= -> reduction= (MindSpore's losses take only
reduction=). PyTorch ignores reduction= when either legacy option is given and derives it as
_Reduction.legacy_get_string does: a missing option counts as True; both True -> 'mean', reduce alone
-> 'sum', reduce=False -> 'none'. Options that are not literal True/False/None are marked."""
from __future__ import annotations

from dataclasses import replace

import libcst as cst

from ..core import rules
from ..core.names import code
from .signatures import fix_commas, kwarg

FUNCTIONS = ("binary_cross_entropy", "binary_cross_entropy_with_logits", "cosine_embedding_loss", "cross_entropy",
             "hinge_embedding_loss", "kl_div", "l1_loss", "margin_ranking_loss", "mse_loss", "multi_margin_loss",
             "multilabel_margin_loss", "multilabel_soft_margin_loss", "nll_loss", "poisson_nll_loss",
             "smooth_l1_loss", "soft_margin_loss", "triplet_margin_loss")
CLASSES = ("BCELoss", "BCEWithLogitsLoss", "CosineEmbeddingLoss", "CrossEntropyLoss", "HingeEmbeddingLoss",
           "KLDivLoss", "L1Loss", "MSELoss", "MarginRankingLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss",
           "MultiMarginLoss", "NLLLoss", "PoissonNLLLoss", "SmoothL1Loss", "SoftMarginLoss", "TripletMarginLoss")
LOSSES = frozenset({*(f"torch.nn.functional.{n}" for n in FUNCTIONS), *(f"torch.nn.{n}" for n in CLASSES),
                    *(f"torch.nn.modules.loss.{n}" for n in CLASSES)})
LEGACY = ("size_average", "reduce")
LITERALS = {"True": True, "False": False, "None": None}


_UNKNOWN = object()


def _constant(node: cst.BaseExpression):
    """A literal's value (True, None, 0, 'none': PyTorch reads the legacy options by their truth, so
    reduce='none' means reduce), else _UNKNOWN."""
    if isinstance(node, cst.Name):
        return LITERALS.get(node.value, _UNKNOWN)
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
        return node.evaluated_value
    return _UNKNOWN


def reduction(size_average, reduce) -> str:
    """torch.nn._reduction.legacy_get_string without its warning."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return "mean" if size_average and reduce else "sum" if reduce else "none"


def rewrite(ctx, original: cst.Call, updated: cst.Call, qualified: str) -> cst.Call | None:
    """updated with size_average=/reduce= folded into reduction=; None when they are not literals (marked).
    A call without them comes back as it is."""
    legacy = [a for a in updated.args if a.keyword is not None and a.keyword.value in LEGACY]
    if not legacy:
        return updated
    values = {a.keyword.value: a.value for a in legacy}
    known = {k: _constant(v) for k, v in values.items()}
    if any(v is _UNKNOWN for v in known.values()):
        ctx.mark(original, rules.API_DIFF, qualified,
                 "size_average=/reduce= with a computed value: replace them with reduction='mean', 'sum' or 'none' "
                 "(both true: 'mean'; reduce alone: 'sum'; reduce false: 'none')")
        return None
    if all(v is None for v in known.values()):  # PyTorch then reads reduction= alone
        return updated.with_changes(args=fix_commas([a for a in updated.args if a not in legacy]))
    mode = reduction(*(known.get(k) for k in LEGACY))
    kept = [a for a in updated.args if not (a.keyword is not None and a.keyword.value in (*LEGACY, "reduction"))]
    if kept:
        kept[-1] = kept[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    ctx.change(original, rules.API_ARGS, qualified, qualified,
               f"{', '.join(f'{k}={cst.Module([]).code_for_node(v)}' for k, v in values.items())} -> "
               f"reduction='{mode}' (PyTorch's rule for its legacy options)")
    return updated.with_changes(args=[*kept, kwarg("reduction", repr(mode))])


# functional losses the tables list as 'names differ' whose differences are the first two (input/target)
# names only: these keywords mean the same in MindSpore's function (signatures read from MindSpore 2.x)
SAME_KEYWORDS = {
    "torch.nn.functional.binary_cross_entropy": ("weight", "reduction"),
    "torch.nn.functional.binary_cross_entropy_with_logits": ("weight", "pos_weight", "reduction"),
}


def entry_for(qualified: str, call: cst.Call, entry):
    """entry, treated as a plain rename when the call's keywords are ones both sides spell alike and at
    most the two leading arguments are positional."""
    same = SAME_KEYWORDS.get(qualified)
    if entry is None or same is None or entry.category != "param_names_differ":
        return entry
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args) or len(positional) > 2 \
            or any(a.keyword is not None and a.keyword.value not in same for a in call.args):
        return entry
    return replace(entry, category="consistent")


# PyTorch's legacy typed constructors -> the dtype of their tensors
TYPED = {"FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16", "BFloat16Tensor": "bfloat16",
         "LongTensor": "int64", "IntTensor": "int32", "ShortTensor": "int16", "CharTensor": "int8",
         "ByteTensor": "uint8", "BoolTensor": "bool_"}
CONSTRUCTORS = {f"torch.{prefix}{name}": dtype for name, dtype in TYPED.items() for prefix in ("", "cuda.")}
SIZE_CALLS = ("len", "int")  # a single argument computed by these is a size


def typed_constructor(ctx, original: cst.Call, updated: cst.Call, qualified: str, entry) -> cst.BaseExpression:
    """torch.LongTensor(data) -> mindspore.Tensor(data, dtype=int64); torch.FloatTensor(2, 3) (sizes) ->
    ops.zeros((2, 3), float32). PyTorch leaves a sized tensor's memory uninitialised, so any values are
    valid: zeros are what MindSpore gives. A single name may hold either (an int is a size, anything else
    data), so it is decided when the line runs."""
    dtype = f"mindspore.{CONSTRUCTORS.get(qualified, 'float32')}"  # torch.Tensor: float32
    values = [a.value for a in updated.args]
    if any(a.keyword is not None or a.star for a in updated.args):
        ctx.mark(original, rules.API_DIFF, qualified,
                 f"{qualified}(...) with options: write mindspore.Tensor(data, dtype={dtype}) or "
                 f"mindspore.ops.zeros(shape, {dtype})")
        return updated
    kind = _kind(values)
    if kind is None:
        ctx.mark(original, rules.API_DIFF, qualified,
                 f"{qualified}(x): sizes -> mindspore.ops.zeros(shape, {dtype}); data -> "
                 f"mindspore.Tensor(data, dtype={dtype})")
        return updated
    dtype, zeros, tensor = ctx.ms(dtype), ctx.ms("mindspore.ops.zeros"), ctx.ms("mindspore.Tensor")
    if kind == "empty":
        text, how = f"{zeros}((0,), {dtype})", "an empty tensor"
    elif kind == "sizes":
        sizes = ", ".join(code(v) for v in values) + ("," if len(values) == 1 else "")
        text, how = f"{zeros}(({sizes}), {dtype})", "sizes: zeros (PyTorch leaves the memory uninitialised)"
    elif kind == "data":
        text, how = f"{tensor}({code(values[0])}, dtype={dtype})", "data"
    else:
        name = values[0].value
        text = f"({zeros}({name}, {dtype}) if isinstance({name}, int) else {tensor}({name}, dtype={dtype}))"
        how = "an int is a size (zeros: PyTorch leaves the memory uninitialised), anything else data"
    ctx.change(original, rules.API_ARGS, qualified, "mindspore.Tensor",
               f"{qualified}(...) -> {dtype} tensor ({how})")
    return cst.parse_expression(text)


def _kind(values: list[cst.BaseExpression]) -> str | None:
    """'empty', 'sizes', 'data', 'name' (decided when it runs), or None (cannot tell)."""
    if not values:
        return "empty"
    if len(values) > 1 or _is_size(values[0]):
        return "sizes"
    if isinstance(values[0], (cst.List, cst.Tuple, cst.ListComp)) or _is_array(values[0]):
        return "data"
    return "name" if isinstance(values[0], cst.Name) else None


def sizes_or_either(call: cst.Call) -> bool:
    """torch.Tensor(...) given sizes, nothing, or one name (a size or data: decided when it runs)."""
    if any(a.keyword is not None or a.star for a in call.args):
        return False
    return _kind([a.value for a in call.args]) in ("empty", "sizes", "name")


def _is_size(value: cst.BaseExpression) -> bool:
    if isinstance(value, cst.Integer):
        return True
    if isinstance(value, cst.UnaryOperation) and isinstance(value.expression, cst.Integer):
        return True
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in SIZE_CALLS


def _is_array(value: cst.BaseExpression) -> bool:
    """np.array(...)-like calls: data."""
    return isinstance(value, cst.Call) and code(value.func).split(".")[-1] in ("array", "asarray", "arange", "tolist")


HANDLERS = {name: typed_constructor for name in CONSTRUCTORS}
