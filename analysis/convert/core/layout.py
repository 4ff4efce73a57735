"""Argument layout: where a rewrite puts the keywords it adds, so converted calls read like
the source did.

Handlers edit argument lists (rename, replace, insert, append); the generic
argument planner appends spelled-out defaults at the end. In a call written one
argument per line, an appended keyword must get a line of its own with the
same indentation, and the closing parenthesis and trailing comma must stay
where they were. ``relayout`` does that after the fact, from the original
call's own separators, so every handler gets it without caring about layout.
"""
from __future__ import annotations

import libcst as cst

_SAME_LINE = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def same_line(arg: cst.Arg) -> cst.Arg:
    """arg followed by ", " on the same line (an argument inserted before an existing one)."""
    return arg.with_changes(comma=_SAME_LINE)


def insert_before(args: list[cst.Arg], index: int, new: list[cst.Arg]) -> list[cst.Arg]:
    """args with new placed just before args[index], on its line (appended when index is past the end)."""
    if index >= len(args):
        return [*args, *new]
    return [*args[:index], *(same_line(a) for a in new), *args[index:]]


def keyword_index(args: list[cst.Arg], name: str) -> int | None:
    return next((i for i, a in enumerate(args) if a.keyword is not None and a.keyword.value == name), None)


def _breaks(whitespace: cst.BaseParenthesizableWhitespace | None) -> bool:
    return isinstance(whitespace, cst.ParenthesizedWhitespace)


def _comma_breaks(comma) -> bool:
    return isinstance(comma, cst.Comma) and _breaks(comma.whitespace_after)


def _plain_break(whitespace: cst.ParenthesizedWhitespace,
                 first_line: cst.TrailingWhitespace | None = None) -> cst.ParenthesizedWhitespace:
    """A line break with whitespace's indentation, without its comment and blank lines (unless
    first_line, the end of the line being broken, is given)."""
    return whitespace.with_changes(first_line=first_line or cst.TrailingWhitespace(), empty_lines=[])


def _separator(call: cst.Call) -> cst.Comma | None:
    """The comma (and line break) between two arguments of a call written over several lines;
    None when its arguments share one line."""
    for arg in call.args[:-1]:
        if _comma_breaks(arg.comma):
            return cst.Comma(whitespace_after=_plain_break(arg.comma.whitespace_after))
    if _breaks(call.whitespace_before_args):
        return cst.Comma(whitespace_after=_plain_break(call.whitespace_before_args))
    return None


def relayout(before: cst.Call, after: cst.Call) -> cst.Call:
    """after (a rewrite of before) with the arguments it added laid out like before's.

    Only calls whose arguments go over several lines change: an argument that now has
    another after it gets before's separator (its own line comment kept), and the last
    argument takes before's ending (trailing comma, closing parenthesis on its own line)."""
    if not before.args:
        return after
    if not after.args:  # every argument went: no line left open for them
        return after.with_changes(whitespace_before_args=cst.SimpleWhitespace("")) \
            if _breaks(after.whitespace_before_args) else after
    separator = _separator(before)
    if separator is None:
        return after
    last = before.args[-1]
    closing_comma = last.comma if _comma_breaks(last.comma) else None
    closing_space = last.whitespace_after_arg if _breaks(last.whitespace_after_arg) else None
    args = list(after.args)
    changed = False
    for i, arg in enumerate(args[:-1]):
        comma, space = arg.comma, arg.whitespace_after_arg
        if comma is cst.MaybeSentinel.DEFAULT or comma is closing_comma:
            # the old last argument or an added one: break the line as the other arguments do,
            # keeping a comment that ended the old last line
            ending = None
            if comma is closing_comma:
                ending = comma.whitespace_after.first_line
            elif space is closing_space and closing_space is not None:
                ending = closing_space.first_line
            comma = separator.with_changes(whitespace_after=_plain_break(separator.whitespace_after, ending))
        if space is closing_space and closing_space is not None:
            space = cst.SimpleWhitespace("")
        if comma is not arg.comma or space is not arg.whitespace_after_arg:
            args[i] = arg.with_changes(comma=comma, whitespace_after_arg=space)
            changed = True
    end = args[-1]
    comma, space = end.comma, end.whitespace_after_arg
    own = comma.whitespace_after.first_line if _comma_breaks(comma) and comma is not closing_comma else None
    if closing_comma is not None and comma is not closing_comma:
        # the trailing comma and the closing line stay (a comment on the old last line went above with it)
        comma = closing_comma.with_changes(whitespace_after=_plain_break(closing_comma.whitespace_after, own)
                                           .with_changes(empty_lines=closing_comma.whitespace_after.empty_lines))
    elif closing_comma is None and own is not None and own.comment is None:
        comma = cst.MaybeSentinel.DEFAULT  # a separator left on what is now the last argument
    if closing_space is not None and space is not closing_space:
        space = closing_space.with_changes(first_line=cst.TrailingWhitespace())
    if comma is not end.comma or space is not end.whitespace_after_arg:
        args[-1] = end.with_changes(comma=comma, whitespace_after_arg=space)
        changed = True
    return after.with_changes(args=args) if changed else after
