"""A cheap look at a source's tokens before any parser sees it.

libcst's native parser recurses once per nesting level and segfaults the
whole process on deep input (a few thousand nested brackets, unary minuses,
`lambda:`s, `and`s, calls...), and its time grows faster than the square of
the depth well before that. A segfault cannot be caught, so such a file must
never reach it: this scan estimates, from the token stream alone, how deep
each statement's syntax tree gets and how much parsing it would cost, and
names the file's problem instead. It also refuses NUL bytes, which no parser
or PostgreSQL text column accepts.

The estimate is an upper bound for the constructs that nest: brackets, every
operator or operator keyword since the last comma/assignment at the same
bracket level (a chain `a + b + c` is a left-nested tree), adjacent strings,
indentation and `elif` chains. Real code stays far below the limits (checked
on torch, MindSpore and the realworld repositories: see the README).
"""
from __future__ import annotations

import re

MAX_DEPTH = 500  # libcst segfaults past about 2,000 (8 MiB stack) and takes ~1 s per 500-deep statement
MAX_COST = 1_000_000  # sum over statements of depth squared: about 5 s of libcst at worst

_TOKEN = re.compile(
    r"""
    (?P<string>[rRbBuUfF]{0,2}(?:'''(?:\\.|[^\\])*?(?:'''|\Z)|\"\"\"(?:\\.|[^\\])*?(?:\"\"\"|\Z)
        |'(?:\\.|[^\\'\n])*(?:'|$)|"(?:\\.|[^\\"\n])*(?:"|$)))
    |(?P<comment>\#[^\n]*)
    |(?P<cont>\\\r?\n)
    |(?P<newline>\r?\n[ \t\f]*)
    |(?P<name>[^\W\d]\w*)
    |(?P<number>\d[\w.]*)
    |(?P<open>[(\[{])
    |(?P<close>[)\]}])
    |(?P<reset>,|;|(?:[-+*/%@&|^]|//|<<|>>|\*\*)?=(?!=))
    |(?P<op>\*\*|//|<<|>>|<=|>=|==|!=|->|:=|\.\.\.|[-+*/%@&|^~<>.])
    |(?P<other>\S)
    """,
    re.VERBOSE | re.MULTILINE,
)
_TOO_COSTLY = ("so many deeply nested expressions that parsing the file would take minutes; the file is not "
               "analysed or converted")
_CHAIN_WORDS = frozenset({"not", "and", "or", "in", "is", "if", "else", "lambda", "await", "yield"})


def source_problem(text: str) -> tuple[str, int] | None:
    """(reason, line) when the text must not be handed to a parser, else None."""
    nul = text.find("\x00")
    if nul >= 0:
        return "the file contains NUL bytes, so it is binary data, not Python source", text.count("\n", 0, nul) + 1
    return measure(text)[0]


def measure(text: str, max_depth: int = MAX_DEPTH, max_cost: int = MAX_COST) -> tuple[tuple[str, int] | None, int, int]:
    """(problem or None, deepest statement, cost) of the text; stops at the first problem."""
    deepest = 0
    line = 1
    levels = [0]  # per open bracket (and the statement itself): the chain length since the last separator
    depth = 0  # sum of the above plus the number of open brackets
    indent_stack = [0]
    elifs: dict[int, int] = {}  # indentation -> length of the current if/elif chain there
    statement_max = 0
    cost = 0
    previous = ""
    pending: int | None = 0
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind in ("comment", "other"):
            continue
        value = match.group()
        if kind == "cont":
            line += 1
            continue
        if kind == "newline":
            line += 1
            if len(levels) > 1:
                continue  # inside brackets: not the end of the statement
            cost += statement_max * statement_max
            if cost > max_cost:
                return (_TOO_COSTLY, line - 1), deepest, cost
            statement_max = 0
            levels = [0]
            pending = len(value.lstrip("\r\n").expandtabs(8))  # applied by the next statement's first token
            previous = ""
            continue
        if pending is not None:  # a statement starts: blank and comment-only lines never get here
            while pending < indent_stack[-1]:
                elifs.pop(indent_stack.pop(), None)
            if pending > indent_stack[-1]:
                indent_stack.append(pending)
            depth = len(indent_stack) - 1 + sum(elifs.get(i, 0) for i in indent_stack)
            pending = None
        if kind == "string":
            line += value.count("\n")
            if previous == "string":
                levels[-1] += 1
                depth += 1
        elif kind == "name":
            if value in _CHAIN_WORDS:
                levels[-1] += 1
                depth += 1
            if previous == "" and len(levels) == 1:  # the statement's first word
                at = indent_stack[-1]
                if value == "elif":
                    elifs[at] = elifs.get(at, 0) + 1
                    depth += 1
                elif value != "else":
                    depth -= elifs.pop(at, 0)
        elif kind == "open":
            levels[-1] += 1  # a call or subscript chain `f()()()` nests as well
            levels.append(0)
            depth += 2
        elif kind == "close":
            if len(levels) > 1:
                depth -= levels.pop() + 1
        elif kind == "reset":
            depth -= levels[-1]
            levels[-1] = 0
        elif kind == "op":
            levels[-1] += 1
            depth += 1
        previous = kind
        if depth > statement_max:
            statement_max = depth
            deepest = max(deepest, depth)
            if depth > max_depth:
                return (f"code nested more than {max_depth} levels deep (brackets, operators, calls); the file is "
                        "not analysed or converted, because parsers crash or stall on such input", line), deepest, cost
    cost += statement_max * statement_max
    if cost > max_cost:
        return (_TOO_COSTLY, line), deepest, cost
    return None, deepest, cost
