"""torch.func's function transforms: vmap becomes mindspore.vmap, linearize ops.linearize, and grad,
vjp, jvp, jacrev, jacfwd and hessian become local helpers written over mindspore.grad / vjp /
ops.jacrev / ops.jacfwd (helper_transforms.py says where MindSpore's results are packaged
differently). A call is left marked where MindSpore would compute something else or fail:

- an argument with no counterpart at a value other than PyTorch's default (randomness=, chunk_size=);
- a function written as a lambda inside the call of a transform that compiles it (mindspore.vmap,
  jacrev, jacfwd...): MindSpore's graph parser finds a lambda only on a line of its own;
- a derivative of a derivative taken in PyNative mode (grad(grad(f)), vjp of a function that calls
  grad): MindSpore 2.10 drops the terms that flow through a reduction there (the gradient of
  sum(x)**2 comes out wrong), while the compiled transforms (jacrev, jacfwd, hessian, vmap) are right;
- a function whose body holds a no_grad block: the converter unwraps the block, so its values would
  take part in the derivative.
"""
from __future__ import annotations

import ast

import libcst as cst

from ..core import rules
from ..core.context import ConversionContext
from ..core.names import code, dotted_ast, resolve, resolve_text
from ..core.walk import GRAD_CONTEXTS
from ..support import helpers

NAMESPACES = ("torch.func.",)


# name -> (PyTorch's parameters in order (a leading * marks *args, then keyword-only ones follow
# "*"), parameters dropped at these default values (anything else leaves the call marked, with why),
# where it goes: "helper:<name>" or a MindSpore API, compiled: whether MindSpore compiles func)
TRANSFORMS = {
    "vmap": (("func", "in_dims", "out_dims", "randomness", "*", "chunk_size"),
             {"randomness": (("'error'", '"error"'), "randomness= other than 'error' has no counterpart in "
                             "mindspore.vmap: write the random draws outside the mapped function"),
              "chunk_size": (("None",), "chunk_size= (mapping the batch in slices to save memory) has no "
                             "counterpart in mindspore.vmap: drop it where the whole batch fits in memory")},
             "mindspore.vmap", True),
    "grad": (("func", "argnums", "has_aux"), {}, "helper:func_grad", False),
    "vjp": (("func", "*primals", "has_aux"), {}, "helper:func_vjp", False),
    "jvp": (("func", "primals", "tangents", "*", "strict", "has_aux"), {}, "helper:func_jvp", False),
    "jacrev": (("func", "argnums", "*", "has_aux", "chunk_size", "_preallocate_and_copy"),
               {"chunk_size": (("None",), "chunk_size= has no counterpart in ops.jacrev: drop it where the "
                               "whole Jacobian fits in memory"),
                "_preallocate_and_copy": (("False",), "_preallocate_and_copy= has no counterpart in ops.jacrev")},
               "helper:func_jacrev", True),
    "jacfwd": (("func", "argnums", "has_aux", "*", "randomness"),
               {"randomness": (("'error'", '"error"'), "randomness= other than 'error' has no counterpart in "
                               "ops.jacfwd: write the random draws outside the function")},
               "helper:func_jacfwd", True),
    "hessian": (("func", "argnums"), {}, "helper:func_hessian", True),
    "linearize": (("func", "*primals"), {}, "mindspore.ops.linearize", True),
}
DIFFERENTIATING = frozenset(TRANSFORMS) - {"vmap"}
# Keywords renamed for the MindSpore API (the helpers keep PyTorch's names)
KEYWORDS = {"mindspore.vmap": {"func": "fn", "in_dims": "in_axes", "out_dims": "out_axes"},
            "mindspore.ops.linearize": {"func": "fn"}}


def transform_name(qualified: str | None) -> str | None:
    """'grad' for torch.func.grad, 'vmap' for torch.vmap (and torch.func.vmap); None otherwise."""
    if qualified == "torch.vmap":
        return "vmap"
    for space in NAMESPACES:
        if qualified and qualified.startswith(space) and qualified[len(space):] in TRANSFORMS:
            return qualified[len(space):]
    return None


def convert(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry):
    name = transform_name(qualified)
    params, dropped, target, compiled = TRANSFORMS[name]
    bound, why = _bind(updated, params)
    if bound is None:
        ctx.mark(original, rules.API_UNMAPPED, qualified, f"{qualified} {why}: convert this call by hand")
        return updated
    position = next(i for i, a in enumerate(updated.args) if a is bound["func"][0])
    problem = _refused(ctx, original, bound, dropped, name, compiled, position)
    if problem:
        ctx.mark(original, rules.API_UNMAPPED, qualified, problem)
        return updated
    keep = [a for a in updated.args if _param_of(a, bound) not in dropped]
    renames = KEYWORDS.get(target, {})
    args = [a.with_changes(keyword=cst.Name(renames[a.keyword.value])) if a.keyword is not None
            and a.keyword.value in renames else a for a in keep]
    if args and len(args) < len(updated.args):
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    if target == "mindspore.ops.linearize":
        return _linearize(ctx, original, updated, qualified, args)
    notes = [f"{a.keyword.value}= dropped (PyTorch's default)" for a in updated.args
             if _param_of(a, bound) in dropped]
    notes += [f"{old}= -> {new}=" for old, new in renames.items()
              if any(a.keyword is not None for a in bound.get(old, ()))]
    if target.startswith("helper:"):  # packaged as torch.func packages it
        return helpers.call(ctx, original, qualified, target[len("helper:"):], args, template=updated,
                            why="; ".join(["over MindSpore's transform", *notes]))
    ctx.change(original, rules.API_ARGS if notes else rules.API_RENAME, qualified, target,
               f"{qualified} -> {target}" + (f" ({'; '.join(notes)})" if notes else ""))
    return updated.with_changes(func=ctx.ms_expr(target), args=args)


def _bind(call: cst.Call, params: tuple[str, ...]) -> tuple[dict[str, list[cst.Arg]] | None, str]:
    """PyTorch parameter -> the arguments given for it (several for *primals); None when the call
    spreads arguments (*args, **kwargs) or gives one PyTorch does not take."""
    positional = list(params[:params.index("*")]) if "*" in params else list(params)
    names = {p for p in params if not p.startswith("*")}
    bound: dict[str, list[cst.Arg]] = {}
    index = 0
    for arg in call.args:
        if arg.star:
            return None, "spreads its arguments (*args / **kwargs)"
        if arg.keyword is not None:
            if arg.keyword.value not in names:
                return None, f"with {arg.keyword.value}= (not one of PyTorch's parameters)"
            bound.setdefault(arg.keyword.value, []).append(arg)
            continue
        if index >= len(positional):
            return None, "with more positional arguments than PyTorch takes"
        param = positional[index]
        if param.startswith("*"):
            bound.setdefault(param[1:], []).append(arg)
            continue  # *primals takes the rest
        bound.setdefault(param, []).append(arg)
        index += 1
    if "func" not in bound:
        return None, "without the function to transform"
    return bound, ""


def _param_of(arg: cst.Arg, bound: dict[str, list[cst.Arg]]) -> str | None:
    for name, args in bound.items():
        if any(a is arg for a in args):
            return name
    return None


def _refused(ctx: ConversionContext, original: cst.Call, bound, dropped, name: str, compiled: bool,
             position: int) -> str:
    """Why this call cannot be converted as it is written ('' when it can)."""
    for param, (defaults, why) in dropped.items():
        for arg in bound.get(param, ()):
            if code(arg.value).strip() not in defaults:
                return why
    if name == "vmap":
        for param in ("in_dims", "out_dims"):
            for arg in bound.get(param, ()):
                if _holds_dict(arg.value):
                    return (f"{param}= as a dict has no counterpart in mindspore.vmap (its in_axes/out_axes take ints, "
                            "None and tuples of them): pass the dict's tensors as arguments of their own")
    if name == "linearize" and (len(bound.get("primals", ())) != 1
                                or isinstance(bound["primals"][0].value, (cst.Tuple, cst.List, cst.Dict))):
        return ("ops.linearize takes its primals as one tensor or one tuple of them, and its jvp_fn one tangent "
                "or one tuple: for several primals write output, jvp_fn = ops.linearize(func, (x, y)) and call "
                "jvp_fn((tx, ty)); a primal that is itself a tuple has no counterpart")
    func = bound["func"][0].value
    func_original = original.args[position].value  # the torch names of the function's own expression
    if compiled and any(isinstance(n, cst.Lambda) for n in _subtree(func)):
        return (f"{name}'s MindSpore counterpart compiles the function, and MindSpore's parser reads a lambda only "
                "from a line of its own: assign the lambda to a name first (f = lambda ...) and pass f")
    definitions = _definitions(ctx)
    names = _names_in(func_original)
    for called in names if name in DIFFERENTIATING else ():
        if called in definitions and definitions[called]["no_grad"]:
            return (f"{called}() holds a no_grad block, which the conversion unwraps: its values would take part "
                    f"in the derivative; wrap them in ops.stop_gradient(...) and convert this call by hand")
    if not compiled:
        nested = _called_transforms(func_original, ctx)
        nested += [called for called in names if called in definitions and definitions[called]["transforms"]]
        if nested:
            return (f"a derivative of a derivative ({name} over {nested[0]}): MindSpore 2.10 computes it wrong in "
                    "PyNative mode where a reduced value feeds back (sum(x) ** 2); compute it in graph mode instead "
                    "(ops.jacrev(ops.jacrev(f)) or mindspore.jit around the outer transform) and check the values")
    return ""


def _linearize(ctx, original, updated, qualified, args):
    ctx.change(original, rules.API_RENAME, qualified, "mindspore.ops.linearize",
               f"{qualified} -> mindspore.ops.linearize (one primal: its jvp_fn takes one tangent, as PyTorch's)")
    return updated.with_changes(func=ctx.ms_expr("mindspore.ops.linearize"), args=args)


def _holds_dict(node: cst.BaseExpression) -> bool:
    return any(isinstance(n, (cst.Dict, cst.DictComp)) for n in _subtree(node)) or (
        isinstance(node, cst.Call) and code(node.func) == "dict")


def _subtree(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _subtree(child)


def _called_transforms(node: cst.CSTNode, ctx: ConversionContext) -> list[str]:
    """Differentiating transforms called anywhere inside node (original torch names)."""
    found = []
    for sub in _subtree(node):
        if isinstance(sub, cst.Call):
            name = transform_name(resolve(sub.func, ctx.aliases))
            if name in DIFFERENTIATING:
                found.append(name)
    return found


def _names_in(node: cst.CSTNode) -> set[str]:
    """Plain names read in node (not the attribute part of a.b)."""
    attributes = {id(sub.attr) for sub in _subtree(node) if isinstance(sub, cst.Attribute)}
    return {sub.value for sub in _subtree(node) if isinstance(sub, cst.Name) and id(sub) not in attributes}


def _definitions(ctx: ConversionContext) -> dict[str, dict[str, bool]]:
    """Functions of the file (def, or a name bound to a lambda) as the current statement sees them ->
    whether the body holds a no_grad block and whether it calls a differentiating transform: for a
    name defined several times, the last definition before this statement (all of them when none
    comes before, or when the line is unknown)."""
    line = None
    if ctx.outline is not None and ctx.statements:
        line = ctx.outline.first_lines[ctx.statements[-1][1]]
    out: dict[str, dict[str, bool]] = {}
    for name, found in _all_definitions(ctx).items():
        before = [flags for at, flags in found if line is not None and at <= line]
        chosen = before[-1:] if before else [flags for _, flags in found]
        out[name] = {key: any(flags[key] for flags in chosen) for key in ("no_grad", "transforms")}
    return out


def _all_definitions(ctx: ConversionContext) -> dict[str, list[tuple[int, dict[str, bool]]]]:
    """name -> [(line, flags)] in source order for every definition in the file's stdlib ast (read once)."""
    cached = getattr(ctx, "_transform_definitions", None)
    if cached is not None:
        return cached
    out: dict[str, list[tuple[int, dict[str, bool]]]] = {}
    tree = ctx.tree
    for node in ast.walk(tree) if tree is not None else ():
        body = None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name, body = node.name, node
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            name, body = node.targets[0].id, node.value
        if body is None:
            continue
        flags = {"no_grad": False, "transforms": False}
        for sub in ast.walk(body):
            if isinstance(sub, (ast.With, ast.AsyncWith)):
                for item in sub.items:
                    expr = item.context_expr.func if isinstance(item.context_expr, ast.Call) else item.context_expr
                    callee = dotted_ast(expr)
                    if callee and resolve_text(callee, ctx.aliases) in GRAD_CONTEXTS:
                        flags["no_grad"] = True
            elif isinstance(sub, ast.Call):
                callee = dotted_ast(sub.func)
                if callee and transform_name(resolve_text(callee, ctx.aliases)) in DIFFERENTIATING:
                    flags["transforms"] = True
        out.setdefault(name, []).append((node.lineno, flags))
    for found in out.values():
        found.sort(key=lambda item: item[0])
    ctx._transform_definitions = out
    return out


HANDLERS = {f"{space}{name}": convert for space in NAMESPACES for name in TRANSFORMS}
HANDLERS["torch.vmap"] = convert
