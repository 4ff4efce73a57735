"""Dotted names: reading them from CST nodes and spelling MindSpore ones back.

Converted code refers to MindSpore through a few conventional short module
names (``nn``, ``ops``, ``ds`` ...); SPELLINGS is that convention as data, and
Spelling steps aside from it where the file already uses one of those names.
"""
from __future__ import annotations

import ast

import libcst as cst

from analysis.knowledge.canonical import canonical

from .codegen import node_code

# MindSpore module prefix -> (local name used in code, import statement). Longest prefix wins.
SPELLINGS: dict[str, tuple[str, str]] = {
    "mindspore.mint.nn.functional": ("mint.nn.functional", "from mindspore import mint"),
    "mindspore.mint.nn": ("mint.nn", "from mindspore import mint"),
    "mindspore.mint.optim": ("mint.optim", "from mindspore import mint"),
    "mindspore.mint": ("mint", "from mindspore import mint"),
    "mindspore.nn": ("nn", "from mindspore import nn"),
    "mindspore.ops": ("ops", "from mindspore import ops"),
    "mindspore.dataset": ("ds", "import mindspore.dataset as ds"),
    "mindspore.common.initializer": ("init", "from mindspore.common import initializer as init"),
    "mindspore.experimental.optim.lr_scheduler": (
        "lr_scheduler",
        "from mindspore.experimental.optim import lr_scheduler",
    ),
    "mindspore.experimental.optim": ("optim", "from mindspore.experimental import optim"),
    "mindspore": ("mindspore", "import mindspore"),
}
_BY_LENGTH = sorted(SPELLINGS, key=len, reverse=True)


def dotted(node: cst.BaseExpression) -> str | None:
    """'a.b.c' for a Name/Attribute chain, None for anything else."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def dotted_ast(node: ast.AST) -> str | None:
    """The same for the stdlib ast: 'a.b.c' for a Name/Attribute chain, None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def resolve(node: cst.BaseExpression, aliases: dict[str, str]) -> str | None:
    """Fully qualified torch name of an expression, through the file's import aliases."""
    name = dotted(node)
    if name is None:
        return None
    return resolve_text(name, aliases)


def resolve_text(name: str, aliases: dict[str, str]) -> str | None:
    """resolve() for a dotted name already read ('nn.Linear' -> 'torch.nn.Linear')."""
    head, _, rest = name.partition(".")
    target = aliases.get(head)
    if target is None:
        return None
    return canonical(f"{target}.{rest}" if rest else target)


def bound_name(statement: str) -> str:
    """The local name an import statement text binds ('from mindspore import nn' -> 'nn')."""
    words = statement.split()
    return words[-1] if words[0] == "from" or "as" in words else words[1].split(".")[0]


def bound_module(statement: str) -> str:
    """What that name is bound to ('from mindspore import nn' -> 'mindspore.nn')."""
    words = statement.split()
    if words[0] == "from":
        return f"{words[1]}.{words[3]}"
    return words[1] if "as" in words else words[1].split(".")[0]


def spell(qualified: str) -> tuple[str, str]:
    """(code text, import statement) for a fully qualified MindSpore name, in the conventional spelling."""
    for prefix in _BY_LENGTH:
        if qualified == prefix or qualified.startswith(prefix + "."):
            local, statement = SPELLINGS[prefix]
            return local + qualified[len(prefix):], statement
    return qualified, f"import {qualified.split('.')[0]}"


class Spelling:
    """spell() for one file: a conventional name the file already uses for something else
    (`ds = make()`, `from mylib import ops`) gives way to ms_<name> (ms_ds, ms_ops ...)."""

    def __init__(self, occupied) -> None:
        self.occupied = occupied  # scope.Occupied, or None: every conventional name is free
        self.heads: dict[str, str] = {}  # conventional import statement -> the name this file binds instead

    def spell(self, qualified: str) -> tuple[str, str]:
        text, statement = spell(qualified)
        head = bound_name(statement)
        name = self._name(statement, head)
        if name == head:
            return text, statement
        words = statement.split()
        if "as" in words:
            renamed = " ".join(words[:-1] + [name])
        else:
            renamed = f"{statement} as {name}"
        return name + text[len(head):], renamed

    def qualify(self, text: str) -> str:
        """The MindSpore name a spelled dotted name stands for (reverse of spell); text itself otherwise."""
        for prefix, (local, statement) in sorted(SPELLINGS.items(), key=lambda kv: -len(kv[1][0])):
            head = bound_name(statement)
            local = self._name(statement, head) + local[len(head):]
            if text == local or text.startswith(local + "."):
                return prefix + text[len(local):]
        return text

    def _name(self, statement: str, head: str) -> str:
        name = self.heads.get(statement)
        if name is None:
            module = bound_module(statement)
            name = head
            if self.occupied is not None and not self.occupied.free_for(head, module):
                name = f"ms_{head}" if head != "mindspore" else "ms"
                number = 2
                while not self.occupied.free_for(name, module):
                    name, number = f"ms_{head}_{number}", number + 1
            self.heads[statement] = name
        return name


def expr(text: str) -> cst.BaseExpression:
    return cst.parse_expression(text)


def dotted_expr(text: str) -> cst.BaseExpression:
    """The Name/Attribute chain for 'a.b.c' (what parse_expression gives, without a parser call)."""
    head, *rest = text.split(".")
    node: cst.BaseExpression = cst.Name(head)
    for part in rest:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


def code(node: cst.CSTNode) -> str:
    return node_code(node)


def without_calls(node: cst.CSTNode, lambdas: bool = False) -> bool:
    """Whether node holds no call (and, with lambdas=True, no lambda): an expression that can be
    written twice, or read as a value, without running anything."""
    found = []

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, _node: cst.Call) -> bool:
            found.append(True)
            return False

        def visit_Lambda(self, _node: cst.Lambda) -> bool:
            if lambdas:
                found.append(True)
            return not lambdas

    node.visit(_Calls())
    return not found
