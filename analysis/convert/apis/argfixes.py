"""Calls the tables map to a MindSpore function of the same name that takes or gives other types;
the arguments are written so that it computes PyTorch's values:

- torch.full(size, v) without dtype=: PyTorch takes the dtype from v (float -> float32, bool ->
  bool), MindSpore's ops.full makes int64 whatever v is -> dtype= written: from the literal, or
  scalar_dtype(v) (helper_source.py) for a value known at run time only
- torch.logspace(start, end, ...) with integer ends: MindSpore's LogSpace takes floats only
  (PyTorch computes in float32 either way) -> float literals, or float(...); with a base that is no
  integer literal or a dtype other than float16/float32 (MindSpore's takes an integer base and float
  dtypes only, and computes float64 to float32's precision) -> logspace() (helper_source.py)
- torch.linspace(start, end, steps, dtype=d): MindSpore's LinSpace has no dtype= and takes floats
  only -> the float32 result, then .astype(float16/float32); for another dtype (integers truncate
  PyTorch's float steps, float64 needs its precision, complex) or steps=0 (MindSpore refuses an empty
  result) -> linspace() (helper_source.py), PyTorch's formula in float64
- F.normalize(x, p=1, eps=1e-4): ops.L2Normalize is the 2-norm only, takes three values of eps and no
  complex input -> normalize() (helper_source.py), whatever p and eps
- F.gumbel_softmax(logits, tau=1): MindSpore checks that tau is a Python float -> 1.0 / float(tau); the same
  for celu's and nn.CELU's alpha (MindSpore's CeLU primitive refuses an int)
- F.hinge_embedding_loss(x, y) with y an integer tensor of ±1 (PyTorch takes any dtype): MindSpore's
  HingeEmbeddingLoss refuses a target that is not float -> y.astype(x.dtype), where x is a name (so
  reading its dtype evaluates nothing twice); ±1 and every other integer are exact in a float dtype
- torch.blackman_window(n) / torch.bartlett_window(n): their MindSpore primitives take the length as a
  tensor only (hann, hamming and kaiser take an int) -> mindspore.tensor(n)
- torch.arange(0, 3.1, dtype=torch.int64): PyTorch truncates start, end and step to int64 before
  counting ([0, 1, 2]; MindSpore counts in float: 4 items) -> float literals written truncated,
  arithmetic with a float or a division in int(...); the narrower integer dtypes count in float but
  step from the truncated start by the truncated step in PyTorch -> marked
- torch.atleast_1d/2d/3d(x) returns a tensor, (x, y) a tuple: MindSpore's takes one tensor, or one
  sequence of them -> the tensor alone, or the tensors as one tuple (the tables' packing made a
  tuple of one, so a tuple came back where PyTorch gives a tensor)"""
from __future__ import annotations

import libcst as cst

from ..core import rules
from ..core.context import ConversionContext
from ..core.names import dotted, without_calls
from ..support import helpers
from .exact_forms import bind, helper_call
from .mapped import convert_call
from .signatures import fix_commas, kwarg

FACTORY_OPTIONS = ("out", "dtype", "layout", "device", "requires_grad", "pin_memory", "generator")
FLOAT_CALLS = ("float",)


def _number(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.expression if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) else node


def _is_call_of(node: cst.BaseExpression, names: tuple[str, ...]) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in names


def _as_float(node: cst.BaseExpression) -> cst.BaseExpression:
    """A float literal or float(...) call for a number PyTorch reads as a float."""
    bare = _number(node)
    if isinstance(bare, cst.Float) or _is_call_of(node, FLOAT_CALLS):
        return node
    if isinstance(bare, cst.Integer):
        new = cst.Float(f"{bare.value}.0")
        return node.with_changes(expression=new) if bare is not node else new
    return cst.Call(func=cst.Name("float"), args=[cst.Arg(value=node)])


def _replace(args, new_values: dict[int, cst.BaseExpression]):
    return [a.with_changes(value=new_values[i]) if i in new_values else a for i, a in enumerate(args)]


def _positions(args, names: tuple[str, ...]) -> dict[str, int]:
    """Parameter name -> index in args (positional by order, then keywords)."""
    out, n = {}, 0
    for i, arg in enumerate(args):
        if arg.keyword is None:
            if n < len(names):
                out[names[n]] = i
            n += 1
        else:
            out[arg.keyword.value] = i
    return out


INT64 = ("int64", "long")
NARROW_INTEGERS = ("int8", "int16", "int32", "uint8", "uint16", "uint32", "int", "short")


def _maybe_float(node: cst.BaseExpression) -> bool:
    """Arithmetic that may give a float by its form: a float literal in it, or a true division."""
    if isinstance(node, cst.UnaryOperation):
        return _maybe_float(node.expression)
    if isinstance(node, cst.BinaryOperation):
        return isinstance(node.operator, cst.Divide) or _maybe_float(node.left) or _maybe_float(node.right)
    return isinstance(node, cst.Float)


def _truncated(node: cst.BaseExpression) -> cst.BaseExpression:
    bare = _number(node)
    if isinstance(bare, cst.Float):
        whole = cst.Integer(str(int(bare.evaluated_value)))
        return node.with_changes(expression=whole) if bare is not node else whole
    return cst.Call(func=cst.Name("int"), args=[cst.Arg(value=node)])


def arange(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry) -> cst.BaseExpression:
    dtype = next((a.value for a in updated.args if a.keyword is not None and a.keyword.value == "dtype"), None)
    bounds = [i for i, a in enumerate(updated.args)
              if a.keyword is None or a.keyword.value in ("start", "end", "step")]
    if isinstance(dtype, cst.Attribute) and dtype.attr.value in NARROW_INTEGERS \
            and any(_maybe_float(updated.args[i].value) for i in bounds):
        ctx.mark(original, rules.API_DIFF, qualified,
                 f"float bounds with dtype {dtype.attr.value}: PyTorch counts the items in float but steps from the "
                 "truncated start by the truncated step, MindSpore casts each float item: give int bounds")
        return updated
    if not (isinstance(dtype, cst.Attribute) and dtype.attr.value in INT64) \
            or any(updated.args[i].star for i in bounds):
        return convert_call(ctx, original, updated, qualified, entry)
    changed = {i: _truncated(updated.args[i].value) for i in bounds if _maybe_float(updated.args[i].value)}
    if not changed:
        return convert_call(ctx, original, updated, qualified, entry)
    return convert_call(ctx, original, updated.with_changes(args=_replace(updated.args, changed)), qualified, entry,
                        note="float bounds truncated to ints (PyTorch does so for int64 before counting)")


def full(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry) -> cst.BaseExpression:
    values = bind(updated.args, ("size", "fill_value"), FACTORY_OPTIONS)
    if values is None or "fill_value" not in values or "dtype" in values:
        return convert_call(ctx, original, updated, qualified, entry)
    fill = values["fill_value"]
    bare = _number(fill)
    if isinstance(bare, cst.Imaginary):
        ctx.mark(original, rules.API_DIFF, qualified, "a complex fill value: MindSpore's ops.full takes real numbers "
                                                      "only; build the real and imaginary parts with ops.complex")
        return updated
    if isinstance(bare, cst.Integer) or _is_call_of(bare, ("int",)):
        return convert_call(ctx, original, updated, qualified, entry)  # int64 in both
    if isinstance(bare, cst.Float) or _is_call_of(bare, FLOAT_CALLS):
        dtype, note = ctx.ms_expr("mindspore.float32"), "dtype=float32 written (PyTorch's for a float fill value)"
    elif (isinstance(fill, cst.Name) and fill.value in ("True", "False")) or _is_call_of(fill, ("bool",)):
        dtype, note = ctx.ms_expr("mindspore.bool_"), "dtype=bool_ written (PyTorch's for a bool fill value)"
    elif without_calls(fill, lambdas=True) and (dotted(fill) is not None or isinstance(fill, (cst.BinaryOperation, cst.UnaryOperation))):
        local = helpers.use(ctx, "scalar_dtype")
        dtype = cst.Call(func=cst.Name(local), args=[cst.Arg(value=fill)])
        note = f"dtype={local}(fill value) written (PyTorch takes the dtype from the value's type)"
    else:
        ctx.mark(original, rules.API_DIFF, qualified,
                 "PyTorch takes the dtype from the fill value's type, MindSpore's ops.full makes int64: write "
                 "dtype= (mindspore.float32 for a float)")
        return updated
    return convert_call(ctx, original, updated, qualified, entry, extra=[kwarg("dtype", dtype)], note=note)


# the dtypes MindSpore's logspace computes as PyTorch does (float64 it computes to float32's precision), as
# written in PyTorch or already renamed to MindSpore's (the arguments come converted)
FLOAT_DTYPES = frozenset(f"{module}.{name}" for module in ("torch", "mindspore")
                         for name in ("float16", "half", "float32", "float"))


def _logspace_helper(values: dict[str, cst.BaseExpression]) -> bool:
    """Whether the call needs logspace(): a base other than an integer literal, or a dtype other than float16
    and float32 (float64, an integer or complex dtype, or one known at run time only)."""
    base, dtype = values.get("base"), values.get("dtype")
    return (base is not None and not isinstance(_number(base), cst.Integer)) \
        or (dtype is not None and dotted(dtype) not in FLOAT_DTYPES)


def logspace(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry) -> cst.BaseExpression:
    values = bind(updated.args, ("start", "end", "steps", "base"), FACTORY_OPTIONS)
    if values is None:
        return convert_call(ctx, original, updated, qualified, entry)
    if _logspace_helper(values) and "steps" in values and not {"out", "generator"} & values.keys():
        keywords = {k: values[k] for k in ("base", "dtype") if k in values}
        return helper_call(ctx, original, "logspace", [values["start"], values["end"], values["steps"]], keywords,
                           api=qualified, why="MindSpore's logspace takes an integer base and float dtypes only")
    at = _positions(updated.args, ("start", "end", "steps", "base"))
    new = {at[name]: _as_float(values[name]) for name in ("start", "end") if name in values}
    changed = {i: v for i, v in new.items() if v is not updated.args[i].value}
    if not changed:
        return convert_call(ctx, original, updated, qualified, entry)
    return convert_call(ctx, original, updated.with_changes(args=_replace(updated.args, changed)), qualified, entry,
                        note="start and end written as floats (MindSpore's LogSpace takes floats only)")


def linspace(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry) -> cst.BaseExpression:
    values = bind(updated.args, ("start", "end", "steps"), FACTORY_OPTIONS)
    if values is not None and _linspace_helper(values) and not {"out", "generator"} & values.keys():
        keywords = {"dtype": values["dtype"]} if "dtype" in values else {}
        return helper_call(ctx, original, "linspace", [values["start"], values["end"], values["steps"]], keywords,
                           api=qualified, why="MindSpore's linspace computes float16/float32 only and no empty "
                                              "result")
    if values is None or "dtype" not in values or (isinstance(values["dtype"], cst.Name) and values["dtype"].value == "None"):
        return convert_call(ctx, original, updated, qualified, entry)
    at = _positions(updated.args, ("start", "end", "steps"))
    args = [a for i, a in enumerate(updated.args) if i != at["dtype"]]
    new = convert_call(ctx, original, updated.with_changes(args=fix_commas(args)), qualified, entry,
                       note="dtype= applied with .astype() (MindSpore's LinSpace has no dtype=)")
    if not isinstance(new, cst.Call) or new is updated:
        return new
    return cst.Call(func=cst.Attribute(value=new, attr=cst.Name("astype")), args=[cst.Arg(value=values["dtype"])])


def _linspace_helper(values: dict[str, cst.BaseExpression]) -> bool:
    """Whether the call needs linspace(): steps 0 written out, a dtype other than float16/float32, or a
    dtype given with a start or end that may be a tensor (PyTorch's 0-d tensor overload: MindSpore's
    LinSpace then raises unless start and end are tensors of one dtype)."""
    steps, dtype = values.get("steps"), values.get("dtype")
    if steps is None:
        return False
    empty = isinstance(steps, cst.Integer) and steps.evaluated_value == 0
    given = dtype is not None and not (isinstance(dtype, cst.Name) and dtype.value == "None")
    other = given and dotted(dtype) not in FLOAT_DTYPES
    literal = all(isinstance(_number(values[k]), (cst.Integer, cst.Float)) for k in ("start", "end") if k in values)
    return empty or other or (given and not literal)


def normalize(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry) -> cst.BaseExpression:
    values = bind(updated.args, ("input", "p", "dim", "eps"), ("out",))
    if values is None or "out" in values:
        return convert_call(ctx, original, updated, qualified, entry)
    local = helpers.use(ctx, "normalize")  # any p and eps, complex inputs: L2Normalize takes none of them
    ctx.change(original, rules.API_RENAME, qualified, local,
               f"{qualified} -> {local}, a function the conversion writes into this file "
               "(input / max(its p-norm, eps))")
    return updated.with_changes(func=cst.Name(local))


def _number_text(node: cst.BaseExpression) -> str:
    return node.value if isinstance(node, (cst.Integer, cst.Float)) else ""


def _float_parameter(names: tuple[str, ...], param: str, why: str):
    """A handler writing `param` as a float: MindSpore's checks a Python float where PyTorch reads an int as one."""
    def handler(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry
                ) -> cst.BaseExpression:
        values = bind(updated.args, names)
        if values is None or param not in values:
            return convert_call(ctx, original, updated, qualified, entry)
        value = _as_float(values[param])
        if value is values[param]:
            return convert_call(ctx, original, updated, qualified, entry)
        at = _positions(updated.args, names)
        return convert_call(ctx, original, updated.with_changes(args=_replace(updated.args, {at[param]: value})),
                            qualified, entry, note=f"{param} written as a float ({why})")
    return handler


gumbel_softmax = _float_parameter(("logits", "tau", "hard", "eps", "dim"), "tau", "MindSpore checks for a Python float")
# CeLU's primitive refuses an int alpha ("CeLU(alpha=int)"); PyTorch reads it as a float
celu = _float_parameter(("input", "alpha", "inplace"), "alpha", "MindSpore's CeLU refuses an int")
celu_layer = _float_parameter(("alpha", "inplace"), "alpha", "MindSpore's CeLU refuses an int")


def _target_like_input(names: tuple[str, ...], why: str):
    """A handler casting the target to the input's dtype: MindSpore's kernel takes float targets only."""
    def handler(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry
                ) -> cst.BaseExpression:
        values = bind(updated.args, names)
        # the input is read twice (for its dtype): only a name or an attribute chain, which evaluates nothing
        if values is None or "input" not in values or "target" not in values or dotted(values["input"]) is None:
            return convert_call(ctx, original, updated, qualified, entry)
        cast = cst.Call(func=cst.Attribute(value=values["target"], attr=cst.Name("astype")),
                        args=[cst.Arg(value=cst.Attribute(value=values["input"], attr=cst.Name("dtype")))])
        at = _positions(updated.args, names)
        return convert_call(ctx, original, updated.with_changes(args=_replace(updated.args, {at["target"]: cast})),
                            qualified, entry, note=f"target cast to the input's dtype ({why})")
    return handler


def _tensor_parameter(names: tuple[str, ...], param: str, why: str):
    """A handler passing `param` (a Python int in PyTorch) as a tensor: MindSpore's primitive takes no int."""
    def handler(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry
                ) -> cst.BaseExpression:
        values = bind(updated.args, names, FACTORY_OPTIONS)
        if values is None or param not in values:
            return convert_call(ctx, original, updated, qualified, entry)
        value = cst.Call(func=ctx.ms_expr("mindspore.tensor"), args=[cst.Arg(value=values[param])])
        at = _positions(updated.args, names)
        return convert_call(ctx, original, updated.with_changes(args=_replace(updated.args, {at[param]: value})),
                            qualified, entry, note=f"{param} passed as a tensor ({why})")
    return handler


window = _tensor_parameter(("window_length", "periodic"), "window_length", "MindSpore's primitive takes no int")
hinge_embedding_loss = _target_like_input(("input", "target", "margin", "size_average", "reduce", "reduction"),
                                          "MindSpore's HingeEmbeddingLoss takes a float target only")


def atleast(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry) -> cst.BaseExpression:
    args = list(updated.args)
    if not args or any(a.star or a.keyword is not None for a in args) or entry is None or not entry.primary:
        return convert_call(ctx, original, updated, qualified, entry)
    if len(args) == 1:
        value, what = args[0].value, "one argument passed as it is (a tensor gives a tensor, a sequence a tuple)"
    else:
        value = cst.Tuple(elements=[cst.Element(value=a.value) for a in args])
        what = "the tensors passed as one tuple (a tuple comes back, as in PyTorch)"
    ctx.change(original, rules.API_ARGS, qualified, entry.primary, f"{qualified} -> {entry.primary}: {what}")
    return cst.Call(func=ctx.ms_expr(entry.primary), args=fix_commas([cst.Arg(value=value)]))


# handlers that only rewrite some argument values the call gives: renamed as they are inside a partial()
VALUES_ONLY = frozenset({"torch.arange"})
HANDLERS = {"torch.full": full, "torch.arange": arange, "torch.logspace": logspace, "torch.linspace": linspace,
            "torch.nn.functional.normalize": normalize, "torch.nn.functional.gumbel_softmax": gumbel_softmax,
            "torch.nn.functional.celu": celu, "torch.nn.CELU": celu_layer,
            "torch.nn.functional.hinge_embedding_loss": hinge_embedding_loss,
            "torch.blackman_window": window, "torch.bartlett_window": window,
            **{f"torch.atleast_{n}d": atleast for n in (1, 2, 3)}}
