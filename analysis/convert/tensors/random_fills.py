"""In-place random fills: w.uniform_(-s, s), b.normal_(0, 0.02), w.data.bernoulli_(p),
torch.zeros(n).normal_(0, 1e-2). MindSpore 2.10 has no CPU kernel for them (InplaceUniform, InplaceNormal,
InplaceRandom...), so a converted model that initialises its weights this way cannot even be built.
x.uniform_(a, b) becomes x.assign_value(uniform_fill(x, a, b)): a helper (support/helper_random.py) draws
a fresh tensor of x's shape and dtype from the same distribution, and assign_value writes it into x and
returns x, as PyTorch does. A fill on a tensor just built returns the draw itself. Values differ from
PyTorch's draw (another generator); the distribution is the same, which is what the checks compare."""
from __future__ import annotations

import libcst as cst

from ..core import rules
from ..core.context import ConversionContext
from ..support import helpers

# PyTorch method -> (helper, PyTorch keyword -> the helper's). cauchy_ is not here: the mapping tables
# map it to MindSpore's Tensor.cauchy, which runs on CPU.
FILLS = {
    "uniform_": ("uniform_fill", {"to": "high"}),  # `from` cannot be written as a keyword
    "normal_": ("normal_fill", {"mean": "mean", "std": "std"}),
    "log_normal_": ("log_normal_fill", {"mean": "mean", "std": "std"}),
    "bernoulli_": ("bernoulli_fill", {"p": "p"}),
    "exponential_": ("exponential_fill", {"lambd": "lambd"}),
    "geometric_": ("geometric_fill", {"p": "p"}),
    "random_": ("random_fill", {"to": "high"}),
}


def rewrite(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str, kind: str,
            target: cst.BaseExpression) -> cst.BaseExpression:
    """The fill written as a draw; kind and target as inplace._target() found them."""
    api = f"torch.Tensor.{name}"
    helper, keywords = FILLS[name]
    # generator=None is the global generator, which a draw here uses: the argument goes
    args = [a for a in updated.args if not (a.keyword is not None and a.keyword.value == "generator"
                                            and isinstance(a.value, cst.Name) and a.value.value == "None")]
    if len(args) != len(updated.args):
        updated = updated.with_changes(args=[*args[:-1], *[a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in args[-1:]]])
    unknown = [a for a in updated.args if a.star or (a.keyword is not None and a.keyword.value not in keywords)]
    if unknown:  # generator=...: MindSpore has no generator objects
        ctx.mark(original, rules.TENSOR_METHOD, api,
                 f"{name}() with {cst.Module([]).code_for_node(unknown[0]).strip()}: MindSpore draws from its "
                 f"global seed (mindspore.set_seed); write x.assign_value({helper}(x, ...)) without it")
        return updated
    if kind in ("self", "part"):
        ctx.mark(original, rules.TENSOR_METHOD, api,
                 f"{name}() on part of a tensor or a computed one has no MindSpore CPU kernel: draw the values "
                 f"of that part and write them with x[index] = ... or x.assign_value(...)")
        return updated
    local = helpers.use(ctx, helper)
    args = [cst.Arg(value=target)]
    for arg in updated.args:
        keyword = cst.Name(keywords[arg.keyword.value]) if arg.keyword is not None else None
        args.append(cst.Arg(value=arg.value, keyword=keyword,
                            equal=arg.equal if keyword is not None else cst.MaybeSentinel.DEFAULT))
    args = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in args[:-1]] + args[-1:]
    draw = cst.Call(func=cst.Name(local), args=args)
    where = helpers.where(ctx)
    if kind == "new":  # nothing else holds the tensor: the draw is the result
        ctx.change(original, rules.TENSOR_METHOD, api, local,
                   f"{name}() on a new tensor -> {local}(), a draw of its shape and dtype ({where}; "
                   "MindSpore's in-place random fills have no CPU kernel)")
        return draw
    ctx.change(original, rules.TENSOR_METHOD, api, "mindspore.Tensor.assign_value",
               f"x.{name}(...) -> x.assign_value({local}(x, ...)), a draw of x's shape and dtype from the same "
               f"distribution ({where}; MindSpore's in-place random fills have no CPU kernel)")
    return cst.Call(func=cst.Attribute(value=target, attr=cst.Name("assign_value")), args=[cst.Arg(value=draw)])
