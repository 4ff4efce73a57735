"""PyTorch's own sample inputs (OpInfo and ModuleInfo, from torch.testing._internal) as source code.

Each sample becomes one small program per call form: `out = torch.add(t0, t1, alpha=2)`, the
tensors named t0, t1... and carried apart as numpy arrays (the same values for both frameworks).
The forms are the ones real code uses and a converter must bind: PyTorch's own positional call,
every argument by its PyTorch keyword name, the method on the first tensor, a size given as ints,
a list or a tuple, and a list of tensors given as varargs. Forms PyTorch itself refuses are dropped
by the caller (it runs every form in PyTorch first).

Needs the `expecttest` package (torch.testing._internal imports it)."""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

# numpy carries these to both frameworks; bfloat16, complex32 and the unsigned wide ints have no numpy twin
DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128")


def dtype_class(name: str) -> str:
    """The verdicts' dtype classes: float16/float32/float64 apart (kernels differ), ints together."""
    if name == "bool":
        return "bool"
    if name.startswith(("int", "uint")):
        return "int"
    if name.startswith("complex"):
        return "complex"
    return name


@dataclass
class Sample:
    api: str  # the API the call names (torch.add, torch.Tensor.add, torch.nn.ELU)
    form: str  # positional / keyword / method / ints / list / tuple / varargs / module
    dtype: str  # the sample's dtype as PyTorch's test lists it
    source: str
    arrays: dict = field(default_factory=dict)
    origin: str = ""  # the OpInfo / ModuleInfo and sample number it came from

    @property
    def dtype_class(self) -> str:
        return dtype_class(self.dtype)


class Unwritable(Exception):
    """A sample value that has no source-code spelling here (a callable, a generator, a memory format)."""


class Writer:
    """Source text for sample values; tensors become names, their values kept in `arrays`."""

    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}

    def value(self, v) -> str:
        import torch

        if isinstance(v, torch.Tensor):
            if v.dtype in (torch.bfloat16, torch.complex32) or v.is_sparse or v.is_quantized or v.layout != torch.strided:
                raise Unwritable(str(v.dtype))
            name = f"t{len(self.arrays)}"
            self.arrays[name] = v.detach().cpu().resolve_conj().resolve_neg().numpy().copy()
            return name
        if isinstance(v, bool) or v is None or isinstance(v, str):
            return repr(v)
        if isinstance(v, int):
            return repr(v)
        if isinstance(v, float):
            if math.isnan(v):
                return "float('nan')"
            if math.isinf(v):
                return "float('inf')" if v > 0 else "-float('inf')"
            return repr(v)
        if isinstance(v, complex):
            return repr(v)
        if isinstance(v, torch.dtype):
            return str(v)  # torch.float64
        if isinstance(v, torch.Size):
            return repr(tuple(v))
        if isinstance(v, (tuple, list)):
            parts = [self.value(x) for x in v]
            if isinstance(v, tuple):
                return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
            return "[" + ", ".join(parts) + "]"
        if isinstance(v, slice) or v is Ellipsis:
            raise Unwritable("slice")
        raise Unwritable(type(v).__name__)


def _sizes(v) -> bool:
    return isinstance(v, (tuple, list)) and len(v) > 0 and all(isinstance(x, int) and not isinstance(x, bool)
                                                                 for x in v)


def _tensors(v) -> bool:
    import torch

    return isinstance(v, (tuple, list)) and len(v) > 0 and all(isinstance(x, torch.Tensor) for x in v)


def call_forms(callee: str | None, method: str | None, keywords: list[str] | None, sample
               ) -> list[tuple[str, bool, str, dict]]:
    """(form, whether it is the method, source, arrays) for one OpInfo sample; `callee`: the function, where
    the op's function is mapped; `method`: the Tensor method name where the op has one;
    `keywords`: PyTorch's names for the positional parameters (input first) where known."""
    out = []

    def emit(form, build, on_method=False):
        if not (method if on_method else callee):
            return
        w = Writer()
        try:
            text = build(w)
        except Unwritable:
            return
        out.append((form, on_method, "import torch\nout = " + text + "\n", w.arrays))

    inp, args, kwargs = sample.input, list(sample.args), dict(sample.kwargs)

    def kw(w):
        return [f"{k}={w.value(v)}" for k, v in kwargs.items()]

    emit("positional", lambda w: f"{callee}({', '.join([w.value(inp)] + [w.value(a) for a in args] + kw(w))})")
    if keywords and len(keywords) > len(args):  # every positional argument by PyTorch's keyword name
        emit("keyword", lambda w: f"{callee}({', '.join([f'{n}={w.value(v)}' for n, v in zip(keywords, [inp] + args)] + kw(w))})")
    if _tensors(inp) and not args:  # torch.atleast_1d([a, b]) -> torch.atleast_1d(a, b)
        emit("varargs", lambda w: f"{callee}({', '.join([w.value(t) for t in inp] + kw(w))})")
    if not isinstance(inp, (tuple, list)):
        emit("method", lambda w: f"{w.value(inp)}.{method}({', '.join([w.value(a) for a in args] + kw(w))})", True)
        if len(args) == 1 and _sizes(args[0]):  # x.view((2, 3)) -> x.view(2, 3) / x.view([2, 3])
            size = list(args[0])
            emit("ints", lambda w: f"{w.value(inp)}.{method}({', '.join([repr(s) for s in size] + kw(w))})", True)
            emit("list", lambda w: f"{w.value(inp)}.{method}({', '.join([repr(size)] + kw(w))})", True)
            emit("tuple", lambda w: f"{w.value(inp)}.{method}({', '.join([repr(tuple(size))] + kw(w))})", True)
    if len(args) >= 1 and _sizes(args[-1]):
        size = list(args[-1])
        head = lambda w: [w.value(inp)] + [w.value(a) for a in args[:-1]]  # noqa: E731
        emit("list", lambda w: f"{callee}({', '.join(head(w) + [repr(size)] + kw(w))})")
        emit("tuple", lambda w: f"{callee}({', '.join(head(w) + [repr(tuple(size))] + kw(w))})")
    return out


def op_api_names(op) -> tuple[str | None, str | None]:
    """(function API, method API) an OpInfo exercises, as the knowledge base names them."""
    import torch

    name = op.name
    if name.startswith("_") or name.endswith("_") or name.startswith("__"):
        return None, None
    function = None
    obj = torch
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            break
    if obj is not None and callable(obj):
        function = "torch." + name
    method = None
    if op.method_variant is not None and "." not in name and hasattr(torch.Tensor, name):
        method = "torch.Tensor." + name
    return function, method


def op_cpu_dtypes(op) -> list[str] | None:
    """The DTYPES an OpInfo lists for CPU, in DTYPES' order; None where the OpInfo cannot say."""
    try:
        supported = {str(d).replace("torch.", "") for d in op.supported_dtypes("cpu")}
    except Exception:
        return None
    return sorted(supported & set(DTYPES), key=DTYPES.index)


def op_origin(op) -> str:
    """The OpInfo's name as PyTorch's tests spell it (name.variant)."""
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def positional_keywords(api: str) -> list[str] | None:
    """PyTorch's names for an API's leading parameters (input first), from the verification's signatures."""
    from .signature import EITHER, torch_params

    try:
        params = torch_params(api)
    except Exception:
        return None
    if not params:
        return None
    names = []
    for p in params:
        if p.kind != EITHER:
            break
        names.append(p.name)
    return names or None


def opinfo_samples(mapped: set[str], per_dtype: int = 2, scan: int = 24, only: set[str] | None = None):
    """Every OpInfo of a mapped API: for each CPU dtype PyTorch supports, `per_dtype` of its first `scan`
    reference samples (spread over them: the simple ones come first, the edge values last), each in every
    call form. Yields Sample."""
    import torch
    from torch.testing._internal.common_methods_invocations import op_db

    for op in op_db:
        function, method = op_api_names(op)
        function = function if function in mapped else None
        method = method if method in mapped else None
        if not (function or method) or (only and not ({function, method} & only)):
            continue
        keywords = positional_keywords(function) if function else None
        dtypes = op_cpu_dtypes(op)
        if dtypes is None:
            continue
        origin = op_origin(op)
        for dtype in dtypes:
            torch.manual_seed(0)
            try:
                pool = list(itertools.islice(op.reference_inputs("cpu", getattr(torch, dtype), requires_grad=False),
                                             scan))
            except Exception:
                continue
            picks = [pool[round(i * (len(pool) - 1) / max(per_dtype - 1, 1))] for i in range(min(per_dtype, len(pool)))]
            for n, sample in enumerate({id(s): s for s in picks}.values()):
                for form, on_method, source, arrays in call_forms(function, method and op.name, keywords, sample):
                    yield Sample(method if on_method else function, form, dtype, source, arrays, f"{origin}#{n}")


def module_samples(mapped: set[str], per_dtype: int = 3, only: set[str] | None = None):
    """Every ModuleInfo of a mapped layer: for each dtype its test lists, `per_dtype` of its inputs (spread), as
    `layer = nn.X(...)` (weights set to the same values in both frameworks by `fill`), in eval mode, then called."""
    import torch
    from torch.testing._internal.common_modules import module_db

    for info in module_db:
        api = "torch.nn." + info.module_cls.__name__
        if api not in mapped or (only and api not in only):
            continue
        dtypes = [d for d in (str(d).replace("torch.", "") for d in info.dtypes) if d in DTYPES]
        for dtype in dtypes:
            torch.manual_seed(0)
            try:
                inputs = info.module_inputs_func(info, device="cpu", dtype=getattr(torch, dtype), requires_grad=False,
                                                 training=False)
            except Exception:
                continue
            picks = [inputs[round(i * (len(inputs) - 1) / max(per_dtype - 1, 1))]
                     for i in range(min(per_dtype, len(inputs)))]
            seen = set()
            for n, mi in enumerate(picks):
                if id(mi) in seen or mi.forward_input is None:
                    continue
                seen.add(id(mi))
                w = Writer()
                try:
                    cargs = [w.value(a) for a in mi.constructor_input.args] + \
                        [f"{k}={w.value(v)}" for k, v in mi.constructor_input.kwargs.items()]
                    fargs = [w.value(a) for a in mi.forward_input.args] + \
                        [f"{k}={w.value(v)}" for k, v in mi.forward_input.kwargs.items()]
                except Unwritable:
                    continue
                cast = "" if dtype == "float32" else f"layer = layer.to(torch.{dtype})\n"
                source = (f"import torch\nfrom torch import nn\nlayer = nn.{info.module_cls.__name__}({', '.join(cargs)})\n"
                          f"{cast}fill(layer)\nlayer.eval()\nout = layer({', '.join(fargs)})\n")
                yield Sample(api, "module", dtype, source, w.arrays, f"{info.name}#{n}")
