"""Lean code generation: module text, and start lines of the few nodes a record points at.

libcst's PositionProvider updates a line/column pair on every token and stores
a range for every node: on a large file it costs more than parsing. The
converter only needs the start line of the nodes it reports. LineState
generates code with plain token appends and counts newlines only when a wanted
node starts, with the rules PositionProvider follows (a node's syntactic start
where its codegen records one, hoisted from its start_node child, else where
its code begins), so the lines are the ones PositionProvider would give.

It does not even generate the whole file: each record remembers its innermost
statement, the stdlib ast (C parser) gives every statement's first line, and
only those statements are generated, each up to its last wanted node. Where
the two parsers' statements do not line up, the whole module is generated.
"""
from __future__ import annotations

import re
from contextlib import nullcontext
from dataclasses import dataclass, field

import libcst as cst
from libcst._nodes.internal import CodegenState

_NULL = nullcontext()
_NEWLINE = re.compile(r"\r\n?|\n")  # what PositionProvider counts as a line break, per token


@dataclass
class FastState(CodegenState):
    """CodegenState without the per-node syntactic-position context manager."""

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        return _NULL


@dataclass
class LineState(FastState):
    wanted: set[int] = field(default_factory=set)  # ids of nodes whose start line is wanted
    lines: dict[int, int] = field(default_factory=dict)  # node id -> 1-based start line
    _inclusive: dict[int, int] = field(default_factory=dict)
    _line: int = 1
    _counted: int = 0  # tokens already counted into _line
    targets: set[int] = field(default_factory=set)  # stop generating once all of these have a line
    _chain: dict[int, list[int]] = field(default_factory=dict)  # start_node id -> nodes starting where it starts

    def _now(self) -> int:
        tokens = self.tokens
        if self._counted < len(tokens):
            text = "".join(tokens[self._counted:])
            if "\r" in text:  # "\r" then "\n" in two tokens are two breaks: count token by token
                self._line += sum(len(_NEWLINE.findall(t)) for t in tokens[self._counted:])
            else:
                self._line += text.count("\n")
            self._counted = len(tokens)
        return self._line

    def before_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.wanted:
            self._inclusive[id(node)] = self._now()

    def after_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        if key in self.wanted and key not in self.lines:
            self._set(key, self._inclusive[key])  # no syntactic position recorded: where its code begins

    def _set(self, key: int, line: int) -> None:
        if key in self.lines:
            return
        self.lines[key] = line
        for dependent in self._chain.pop(key, ()):
            self._set(dependent, line)
        if key in self.targets:
            self.targets.discard(key)
            if not self.targets:
                raise _Done

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        if id(node) not in self.wanted:
            return _NULL
        return _Syntactic(self, node, start_node)


class _Syntactic:
    """A wanted node's syntactic start: known on entry (or when its start_node's is), so it is
    recorded then; code after it is only generated for other wanted nodes."""

    __slots__ = ("state", "node", "start_node", "start")

    def __init__(self, state: LineState, node: cst.CSTNode, start_node: cst.CSTNode | None) -> None:
        self.state, self.node, self.start_node = state, node, start_node

    def __enter__(self) -> None:
        state = self.state
        self.start = state._now()
        if self.start_node is None:
            state._set(id(self.node), self.start)
        else:
            state.wanted.add(id(self.start_node))
            state._chain.setdefault(id(self.start_node), []).append(id(self.node))

    def __exit__(self, *exc) -> None:
        if exc[0] is None and self.start_node is not None:
            self.state._set(id(self.node), self.start)  # start_node never generated: keep the entry line


class VerbatimLine(cst.SimpleStatementLine):
    """A statement line the conversion left as it was, carrying its source text: written back as is
    when it sits at its original indentation (a line moved into another block is generated).
    Only for sources whose line breaks are all "\\n" (outline() gives up on others)."""

    text: str | None = None  # set on the instance by verbatim(); with_changes() gives a plain copy
    indent: str = ""

    def _codegen_impl(self, state: CodegenState) -> None:
        if self.text is not None and "".join(state.indent_tokens) == self.indent:
            # the line break as a token of its own: Module pops the last token of a file without one
            state.add_token(self.text[:-1] if self.text.endswith("\n") else self.text)
            state.add_token("\n")
        else:
            super()._codegen_impl(state)


def verbatim(line: cst.SimpleStatementLine, text: str, indent: str) -> VerbatimLine:
    node = VerbatimLine(body=line.body, leading_lines=line.leading_lines, trailing_whitespace=line.trailing_whitespace)
    object.__setattr__(node, "text", text)
    object.__setattr__(node, "indent", indent)
    return node


class _Done(Exception):
    """Every wanted node of a statement has its line: the rest of its code is not needed."""


def module_code(module: cst.Module) -> str:
    """module.code, without the per-node context managers."""
    state = FastState(default_indent=module.default_indent, default_newline=module.default_newline)
    module._codegen(state)
    return "".join(state.tokens)


def node_code(node: cst.CSTNode) -> str:
    """Code of one node with the default module's formatting (as cst.Module([]).code_for_node)."""
    state = FastState(default_indent=" " * 4, default_newline="\n")
    node._codegen(state)
    return "".join(state.tokens)


def start_lines(module: cst.Module, nodes: list[cst.CSTNode]) -> dict[int, int]:
    """id(node) -> 1-based start line, for the nodes of nodes that lie in module (whole-module pass)."""
    if not nodes:
        return {}
    state = LineState(default_indent=module.default_indent, default_newline=module.default_newline,
                      wanted={id(n) for n in nodes})
    module._codegen(state)
    return state.lines


def located_lines(outline, module: cst.Module, located: list[tuple]) -> dict[int, int]:
    """id(node) -> start line for located (record, node, (statement, index) or None) triples;
    outline: the file's Outline (statement first lines), None to generate the whole module."""
    if not located:
        return {}
    groups: dict[int, tuple[cst.CSTNode, int, list[cst.CSTNode]]] = {}
    rest: list[cst.CSTNode] = []
    for _, node, within in located:
        if within is None or outline is None or within[1] >= len(outline.kinds):
            rest.append(node)
            continue
        statement, index = within
        groups.setdefault(id(statement), (statement, index, []))[2].append(node)
    lines: dict[int, int] = {}
    for statement, index, nodes in groups.values():
        first = outline.first_lines[index]
        found = _statement_lines(module, statement, first - _lines_before_first_token(statement), nodes)
        lines.update(found)
        rest.extend(n for n in nodes if id(n) not in found)
    if rest:
        lines.update(start_lines(module, rest))
    return lines


def _statement_lines(module: cst.Module, statement: cst.CSTNode, start: int, nodes: list[cst.CSTNode]):
    targets = {id(n) for n in nodes}
    state = LineState(default_indent=module.default_indent, default_newline=module.default_newline,
                      wanted=set(targets), targets=set(targets), _line=start)
    try:
        statement._codegen(state)
    except _Done:
        pass
    return {key: line for key, line in state.lines.items() if key in targets}


def _lines_before_first_token(statement: cst.CSTNode) -> int:
    """Blank and comment lines a statement's code starts with (before its first decorator or keyword)."""
    count = len(statement.leading_lines)
    decorators = getattr(statement, "decorators", ())
    if decorators:
        count += len(decorators[0].leading_lines)
    return count
