"""convert_source: one file's text in, converted text and records out. Never raises."""
from __future__ import annotations

import difflib

import libcst as cst
from libcst.metadata import MetadataWrapper

from . import rules
from .context import ConversionContext
from .imports import gather_aliases
from .result import ConversionResult, Unconverted
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
    source: str, *, path: str = "<string>", target: str = "classic", ms_version: str = "2.4"
) -> ConversionResult:
    """Convert one PyTorch source file to MindSpore.

    The result's text always parses: a file that does not parse, or that the
    converter fails on, comes back unchanged with one unconverted item saying so."""
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}: expected one of {', '.join(TARGETS)}")
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        return _unchanged(source, path, exc.raw_line, f"the file does not parse ({exc.message}); fix the syntax first",
                          parse_error=str(exc).splitlines()[0] if str(exc) else "syntax error")
    except Exception as exc:  # libcst raises a few other errors on odd input (e.g. bad encodings)
        return _unchanged(source, path, 0, f"the file could not be read as Python ({exc})", parse_error=str(exc))
    aliases = gather_aliases(module)
    if not aliases:
        return ConversionResult(path=path, text=source, diff="")
    ctx = ConversionContext.create(target=target, ms_version=ms_version, aliases=aliases)
    ctx.uses_scheduler = "lr_scheduler" in source
    try:
        converted = MetadataWrapper(module, unsafe_skip_copy=True).visit(Converter(ctx))
        text = converted.code
        compile(text, path, "exec", dont_inherit=True, flags=0x400)  # PyCF_ONLY_AST: syntax check only
    except Exception as exc:  # a converter defect must not lose the user's file
        return _unchanged(source, path, 0, f"the converter failed on this file ({type(exc).__name__}: {exc}); "
                          "convert it by hand")
    ctx.changes.sort(key=lambda c: c.line)
    ctx.unconverted.sort(key=lambda u: u.line)
    return ConversionResult(
        path=path,
        text=text,
        diff=unified_diff(source, text, path),
        changes=ctx.changes,
        unconverted=ctx.unconverted,
        layer_map=ctx.layer_map,
    )


def _unchanged(source: str, path: str, line: int, action: str, parse_error: str = "") -> ConversionResult:
    return ConversionResult(
        path=path,
        text=source,
        diff="",
        unconverted=[Unconverted(max(line, 1) if line else 1, rules.PARSE_ERROR, "", action)],
        parse_error=parse_error or action,
    )
