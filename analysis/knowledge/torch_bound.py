"""Rows of knowledge/data/torch_bound.json: third-party packages built on torch, what each is and what
to do. One lookup for the converter's marker (convert/apis/thirdparty.py) and the analyzer's finding
(scan/thirdparty.py), so both name the same row."""
from __future__ import annotations

import fnmatch
import json
from functools import lru_cache
from pathlib import Path

TABLE = Path(__file__).resolve().parent / "data" / "torch_bound.json"


@lru_cache(maxsize=1)
def _table() -> tuple[tuple[dict, ...], tuple[dict, ...]]:
    """Rows, longest module prefix first (the most specific row wins), and the name patterns
    (mylib.layers.torch) for packages no row names."""
    data = json.loads(TABLE.read_text(encoding="utf-8"))
    rows = tuple(sorted(data["packages"], key=lambda row: -len(row["module"])))
    return rows, tuple(data.get("patterns", ()))


def row_for(module: str) -> dict | None:
    """The row covering an imported module (a row covers its sub-modules too), else the first pattern
    its name matches (then converted is False), else None."""
    rows, patterns = _table()
    for row in rows:
        if module == row["module"] or module.startswith(row["module"] + "."):
            return row
    for row in patterns:
        if fnmatch.fnmatchcase(module, row["pattern"]):
            return {"module": module, "what": row["what"], "todo": row["todo"], "converted": False}
    return None


def rows() -> tuple[dict, ...]:
    """Every package row, longest module prefix first."""
    return _table()[0]
