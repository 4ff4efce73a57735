"""Factory keywords spread into a layer or a creation call: `factory_kwargs = {'device': device, 'dtype':
dtype}` then `nn.Linear(a, b, **factory_kwargs)` or `torch.empty(n, **factory_kwargs)`, the idiom of
PyTorch's own layers that custom layers copy (timm writes it `dd = dict(device=device, dtype=dtype)`).
Where every assignment in the file binds the name to such a dict (keys device and dtype only), the call
is converted without the spread and gets `**factory_options(name)` back (helper_source.py): device
dropped (MindSpore places by its context), a dtype of None dropped (float32 either way), any other dtype
passed on. Only for APIs whose MindSpore counterpart takes dtype= in PyTorch's sense; a spread the file
fills otherwise (a parameter, other keys) stays marked by signatures._spread_keywords."""
from __future__ import annotations

import ast

import libcst as cst

from analysis.knowledge.mapping import load_signatures

from ..core.bound import bindings
from ..core.context import ConversionContext
from ..support import helpers
from .signatures import fix_commas

KEYS = frozenset({"device", "dtype"})
FACTORY = "factory"  # the kind bindings() records for such a dict


def _kind(value: ast.AST, aliases: dict[str, str]) -> str | None:
    """FACTORY for {'device': d, 'dtype': t} or dict(device=d, dtype=t) with no other key, else None."""
    if isinstance(value, ast.Dict) and value.keys and all(
            isinstance(k, ast.Constant) and k.value in KEYS for k in value.keys):
        return FACTORY
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" \
            and not value.args and value.keywords and all(k.arg in KEYS for k in value.keywords):
        return FACTORY
    return None


def _factory_names(ctx: ConversionContext) -> frozenset[str]:
    if ctx.factory_dicts is None:
        found = bindings(ctx.tree, ctx.aliases, kind=_kind, self_returning=False)
        ctx.factory_dicts = frozenset(name for name, kind in found.items() if kind == FACTORY)
    return ctx.factory_dicts


def takes_dtype(ctx: ConversionContext, qualified: str) -> bool:
    """Whether the MindSpore counterpart reads dtype= as PyTorch does and has no device=."""
    sig = load_signatures().get(qualified)
    entry = ctx.classic.get(qualified)
    row = entry.param("dtype") if entry is not None else None
    return sig is not None and sig.map.get("dtype") == "dtype" and not sig.map.get("device") \
        and (row is None or row.relation == "same")


def split(ctx: ConversionContext, qualified: str, call: cst.Call) -> tuple[cst.Call, cst.Name] | None:
    """(the call without its factory spread, the spread's name), or None where none applies."""
    spreads = [a for a in call.args if a.star == "**"]
    if len(spreads) != 1 or not isinstance(spreads[0].value, cst.Name) \
            or spreads[0].value.value not in _factory_names(ctx) or not takes_dtype(ctx, qualified):
        return None
    return call.with_changes(args=fix_commas([a for a in call.args if a is not spreads[0]])), spreads[0].value


def put_back(ctx: ConversionContext, new: cst.BaseExpression, name: cst.Name, marked: bool) -> cst.BaseExpression:
    """The converted call with **factory_options(name) appended (**name as written where the call was marked,
    so the marked line keeps what the user wrote); a result that is no call is returned as it is."""
    if not isinstance(new, cst.Call):
        return new
    value = name if marked else cst.Call(func=cst.Name(helpers.use(ctx, "factory_options")), args=[cst.Arg(value=name)])
    args = list(new.args)
    if args:
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return new.with_changes(args=[*args, cst.Arg(value=value, star="**")])

