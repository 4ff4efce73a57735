"""Source-ordered child access for libcst nodes, without libcst's visitor machinery.

libcst's CSTVisitor rebuilds every node while walking (about 0.6x the parse on
timm) and PositionProvider re-generates the code (about 1.7x). The analyzer
only needs expression-bearing children in source order, so it reads the
dataclass fields directly, in the order each node's own
``_visit_and_replace_children`` visits them (that order is the source order),
and skips whitespace and punctuation fields.
"""
from __future__ import annotations

import inspect
import re

import libcst as cst

# Fields that only ever hold whitespace, comments or punctuation.
_SKIP = re.compile(
    r"whitespace|^lpar$|^rpar$|comma|semicolon|leading_lines|lines_after|newline|^header$|^footer$"
    r"|colon|bracket|brace|^equal$|^dot$|^operator$|^star$|^indent$|asynchronous|^lsqb$|^rsqb$"
    r"|^prefix$|^arrow$|^walrus$|^semicolon$|^first_line$|^trailing_whitespace$"
)
_VISIT_CALL = re.compile(r"visit_\w+\(\s*self,\s*\"(\w+)\"")
_ORDER: dict[type, tuple[str, ...]] = {}


def child_fields(cls: type) -> tuple[str, ...]:
    """Names of the fields of ``cls`` that may hold expressions, in source order."""
    fields = _ORDER.get(cls)
    if fields is None:
        try:
            source = inspect.getsource(cls._visit_and_replace_children)
            names = _VISIT_CALL.findall(source)
        except (OSError, TypeError):  # no source available: fall back to declaration order
            names = [f for f in getattr(cls, "__dataclass_fields__", {})]
        fields = tuple(dict.fromkeys(n for n in names if not _SKIP.search(n)))
        _ORDER[cls] = fields
    return fields

