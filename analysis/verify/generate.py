"""Build the calls for one API, keeping only those PyTorch itself accepts.

Runs inside a PyTorch worker (see workers.py): a base call is searched over the candidate values
of the required parameters; then the variants: every parameter in keyword and positional
spelling, each optional parameter with non-default values, float64 and int64 inputs, and
broadcasting shapes. Every kept call carries PyTorch's result."""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from .inputs import BY_API, FLOAT_NAMES, POOLS, SKIP, SUFFIX, TENSOR
from .signature import EITHER, KEYWORD_ONLY, POSITIONAL_ONLY, VAR, Param, resolve, torch_params

MAX_BASE_TRIES = 48
# what a built layer is called on; losses and pairwise layers take two or three inputs
MODULE_INPUTS = ["x", "img", "seq", "vol", "v", "ids", "lab3", "x, y", "x, lab3", "p, p", "x, y, p", "x, y, c"]
# values PyTorch draws at random: only shape and dtype are compared
RANDOM_WORDS = ("rand", "dropout", "bernoulli", "multinomial", "normal", "poisson", "rrelu", "RReLU", "empty",
                "Dropout", "exponential_", "geometric_", "cauchy_", "log_normal_", "uniform_", "random_",
                "gumbel", "fractional", "Fractional")  # gumbel_softmax adds Gumbel noise; fractional pooling draws its regions


@dataclass
class Call:
    api: str
    source: str
    params: list[str]  # "name" passed by position, "name=" by keyword
    dtype: str = "float32"
    kind: str = "base"  # base / spelling / param / dtype / broadcast
    focus: str = ""  # the optional parameter a "param" call adds
    random: bool = False
    torch: object = None  # PyTorch's result, as plain values (see compare.plain)
    converted: str = ""
    unconverted: list[str] = field(default_factory=list)


def family(api: str) -> str:
    for prefix in ("torch.nn.functional", "torch.Tensor", "torch.nn"):
        if api.startswith(prefix + "."):
            return prefix
    return "torch"


HEADER = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n"


def _callee(api: str) -> str:
    fam = family(api)
    short = api.rsplit(".", 1)[-1]
    return {"torch.nn.functional": f"F.{short}", "torch.nn": f"nn.{short}"}.get(fam, api)


def _candidates(api: str, p: Param, first_tensor: bool) -> list[str]:
    if p.name in BY_API.get(api, {}):
        return BY_API[api][p.name]
    if p.name in POOLS:
        return POOLS[p.name]
    if first_tensor or p.name in ("input", "self", "x", "a", "b", "tensor", "t", "y", "mean", "std", "elements"):
        return _by_rank(api, TENSOR)
    return ["2", "0.5"] + TENSOR[:2]


def _by_rank(api: str, names: list[str]) -> list[str]:
    """Typical inputs first: 3d layers take volumes, 2d images, 1d sequences (PyTorch also takes
    unbatched inputs, which MindSpore's layers often do not: those are not the usual call)."""
    short = api.rsplit(".", 1)[-1].lower()
    first = "vol" if "3d" in short else "img" if "2d" in short else "seq" if "1d" in short else None
    return [first] + [n for n in names if n != first] if first else names


def _args(values: list[tuple[Param, str]], keyword: bool) -> tuple[str, list[str]]:
    parts, used = [], []
    for p, text in values:
        if p.kind == VAR:
            parts.append(text)
            used.append(p.name)
        elif p.kind == KEYWORD_ONLY or (keyword and p.kind == EITHER):
            parts.append(f"{p.name}={text}")
            used.append(p.name + "=")
        else:
            parts.append(text)
            used.append(p.name)
    return ", ".join(parts), used


class Builder:
    """Source text of a call to `api` with given arguments (a module is built, then called)."""

    def __init__(self, api: str, params: list[Param], is_class: bool, method: bool):
        self.api, self.params, self.is_class, self.method = api, params, is_class, method

    def source(self, arglist: str, receiver: str, module_input: str) -> str:
        if self.is_class:
            # train(): PyTorch's own default made explicit, so both sides compute in training mode (a layer
            # relying on the default is the training-mode rule's concern, not this API's)
            return (f"{HEADER}layer = {_callee(self.api)}({arglist})\nfill(layer)\nlayer.train()\n"
                    f"out = layer({module_input})\n")
        if self.method:
            name = self.api.rsplit('.', 1)[-1]
            text = f"{HEADER}out = {receiver}.{name}({arglist})\n"
            if name.endswith("_") and receiver:
                # an in-place method is judged by the tensor it updates, not only by what it returns
                text += f"out = (out, {receiver})\n"
            return text
        return f"{HEADER}out = {_callee(self.api)}({arglist})\n"


def _retype(source: str, dtype: str) -> str:
    """The same call on inputs of another dtype: every float tensor name gets the dtype's suffix."""
    import re

    suffix = SUFFIX[dtype]
    body_start = source.index(HEADER) + len(HEADER)
    body = re.sub(r"\b(" + "|".join(sorted(FLOAT_NAMES, key=len, reverse=True)) + r")\b(?![_.(=])",
                  lambda m: m.group(1) + suffix, source[body_start:])
    return source[:body_start] + body


def _fallback_base(api, build, required, params, pools, receivers, inputs, run):
    combos = list(itertools.islice(itertools.product(itertools.product(*pools), receivers, inputs), 8))
    extras: list[list[tuple[Param, str]]] = [[]]
    extras += [[(p, POOLS[p.name][0])] for p in params
               if not p.required and p.kind != VAR and POOLS.get(p.name) and p.name not in SKIP]
    for extra in extras:
        for combo, receiver, module_input in combos:
            values = list(zip(required, combo)) + extra
            arglist, _ = _args(values, keyword=False)
            source = build.source(arglist, receiver, module_input)
            for dtype in (("int64",) if not extra else ("float32", "int64")):
                text = _retype(source, dtype) if dtype != "float32" else source
                ok, result = run(text)
                if ok:
                    if dtype != "float32":  # an integer-only API: its base call takes integer inputs
                        receiver = receiver and receiver + SUFFIX[dtype]
                        module_input = module_input and module_input + SUFFIX[dtype]
                        values = [(p, t + SUFFIX[dtype] if t in FLOAT_NAMES else t) for p, t in values]
                    return values, receiver, module_input, result
    return None


def generate(api: str, run) -> tuple[list[Call], str]:
    """(kept calls, why none) for one API; `run(source)` executes PyTorch and returns
    (ok, result or error text)."""
    obj = resolve(api)
    if obj is None:
        return [], "not found in this torch"
    import inspect

    is_class = inspect.isclass(obj)
    method = api.startswith("torch.Tensor.")
    params = torch_params(api, obj)
    if params is None:
        return [], "no signature found"
    takes_out = any(p.name == "out" for p in params) and not is_class and not method
    params = [p for p in params if p.name not in ("out",)]
    build = Builder(api, params, is_class, method)
    random = any(word in api for word in RANDOM_WORDS)
    # a *size / *dims parameter with candidates is part of the base call (x.view(2, 6), x.permute(1, 0))
    required = [p for p in params if p.required or (p.kind == VAR and p.name in POOLS and POOLS[p.name])]
    if any(p.name in SKIP for p in required):
        return [], f"required argument {next(p.name for p in required if p.name in SKIP)} is not generated"
    pools = [_candidates(api, p, i == 0 and not method)[:4] for i, p in enumerate(required)]
    receivers = BY_API.get(api, {}).get("self", TENSOR) if method else [""]
    inputs = (BY_API.get(api, {}).get("module_input") or _by_rank(api, MODULE_INPUTS)) if is_class else [""]
    base = None
    last_error = "no candidate"
    for n, (combo, receiver, module_input) in enumerate(itertools.product(itertools.product(*pools), receivers,
                                                                            inputs)):
        if n >= MAX_BASE_TRIES * (4 if is_class or method else 1):
            break
        values = list(zip(required, combo))
        arglist, used = _args(values, keyword=False)
        source = build.source(arglist, receiver, module_input)
        ok, result = run(source)
        if ok:
            base = (values, receiver, module_input, result)
            break
        last_error = result
    if base is None:  # integer-only operations (bitwise, gcd), or an optional argument that is needed (clamp)
        base = _fallback_base(api, build, required, params, pools, receivers, inputs, run)
    if base is None:
        return [], f"no generated call ran in PyTorch ({last_error})"
    values, receiver, module_input, result = base
    arglist, used = _args(values, keyword=False)
    calls = [Call(api, build.source(arglist, receiver, module_input), used, random=random, torch=result)]

    def attempt(values2, keyword, kind, dtype="float32", focus=""):
        arglist2, used2 = _args(values2, keyword)
        source2 = build.source(arglist2, receiver, module_input)
        if dtype != "float32":
            source2 = _retype(source2, dtype)
        if any(c.source == source2 for c in calls):
            return
        ok2, result2 = run(source2)
        if ok2:
            calls.append(Call(api, source2, used2, dtype=dtype, kind=kind, focus=focus, random=random, torch=result2))

    # keyword spelling of the required arguments
    if any(p.kind == EITHER for p, _ in values):
        attempt(values, True, "spelling")
    if takes_out:  # the base call's result into an out= tensor of its dtype (PyTorch resizes it), as OpInfo's test_out
        source2 = calls[0].source + ("buf = tuple(torch.empty(0, dtype=o.dtype) for o in out) if isinstance(out, tuple) "
                                     "else torch.empty(0, dtype=out.dtype)\n"
                                     f"out = {_callee(api)}({arglist}, out=buf)\nout = (out, buf)\n")
        ok2, result2 = run(source2)
        if ok2:
            calls.append(Call(api, source2, used + ["out="], kind="param", focus="out", random=random, torch=result2))
    # each optional argument, non-default values, by keyword and (where it has a place) by position
    position = {p.name: i for i, p in enumerate(params)}
    for p in params:
        if p.required or p.kind == VAR or p.name in SKIP or (p.name not in POOLS and p.name not in BY_API.get(api, {})):
            continue
        for text in BY_API.get(api, {}).get(p.name, POOLS[p.name])[:2]:
            if p.default is not None and text == p.default:
                continue
            # by keyword, the required arguments staying positional (their keyword spelling is tried apart)
            attempt(values + [(Param(p.name, KEYWORD_ONLY), text)], False, "param", focus=p.name)
            before = params[:position[p.name]]
            if p.kind in (EITHER, POSITIONAL_ONLY) and all(q.required or q.default not in (None, "<default>")
                                                           for q in before if q.kind != VAR):
                filled = dict((q.name, t) for q, t in values)
                positional = [(q, filled.get(q.name, q.default)) for q in before if q.kind != KEYWORD_ONLY]
                if all(q.kind != VAR for q, _ in positional):
                    rest = [(q, t) for q, t in values if q.kind == KEYWORD_ONLY]
                    attempt([(Param(q.name, POSITIONAL_ONLY), t) for q, t in positional] +
                            [(Param(p.name, POSITIONAL_ONLY), text)] + rest, False, "param", focus=p.name)
    # inputs of other dtypes
    for dtype in ("float64", "int64"):
        attempt(values, False, "dtype", dtype)
    # broadcasting: a second tensor of another shape
    for i, (p, text) in enumerate(values):
        if i > 0 and text == "y":
            for other in ("v", "c"):
                attempt(values[:i] + [(p, other)] + values[i + 1:], False, "broadcast")
    if method and receiver == "x":
        for other in ("v", "c"):
            for i, (p, text) in enumerate(values):
                if text == "y":
                    attempt(values[:i] + [(p, other)] + values[i + 1:], False, "broadcast")
    return calls, ""
