"""Calls whose MindSpore counterpart is a few lines rather than one call: a supplement entry with
"helper" names a local function of helper_source.py that takes PyTorch's parameters under PyTorch's
names and computes PyTorch's values with MindSpore (torch.allclose -> allclose(), built on
ops.isclose). The call keeps its arguments as written and goes to that function, copied into the
converted file by helpers.py.

An argument the function does not take (out=, a dtype= it does not model) is dropped only when it
is a placement detail or spells PyTorch's default; one whose entry row lists values (interpolate's
mode=) must be one of those, one whose row "differs" must be PyTorch's default; any other value leaves the call marked, and so
do unpacked arguments unless the function takes all of PyTorch's parameters. A tensor method with
such an entry (x.aminmax(dim=0)) calls the function on its receiver; the API passed as a value
(functools.partial(torch.allclose, ...)) becomes the function's name."""
from __future__ import annotations

import ast
from functools import lru_cache

import libcst as cst

from analysis.knowledge.mapping import ApiEntry, signature_parameters

from ..core import rules
from ..core.bound import tensor_receiver
from ..core.context import ConversionContext
from ..core.names import code
from ..support import helpers
from .signatures import HARMLESS_DROPS, fix_commas


@lru_cache(maxsize=None)
def helper_parameters(name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Helper `name`'s parameters an argument can fill by position (a '*args' last), and all of them."""
    text, _ = helpers.definitions()[name]
    node = ast.parse(text).body[0]
    if isinstance(node, ast.ClassDef):  # a cell: its __init__ takes the layer's arguments (none without one)
        node = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
        if node is None:
            return (), ()
    positional = [a.arg for a in [*node.args.posonlyargs, *node.args.args] if a.arg != "self"]
    positional += [f"*{node.args.vararg.arg}"] if node.args.vararg else []
    return tuple(positional), tuple(positional) + tuple(a.arg for a in node.args.kwonlyargs)


def torch_parameters(signature: str) -> tuple[list[str], dict[str, str | None]]:
    """The parameters of a PyTorch signature an argument can fill by position (up to a bare '*', or
    a '*args' last), and every parameter's default (None: it has none)."""
    positional, defaults, keyword_only = [], {}, False
    for item in signature_parameters(signature):
        name, _, default = item.partition("=")
        name = name.split(":")[0].strip()
        if name in ("", "/", "*", "self"):
            keyword_only = keyword_only or name == "*"
            continue
        if not keyword_only:
            positional.append(name)
        keyword_only = keyword_only or name.startswith("*")
        defaults[name] = default.strip() or None
    return positional, defaults


def _slot(params: tuple[str, ...] | list[str], position: int) -> str | None:
    """The parameter a positional argument at `position` fills ('*args' takes the rest); None: too many."""
    for index, name in enumerate(params):
        if name.startswith("*") or index == position:
            return name
    return None


def helper_call(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str,
                entry: ApiEntry) -> cst.BaseExpression:
    """torch.allclose(a, b, atol=1e-6) -> allclose(a, b, atol=1e-6), the helper written into the file."""
    positional, taken = helper_parameters(entry.helper)
    names, defaults = torch_parameters(entry.torch_signature) if entry.torch_signature else (list(positional), {})
    # the helper takes every parameter PyTorch's function has: unpacked arguments bind the same way
    complete = bool(defaults) and {name.lstrip("*") for name in defaults} <= {name.lstrip("*") for name in taken}
    kept, dropped, position = [], [], 0
    for arg in updated.args:
        if complete and (arg.star or position is None):
            kept.append(arg)
            position = None if arg.star == "*" else position  # later positional ones: where PyTorch puts them
            continue
        if arg.star:
            return _refuse(ctx, original, updated, qualified, entry,
                           f"unpacked arguments ({arg.star}{code(arg.value)}) cannot be checked")
        if arg.keyword is None:
            name = _slot(names, position)
            position += 1
            if name is None or _slot(positional, position - 1) != name:
                return _refuse(ctx, original, updated, qualified, entry,
                               f"positional argument {position} ({code(arg.value)}) is not handled")
        else:
            name = arg.keyword.value
        row = next((r for r in entry.params if r.torch == name and r.kind == "param"), None)
        text = code(arg.value).strip()
        if name in taken and row is not None and (row.values and row.value_for(text) is None or row.relation == "differs"
                                                  and text != defaults.get(name)):
            shown = f"{name}= {', '.join(dict(row.values))} only" if row.values else f"{name}={defaults.get(name)} only"
            ctx.mark(original, rules.API_DIFF, qualified,
                     f"argument {name}={code(arg.value)}: the local function {entry.helper}() written for "
                     f"{qualified} computes PyTorch's values for {shown}; {row.note}")
            return updated
        if name in taken:
            kept.append(arg)
        elif name in HARMLESS_DROPS or (defaults.get(name) is not None and code(arg.value) == defaults[name]):
            dropped.append(f"{name}=")
        else:
            return _refuse(ctx, original, updated, qualified, entry, f"argument {name}={code(arg.value)} is not handled")
    new = helpers.call(ctx, original, qualified, entry.helper, fix_commas(kept) if dropped else kept,
                       why=entry.note, note=f", dropped {', '.join(dropped)}" if dropped else "", template=updated)
    for row in entry.params:  # an output the helper computes otherwise (a decomposition's signs): to check
        if row.kind == "output" and row.relation == "differs":
            ctx.caution(original, rules.API_DIFF, qualified, f"converted to {code(new.func)}(), but {row.note}")
    return new


def _refuse(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry,
            why: str) -> cst.Call:
    ctx.mark(original, rules.API_DIFF, qualified,
             f"{why}: the local function {entry.helper}() written for {qualified} takes "
             f"{', '.join(helper_parameters(entry.helper)[1])} only; call it with those")
    return updated


def method_call(ctx: ConversionContext, original: cst.Call, updated: cst.Call, entry: ApiEntry):
    """x.aminmax(dim=0) -> aminmax(x, dim=0): a tensor method whose entry names a helper, called with
    the receiver as its first argument (None for a call on self or cls: a method of that class)."""
    receiver = updated.func.value  # type: ignore[union-attr]
    text = code(receiver)
    if text in ("self", "cls") or text.startswith("self.") or layer_call(ctx, updated):
        return None
    if updated.func.attr.value in own_methods(ctx) and not tensor_receiver(ctx, original.func.value):  # type: ignore[union-attr]
        return None  # win.narrow_copy(2, 3) where the file's own class defines narrow_copy
    if getattr(receiver, "lpar", None):
        receiver = receiver.with_changes(lpar=[], rpar=[])  # now an argument: its parentheses are redundant
    first = cst.Arg(value=receiver, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if updated.args
                    else cst.MaybeSentinel.DEFAULT)
    as_function = updated.with_changes(args=[first, *updated.args])
    new = helper_call(ctx, original, as_function, entry.torch, entry)
    return updated if new is as_function else new  # refused (marked): the method call stays as written


def own_methods(ctx: ConversionContext) -> frozenset[str]:
    """Names of the methods the file's own classes define (read once per file)."""
    found = ctx.__dict__.get("_own_methods")
    if found is None:
        classes = [node for node in ast.walk(ctx.tree) if isinstance(node, ast.ClassDef)] if ctx.tree else []
        found = ctx.__dict__["_own_methods"] = frozenset(
            item.name for node in classes for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return found


def layer_call(ctx: ConversionContext, call: cst.Call) -> bool:
    """block.norm(h) where the file holds a layer as `.norm` (self.norm = nn.LayerNorm(d)) and the first
    argument is no literal: a call of that layer, not the tensor method (x.norm(2), x.norm(dim=1))."""
    name = call.func.attr.value  # type: ignore[union-attr]
    first = next((a.value for a in call.args if a.keyword is None), None)
    literal = (cst.Integer, cst.Float, cst.SimpleString, cst.UnaryOperation)
    if first is None or isinstance(first, literal) or (isinstance(first, cst.Name) and first.value == "None"):
        return False
    return ctx.tree is not None and name in held_attributes(ctx.tree)


@lru_cache(maxsize=4)
def held_attributes(tree: ast.AST) -> frozenset[str]:
    """Attribute names the file assigns an object built by a call to (`self.norm = nn.LayerNorm(d)`)."""
    return frozenset(target.attr for node in ast.walk(tree) if isinstance(node, ast.Assign)
                     and isinstance(node.value, ast.Call)
                     for target in node.targets if isinstance(target, ast.Attribute))


def reference(ctx: ConversionContext, original: cst.BaseExpression, qualified: str, helper: str) -> cst.BaseExpression:
    """torch.allclose used as a value (map(torch.allclose, ...), functools.partial(...), loss = F.some_loss)
    -> the local function (or cell) its calls become. Its positional parameters are PyTorch's first ones
    under PyTorch's names, so a call through the value binds as in PyTorch, or raises TypeError for an
    argument it does not take (out=, check_stride=): never a silently different call."""
    local = helpers.use(ctx, helper)
    ctx.change(original, rules.API_ARGS, qualified, local,
               f"{qualified} -> {local}, {helpers.where(ctx)} (passed as a value; it takes "
               f"{', '.join(helper_parameters(helper)[1])})")
    return cst.Name(local)
