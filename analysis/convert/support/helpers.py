"""Helpers of a converted file: where a PyTorch call has no classic-API counterpart of the same
shape, the call is rewritten to a small function or class whose code (helper_source.py, checked
against PyTorch by the tests) the output carries. The converted code depends on MindSpore alone,
never on this product.

Two ways to carry them. A converted tree (and a file the CLI converts) imports them from one support
module the tree writes (ctx.support names it; support_module() writes its text, tree.py places it):
the user's files hold no helper code. convert_source without a support module gives a text that
stands alone: the definitions are written into it, after its imports.

use() gives a helper's local name (stepping aside from the file's own names) and records it on the
context; insert() writes the import of the recorded helpers, or their definitions, into the module once
the imports are settled. A helper in AT_LOAD is also called by a statement after them: it sets
something up that must be in place before the file runs its first MindSpore operator."""
from __future__ import annotations

import ast
import io
import tokenize
from functools import lru_cache
from importlib import metadata
from pathlib import Path

import libcst as cst

from ..core import rules
from ..core.context import ConversionContext
from ..core.names import dotted

SOURCE = Path(__file__).with_name("helper_source.py")
# further files of definitions, one per concern (the same rules as helper_source.py)
MORE_SOURCES = (Path(__file__).with_name("helper_transforms.py"), Path(__file__).with_name("helper_einops.py"),
                Path(__file__).with_name("helper_training.py"),
                Path(__file__).with_name("helper_kernels.py"),  # the kernel dtype bridge (issue 29)
                Path(__file__).with_name("helper_random.py"),  # in-place random fills drawn afresh
                Path(__file__).with_name("helper_edges.py"),  # edge inputs and argument forms (issue 29)
                Path(__file__).with_name("helper_init.py"),  # torch.nn.init functions used as values
                Path(__file__).with_name("helper_weight_norm.py"),  # weight normalisation on a Cell
                Path(__file__).with_name("helper_layers.py"),  # layers and F calls without a kernel (issue 29)
                Path(__file__).with_name("helper_complex.py"),  # complex inputs of real kernels (issue 29)
                Path(__file__).with_name("helper_cpu_kernels.py"),  # which oneDNN kernels CPU convolutions take
                Path(__file__).with_name("helper_unbatched.py"),  # layers given an unbatched input (issue 29)
                Path(__file__).with_name("helper_cov_tensor.py"),  # Tensor methods and torch.special (issue 29)
                Path(__file__).with_name("helper_speed.py"),  # draws made on the host where only indices read them
                Path(__file__).with_name("helper_rnn_speed.py"),  # a GRU's time steps in fewer CPU kernels
                Path(__file__).with_name("helper_cov_nn.py"),  # torch.nn / F / linalg APIs the tables lacked (issue 29)
                Path(__file__).with_name("helper_callforms.py"),  # out= buffers written (issue 29)
                Path(__file__).with_name("helper_cov_torch.py"),  # torch.* functions the tables lacked (issue 29)
                Path(__file__).with_name("helper_precise.py"),  # log1p/expm1 where MindSpore's kernel is imprecise
                Path(__file__).with_name("helper_nn_forms.py"),  # nn layers' call forms: implicit dims, run-time betas
                Path(__file__).with_name("helper_torch_forms.py"),  # keyword and edge forms of torch calls
                Path(__file__).with_name("helper_tensor_forms.py"))  # Tensor methods' call forms MindSpore lacks
# The module names helper code uses -> the MindSpore module each stands for.
HEADS = {"mindspore": "mindspore", "ops": "mindspore.ops", "nn": "mindspore.nn"}
# Helpers the converted file calls once, right after its imports (and the helpers' definitions).
AT_LOAD = ("synchronous_cpu_launch", "gemm_cpu_convolutions")
# How a support module this converter wrote starts (support_names() tells it from a user's file).
HEADER = "MindSpore helpers of this converted tree, written by porting-dashboard"


@lru_cache(maxsize=1)
def definitions() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Helper name -> (its source text, the other helpers of its file it calls), read from
    helper_source.py and MORE_SOURCES."""
    found = []
    for source in (SOURCE, *MORE_SOURCES):
        text = source.read_text(encoding="utf-8")
        lines = text.splitlines(keepends=True)
        found += [(node, lines) for node in ast.parse(text).body if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    names = {node.name for node, _ in found}  # a helper may call one of another file (einops' backend: einsum)
    out = {}
    for node, lines in found:
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        calls = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} & (names - {node.name})
        out[node.name] = ("".join(lines[start - 1:node.end_lineno]), tuple(sorted(calls)))
    return out


def use(ctx: ConversionContext, name: str) -> str:
    """The local name helper `name` gets in this file; insert() imports it from the support module,
    or writes its code (and that of the helpers it calls) into the file."""
    ctx.helper_uses[name] = ctx.helper_uses.get(name, 0) + 1
    if name in ctx.helpers:
        return ctx.helpers[name][0]
    text, calls = definitions()[name]
    local = _free_name(ctx, name)
    if ctx.support is not None:  # the helpers it calls live beside it in the support module
        ctx.helpers[name] = (local, "")
        return local
    ctx.helpers[name] = (local, "")  # reserved before the helpers it calls pick their names
    renames = {called: use(ctx, called) for called in calls}
    renames[name] = local
    ctx.helpers[name] = (local, _rename(ctx, text, renames))
    return local


def call(ctx: ConversionContext, original: cst.Call, api: str, helper: str, args: list[cst.Arg], *,
         why: str = "", note: str = "", shown: str | None = None, template: cst.Call | None = None,
         rule_id: str = rules.API_ARGS) -> cst.Call:
    """The one way a rewrite calls a helper: the call of PyTorch's `api` (original) becomes
    helper(args), args being its bound arguments in the helper's order; the helper is registered for
    the output (use()) and one change record says where it lives. template: a call whose other parts
    (parentheses, spacing) the result keeps; shown: how the record names the PyTorch call."""
    local = use(ctx, helper)
    ctx.change(original, rule_id, api, local,
               f"{shown or api} -> {local}(), {where(ctx)}" + (f" ({why})" if why else "") + note)
    return (template or cst.Call(func=cst.Name(local))).with_changes(func=cst.Name(local), args=args)


def where(ctx: ConversionContext, what: str = "a local function") -> str:
    """What a helper is and where this file's helpers live, as the change records say it."""
    if ctx.support is None:
        return f"{what} written into this file"
    return f"{what} imported from {ctx.support.lstrip('.')}"


def release(ctx: ConversionContext, name: str) -> None:
    """A call of helper `name` that use() was asked for left the output again (a later rewrite took
    it in): once none is left, the helper (and the helpers only it called) is not written."""
    ctx.helper_uses[name] = ctx.helper_uses.get(name, 1) - 1
    if ctx.helper_uses[name] > 0 or name not in ctx.helpers:
        return
    del ctx.helpers[name]
    if ctx.support is None:  # written into the file: so were the helpers it calls
        for called in definitions()[name][1]:
            release(ctx, called)


def _rename(ctx: ConversionContext, text: str, renames: dict[str, str]) -> str:
    """text with its module heads spelt as the file spells them and helper names as renamed: code
    names only (never inside strings or comments, never after a dot)."""
    lines = text.splitlines(keepends=True)
    edits = []
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    for before, token, after in zip([None, *tokens], tokens, [*tokens[1:], None]):
        if token.type != tokenize.NAME or (before is not None and before.string == "."):
            continue
        if token.string in HEADS and after is not None and after.string == ".":
            new = ctx.ms(HEADS[token.string])
        else:
            new = renames.get(token.string, token.string)
        if new != token.string:
            edits.append((token.start, token.end, new))
    for (row, start), (_, end), new in reversed(edits):
        line = lines[row - 1]
        lines[row - 1] = line[:start] + new + line[end:]
    return "".join(lines)


def _free_name(ctx: ConversionContext, name: str) -> str:
    occupied = ctx.spelling.occupied
    # a torch import of the very API the helper stands for (`from torchvision.utils import save_image`)
    # leaves the name free: its calls become the helper's and the import goes
    taken = {alias for alias, target in ctx.aliases.items() if target.rsplit(".", 1)[-1] != name}
    taken |= {local for local, _ in ctx.helpers.values()}
    if occupied is not None:
        taken |= occupied.other | set(occupied.imports)
    candidate, number = name, 2
    while candidate in taken or candidate in HEADS:
        candidate, number = f"ms_{name}" if number == 2 else f"ms_{name}_{number - 1}", number + 1
    return candidate


def insert(module: cst.Module, ctx: ConversionContext) -> cst.Module:
    """The module with the helpers used imported from the support module, or written, after its
    leading imports."""
    if not ctx.helpers:
        return module
    if ctx.support is not None:
        body = list(module.body)
        at = _after_imports(body)
        return module.with_changes(body=[*body[:at], import_statement(ctx), *_load_calls(ctx), *body[at:]])
    blank = [cst.EmptyLine(), cst.EmptyLine()]
    added = []
    # functions first: a class statement runs when the module loads and may call one for its base; classes
    # in the order of their definition files, so that a base class helper comes before those built on it
    place = {name: number for number, name in enumerate(definitions())}

    def order(item):
        name, (local, text) = item
        is_class = text.startswith("class ")
        return (is_class, place.get(name, 0) if is_class else 0, (local, text))

    for _, (_, text) in sorted(ctx.helpers.items(), key=order):
        body = list(cst.parse_module(text).body)
        body[0] = body[0].with_changes(leading_lines=blank)
        added += body
    body = list(module.body)
    at = _after_imports(body)
    if at < len(body):
        follow = body[at]
        if len([line for line in follow.leading_lines if line.comment is None]) < 2:
            body[at] = follow.with_changes(leading_lines=blank + [l for l in follow.leading_lines if l.comment])
    calls = _load_calls(ctx)
    if calls:
        calls[0] = calls[0].with_changes(leading_lines=blank)
    return module.with_changes(body=[*body[:at], *added, *calls, *body[at:]])


def _load_calls(ctx: ConversionContext) -> list[cst.SimpleStatementLine]:
    """`helper()` for each AT_LOAD helper the file uses, under its local name."""
    return [cst.parse_statement(f"{ctx.helpers[name][0]}()\n") for name in AT_LOAD if name in ctx.helpers]


def _after_imports(body: list[cst.BaseStatement]) -> int:
    """Index after the block of MindSpore imports (where the converter puts them: at the first torch
    import), else after the last top-level import before the first definition. Helpers refer to
    those modules; a class helper needs them when it is defined."""
    block = [index for index, stmt in enumerate(body) if _imports_mindspore(stmt)]
    if block:
        at = block[0]
        while at in block or (at < len(body) and _is_import(body[at]) and max(block) > at):
            at += 1  # the block, and other imports the converter put among them (numpy)
        return at
    at = 0
    for index, stmt in enumerate(body):
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            break
        if isinstance(stmt, cst.SimpleStatementLine) and all(isinstance(s, (cst.Import, cst.ImportFrom))
                                                              for s in stmt.body):
            at = index + 1
        elif index == 0 and isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr):
            at = 1  # the docstring
    return at


def _is_import(stmt: cst.BaseStatement) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body)


def _imports_mindspore(stmt: cst.BaseStatement) -> bool:
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    for small in stmt.body:
        names = [a.name for a in small.names] if isinstance(small, cst.Import) else \
            [small.module] if isinstance(small, cst.ImportFrom) and small.module is not None else []
        if any((dotted(name) or "").split(".")[0] == "mindspore" for name in names):
            return True
    return False


def import_statement(ctx: ConversionContext) -> cst.SimpleStatementLine:
    """`from <support> import a, b as ms_b`: the helpers this file uses, under their local names."""
    names = [name if local == name else f"{name} as {local}" for name, (local, _) in sorted(ctx.helpers.items())]
    line = f"from {ctx.support} import {', '.join(names)}"
    if len(line) > 100:
        line = f"from {ctx.support} import (\n" + "".join(f"    {n},\n" for n in names) + ")"
    return cst.parse_statement(line + "\n")


def closure(names) -> list[str]:
    """names and the helpers they call: functions, then classes (a class statement runs on import and
    may call one for its base), each in the order of their definition files."""
    wanted, stack = set(), list(names)
    while stack:
        name = stack.pop()
        if name not in wanted:
            wanted.add(name)
            stack.extend(definitions()[name][1])
    ordered = [name for name in definitions() if name in wanted]
    return sorted(ordered, key=lambda name: isinstance(ast.parse(definitions()[name][0]).body[0], ast.ClassDef))


def release_name() -> str:
    """This product's release, for the support module's header."""
    try:
        return metadata.version("porting-dashboard")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unreleased"


def support_module(names) -> str:
    """The text of a tree's support module: the definitions of names (and of the helpers they call),
    as helper_source.py spells them, under a header saying what the file is."""
    helpers = closure(names)
    listed = "".join(f"    {name!r},\n" for name in helpers)
    body = "\n\n".join(definitions()[name][0].rstrip("\n") + "\n" for name in helpers)
    return (
        f'"""{HEADER} {release_name()}.\n\n'
        "Each stands in for a PyTorch call that has no one-call MindSpore counterpart; the converted files\n"
        "import what they use from here. Generated from the converter's tested definitions: converting the\n"
        'tree again rewrites this file."""\n'
        "import mindspore\n"
        "from mindspore import nn, ops\n\n"
        f"__all__ = [\n{listed}]\n\n\n{body}"
    )


def support_names(text: str) -> list[str]:
    """The helpers a support module this converter wrote holds (its __all__); [] for any other file."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    doc = ast.get_docstring(tree) or ""
    if not doc.startswith(HEADER):
        return []
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["__all__"]:
            try:
                return [name for name in ast.literal_eval(node.value) if name in definitions()]
            except ValueError:
                return []
    return []
