"""The kernel dtype bridge: a mapped API whose MindSpore CPU kernel refuses dtypes PyTorch's takes (Sort
no bool, Diag no int8, Median no float16...) is called through kernel_dtypes() (support/helper_kernels.py),
which casts the tensor arguments to a dtype the kernel takes only when their dtype is one it refuses, and
casts the outputs back. The tensor's dtype is rarely visible in the code (a function argument), so the cast
is decided at run time; for every other dtype the call is the plain one.

A float kernel that runs but is far less accurate than PyTorch's (tanh, log1p, expm1 on CPU) is bridged the
same way, to float64 (knowledge/data/kernel_accuracy.json, `python -m analysis.verify.kernel_accuracy`).

The table is data (knowledge/data/kernel_dtypes.json, written by `python -m analysis.verify.kernel_bridge`):
API -> {refused dtype: dtype the kernel takes}, kept only where the bridged results equal PyTorch's on its
OpInfo samples. A complex dtype has no wider dtype: its entry names how support/helper_complex.py computes
the call from real kernels (real and imaginary parts apart, a product written out, a composition); an API
with no exact way for a dtype is left as it is."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import libcst as cst

from ..core.context import ConversionContext
from ..support import helpers
from ..core.bound import tensor_receiver
from .exact_forms import SHARED_NAMES
from .stated_dtypes import dtype_class, expression_class

DATA = Path(__file__).resolve().parents[2] / "knowledge" / "data" / "kernel_dtypes.json"
ACCURACY = DATA.with_name("kernel_accuracy.json")  # written by `python -m analysis.verify.kernel_accuracy`
HELPER = "kernel_dtypes"
# methods Python lists and numpy arrays have too (names.sort(), a.round(2)): bridged only on a known tensor, so
# such calls keep their plain form (kernel_dtypes would run them unchanged, but less readably)
SHARED_METHODS = SHARED_NAMES | {"sort", "scatter"}  # ax.scatter: a plot
_override: dict | None = None  # the probe converts with tables it is trying


def use_table(table: dict | None) -> None:
    """Convert with `table` (API -> {refused: taken}) instead of the data file; None goes back to the file."""
    global _override
    _override = table


@lru_cache(maxsize=1)
def _file_table() -> dict[str, dict[str, str]]:
    """The refused dtypes' bridge, and after it the accuracy bridge's (a float kernel that runs but is far less
    accurate than PyTorch's computes in float64: knowledge/data/kernel_accuracy.json)."""
    table = json.loads(DATA.read_text(encoding="utf-8"))["apis"] if DATA.exists() else {}
    accurate = json.loads(ACCURACY.read_text(encoding="utf-8"))["apis"] if ACCURACY.exists() else {}
    for name, casts in accurate.items():
        table[name] = {**casts, **table.get(name, {})}
    return table


def casts_for(api: str) -> dict[str, str]:
    """torch.sort / torch.Tensor.sort -> {refused dtype: taken dtype} (empty: no bridge)."""
    table = _override if _override is not None else _file_table()
    name = api.removeprefix("torch.Tensor.") if api.startswith("torch.Tensor.") else api.removeprefix("torch.")
    return table.get(name, {})


def _casts(ctx: ConversionContext, casts: dict[str, str]) -> cst.BaseExpression:
    def dtype(name: str) -> cst.BaseExpression:
        return ctx.ms_expr(f"mindspore.{'bool_' if name == 'bool' else name}")

    def taken(refused: str, name: str) -> cst.BaseExpression:
        if not refused.startswith("complex"):
            return dtype(name)
        # a complex dtype's way (support/helper_complex.py): a composition of its own, or one of complex_kernel's
        if name in COMPOSITIONS:
            return cst.Tuple([cst.Element(cst.Name(helpers.use(ctx, f"complex_{name}")))])
        return cst.Tuple([cst.Element(cst.Name(helpers.use(ctx, "complex_kernel"))),
                          cst.Element(cst.SimpleString(repr(name)))])
    return cst.Tuple([cst.Element(cst.Tuple([cst.Element(dtype(a)), cst.Element(taken(a, b))]))
                      for a, b in casts.items()])


def _bridged(ctx: ConversionContext, original: cst.Call, api: str, casts: dict[str, str],
             function: cst.BaseExpression, args: list[cst.Arg]) -> cst.Call:
    head = [cst.Arg(function), cst.Arg(_casts(ctx, casts))]
    args = head + [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in args]
    through = ", ".join(f"{a} by {b}" if a.startswith("complex") else f"{a} as {b}" for a, b in casts.items())
    return helpers.call(ctx, original, api, HELPER, args, shown=api.replace("torch.Tensor.", "x."),
                        why=f"dtypes MindSpore's CPU kernel refuses or computes less accurately than PyTorch's go "
                            f"through one it takes and back: {through}")


def _is_bridged(ctx: ConversionContext, new: cst.Call) -> bool:
    return isinstance(new.func, cst.Name) and new.func.value == ctx.helpers.get(HELPER, ("",))[0]


def _never_refused(ctx: ConversionContext, tensor: cst.BaseExpression | None, casts: dict[str, str]) -> bool:
    """The code says the input's dtype class (x.float(), torch.tensor([1.5])) and the kernel refuses none of it."""
    known = expression_class(ctx, tensor) if tensor is not None else None
    return known is not None and all(dtype_class(refused) != known for refused in casts)


# complex ways that are compositions with PyTorch's signature (helper_complex.py's complex_<name>); the other
# ways are words complex_kernel reads
COMPOSITIONS = ("isclose", "lerp", "logsumexp", "logaddexp", "logcumsumexp")
# random draws whose MindSpore namesake refuses a complex dtype= (written in the code, so known here): each part
# is drawn in the real dtype by complex_draw (support/helper_complex.py); a complex normal's parts have variance 1/2
COMPLEX_DRAWS = {"torch.randn": "normal draws", "torch.rand": "draws"}


def _complex_draw(ctx: ConversionContext, original: cst.Call, api: str, new: cst.Call) -> cst.Call | None:
    dtype = next((a.value for a in new.args if a.keyword is not None and a.keyword.value == "dtype"), None)
    if api not in COMPLEX_DRAWS or not isinstance(dtype, cst.Attribute) or \
            dtype.attr.value not in ("complex64", "complex128"):
        return None
    args = [cst.Arg(new.func), cst.Arg(cst.SimpleString(repr(COMPLEX_DRAWS[api])))] + \
        [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in new.args]
    return helpers.call(ctx, original, api, "complex_draw", args,
                        why=f"MindSpore draws no {dtype.attr.value}: each part is drawn in its real dtype")


def function(ctx: ConversionContext, original: cst.Call, api: str, new: cst.BaseExpression) -> cst.BaseExpression:
    """The converted call of `api` (function form) through kernel_dtypes where the table bridges it."""
    drawn = _complex_draw(ctx, original, api, new) if isinstance(new, cst.Call) else None
    if drawn is not None:
        return drawn
    casts = casts_for(api)
    if not casts or not isinstance(new, cst.Call) or _is_bridged(ctx, new):
        return new
    if _never_refused(ctx, next((a.value for a in original.args if not a.star), None), casts):
        return new
    return _bridged(ctx, original, api, casts, new.func, list(new.args))


def method(ctx: ConversionContext, original: cst.Call, new: cst.BaseExpression) -> cst.BaseExpression:
    """x.sort() converted: still a method of x (kernel_dtypes takes its name, which compiles under jit), or a
    function call now. Not on `self` or an imported module (self.max(...), math.floor)."""
    func = original.func
    if not isinstance(func, cst.Attribute) or not isinstance(new, cst.Call) or _is_bridged(ctx, new):
        return new
    from .composed import own_methods

    casts = casts_for(f"torch.Tensor.{func.attr.value}")
    receiver = func.value
    if not casts or (isinstance(receiver, cst.Name) and (receiver.value == "self" or receiver.value in ctx.aliases)) \
            or ((func.attr.value in SHARED_METHODS or func.attr.value in own_methods(ctx))
                and not tensor_receiver(ctx, receiver)) \
            or _never_refused(ctx, receiver, casts):
        return new
    api = f"torch.Tensor.{func.attr.value}"
    if isinstance(new.func, cst.Attribute) and (new.func.attr.value == func.attr.value
                                                or new.func.value.deep_equals(receiver)):
        name = cst.SimpleString(f'"{new.func.attr.value}"')
        return _bridged(ctx, original, api, casts, name, [cst.Arg(new.func.value), *new.args])
    return _bridged(ctx, original, api, casts, new.func, list(new.args))
