"""Layers built with inplace=True (nn.ReLU(inplace=True), nn.SiLU(True), nn.Dropout(p, True)) write their
result into their input in PyTorch; MindSpore's return it and leave the input alone. Where such a layer's
call is assigned to another name (y = act(x)), x is bound to the result too (y = x = act(x)), and a call
whose value is dropped (act(x)) becomes x = act(x): later reads of x then see PyTorch's values, and the
rebinding compiles in a graph. Other names for x's tensor (an earlier z = x) are not followed."""
from __future__ import annotations

import ast

import libcst as cst

from analysis.knowledge.mapping import load_signatures

from ..core import rules
from ..core.context import ConversionContext
from ..core.names import code, dotted, dotted_ast, resolve_text


def _in_place(call: ast.Call, aliases: dict[str, str]) -> str | None:
    """The torch.nn layer a construction builds with inplace=True, or None."""
    func = dotted_ast(call.func)
    api = resolve_text(func, aliases) if func else None
    sig = load_signatures().get(api) if api and api.startswith("torch.nn.") else None
    params = [p[0] for p in sig.torch[0]] if sig is not None and sig.torch else []
    if "inplace" not in params:
        return None
    given = {k.arg: k.value for k in call.keywords if k.arg}
    index = params.index("inplace")
    if "inplace" not in given and index < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args):
        given["inplace"] = call.args[index]
    flag = given.get("inplace")
    return api if isinstance(flag, ast.Constant) and flag.value is True else None


def find(tree: ast.Module | None, aliases: dict[str, str]) -> dict[str, str]:
    """Names and attribute paths (act, self.act) bound to in-place layers anywhere in the file -> the layer."""
    found = {}
    for node in ast.walk(tree) if tree is not None and aliases else ():
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call):
            target, api = dotted_ast(node.targets[0]), _in_place(node.value, aliases)
            if target and api:
                found[target] = api
    return found


def layers(ctx: ConversionContext) -> dict[str, str]:
    """find() for the file being converted, once (the outline's, where it read the file)."""
    if ctx.inplace_layers is None:
        ctx.inplace_layers = ctx.outline.inplace_layers if ctx.outline is not None else find(ctx.tree, ctx.aliases)
    return ctx.inplace_layers


def _input(ctx: ConversionContext, value: cst.BaseExpression) -> tuple[str, cst.Name] | None:
    """(layer, its input) for a call of an in-place layer on a plain name: act(x)."""
    if not isinstance(value, cst.Call) or len(value.args) != 1:
        return None
    arg = value.args[0]
    layer = layers(ctx).get(dotted(value.func) or "")
    if layer is None or arg.keyword is not None or arg.star or not isinstance(arg.value, cst.Name):
        return None
    return layer, arg.value


def rebind(ctx: ConversionContext, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
    """y = act(x) -> y = x = act(x)."""
    found = _input(ctx, updated.value)
    if found is None or len(updated.targets) != 1:
        return updated
    layer, name = found
    if isinstance(updated.targets[0].target, cst.Name) and updated.targets[0].target.value == name.value:
        return updated  # x = act(x) already
    ctx.change(original, rules.API_ARGS, layer, layer.replace("torch.", "mindspore.", 1),
               f"{code(original.value)} changes {name.value} in place in PyTorch: {name.value} is bound to the result")
    return updated.with_changes(targets=[*updated.targets, cst.AssignTarget(target=name)])


def rebind_expression(ctx: ConversionContext, original: cst.Expr, updated: cst.Expr):
    """act(x) on a line of its own -> x = act(x)."""
    found = _input(ctx, updated.value)
    if found is None:
        return updated
    layer, name = found
    ctx.change(original, rules.API_ARGS, layer, layer.replace("torch.", "mindspore.", 1),
               f"{code(original.value)} changes {name.value} in place in PyTorch: {name.value} = its result")
    return cst.Assign(targets=[cst.AssignTarget(target=name)], value=updated.value, semicolon=updated.semicolon)
