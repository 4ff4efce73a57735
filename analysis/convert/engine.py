"""convert_source: one file's text in, converted text and records out. Never raises."""
from __future__ import annotations

import ast
import difflib
import re

import libcst as cst

from analysis.scan.guard import source_problem
from analysis.scan.model_transforms import may_import_transforms
from analysis.scan.receivers import foreign_table
from analysis.scan.scanner import DATASET_ATTRS

from .core import rules
from .core.bound import bindings
from .core.codegen import located_lines, module_code
from .core.context import ConversionContext
from .core.imports import gather_aliases
from .core.names import Spelling
from .core.result import ConversionResult, Unconverted
from .core.scope import occupied
from .modules.assignments import LABEL_LOSSES
from .outline import cst_kinds, outline
from .tensors.devices import read_elsewhere
from .apis import target_args
from .tensors.methods import relevant_methods
from .apis import thirdparty
from .training import modern
from .transformer import Converter

TARGETS = ("classic", "mint")


def unified_diff(before: str, after: str, path: str) -> str:
    if before == after:
        return ""
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{path}", f"b/{path}"
        )
    )


def convert_source(
    source: str, *, path: str = "<string>", target: str = "classic", ms_version: str = "2.4",
    support: str | None = None, module: cst.Module | None = None,
) -> ConversionResult:
    """Convert one PyTorch source file to MindSpore.

    support: the module the text imports its helpers from (`ms_support`, or `..ms_support` inside a
    package; the caller writes it, see support/helpers.py); None writes them into the text, which then
    stands alone. module: libcst's parse of this same text, when the caller has one (the analyzer's:
    libcst's parse is the largest single cost of a file, so analysis and conversion share it). The
    result's text always parses: a file that does not parse, or that the converter fails on, comes
    back unchanged with one unconverted item saying so."""
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}: expected one of {', '.join(TARGETS)}")
    problem = source_problem(source)  # deep nesting crashes libcst's native parser: never hand it such a file
    if problem is not None:
        return _unchanged(source, path, problem[1], f"{problem[0]}; convert it by hand", parse_error=problem[0])
    if "torch" not in source and "einops" not in source and _compiles(source, path):
        return ConversionResult(path=path, text=source, diff="")  # nothing to convert: no torch import
    try:
        module = module if module is not None else cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        return _unchanged(source, path, exc.raw_line, f"the file does not parse ({exc.message}); fix the syntax first",
                          parse_error=str(exc).splitlines()[0] if str(exc) else "syntax error")
    except Exception as exc:  # libcst raises a few other errors on odd input (e.g. bad encodings)
        return _unchanged(source, path, 0, f"the file could not be read as Python ({exc})", parse_error=str(exc))
    aliases = gather_aliases(module)
    if not aliases and not ("einops" in source and thirdparty.uses_einops(_tree(source))):
        return ConversionResult(path=path, text=source, diff="")  # (einops alone: its MindSpore backend)
    ctx = ConversionContext.create(target=target, ms_version=ms_version, aliases=aliases, support=support)
    ctx.uses_scheduler = "lr_scheduler" in source
    # classic mindspore.nn optimizers have no param_groups (a loop setting group['lr'] fails on them);
    # mindspore.experimental.optim's keep PyTorch's, and a new lr takes effect at the next step
    ctx.uses_param_groups = "param_groups" in source
    ctx.default_dtype_set = "set_default_dtype" in source
    ctx.transforms_imported = may_import_transforms(aliases)
    ctx.foreign = foreign_table(module)  # the analyzer reads the same table: a non-torch call is left alone on both sides
    hot: set[str] = set()
    if "datasets" in source:  # train_data.train_data on a torchvision dataset is marked (calls.leave_Attribute)
        hot |= DATASET_ATTRS
    hot |= target_args.method_names()  # a method left as written is checked against MindSpore's (target_args.py)
    ctx.outline = outline(source, aliases, relevant_methods(ctx.classic) | hot, LABEL_LOSSES)
    if ctx.outline is not None and ctx.outline.kinds != cst_kinds(module):
        ctx.outline = None  # the two parsers cut the file differently: walk everything, locate by full codegen
    ctx.spelling = Spelling(occupied(source, ctx.outline.tree if ctx.outline is not None else None))
    ctx.tree = ctx.outline.tree if ctx.outline is not None else _tree(source)
    ctx.bound = ctx.outline.bound if ctx.outline is not None else bindings(ctx.tree, aliases)
    pattern = device_call_pattern(aliases)
    ctx.device_call = pattern if pattern is not None and pattern.search(source) else None
    if ctx.device_call is not None:
        ctx.device_reads = read_elsewhere(ctx.outline.tree if ctx.outline is not None else _tree(source), aliases)
    try:
        thirdparty.prepare(ctx)  # einops: the MindSpore backend written into the file
        module = modern.prepare(ctx, module, source)  # GradScaler calls reduced to the plain step, accumulation noted
        converted = module.visit(Converter(ctx))
        text = module_code(converted)
        compile(text, path, "exec", dont_inherit=True, flags=0x400)  # PyCF_ONLY_AST: syntax check only
        lines = located_lines(ctx.outline, module, ctx.located)
    except Exception as exc:  # a converter defect must not lose the user's file
        return _unchanged(source, path, 0, f"the converter failed on this file ({type(exc).__name__}: {exc}); "
                          "convert it by hand")
    for record, node, _ in ctx.located:
        record.line = lines.get(id(node), 0)
    ctx.changes.sort(key=lambda c: c.line)
    ctx.unconverted.sort(key=lambda u: u.line)
    return ConversionResult(
        path=path,
        text=text,
        diff=unified_diff(source, text, path),
        changes=ctx.changes,
        unconverted=ctx.unconverted,
        layer_map=ctx.layer_map,
        support_names=sorted(ctx.helpers) if support is not None else [],
    )


_GAP = r"(?:[\s\\]|#[^\n]*)*"  # what may separate the parts of a dotted name: spaces, continuations, comments


def device_call_pattern(aliases: dict[str, str]) -> re.Pattern | None:
    """A regex any code calling torch.device through these aliases must match (None: no alias can
    reach it): the dotted callee, then closing parentheses of a parenthesised callee, then '('."""
    direct = [re.escape(k) for k, v in aliases.items() if v == "torch.device"]
    via_torch = [re.escape(k) for k, v in aliases.items() if v == "torch"]
    callees = []
    if direct:
        callees.append(rf"\b(?:{'|'.join(direct)})")
    if via_torch:
        callees.append(rf"\b(?:{'|'.join(via_torch)}){_GAP}\.{_GAP}device")
    if not callees:
        return None
    return re.compile(rf"(?:{'|'.join(callees)})(?:{_GAP}\))*{_GAP}\(")


def _tree(source: str):
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _compiles(source: str, path: str) -> bool:
    """Whether CPython parses the text (its C parser costs a fraction of libcst's); a file it
    rejects goes through libcst so that the parse error reads the same as for any other file."""
    try:
        compile(source, path, "exec", dont_inherit=True, flags=0x400)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def _unchanged(source: str, path: str, line: int, action: str, parse_error: str = "") -> ConversionResult:
    return ConversionResult(
        path=path,
        text=source,
        diff="",
        unconverted=[Unconverted(max(line, 1) if line else 1, rules.PARSE_ERROR, "", action)],
        parse_error=parse_error or action,
    )
