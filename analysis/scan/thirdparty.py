"""The analyzer's side of knowledge/data/torch_bound.json: imports of packages built on torch.

The converter (convert/apis/thirdparty.py) marks each such import with what the table says to do, or
rewrites it (einops); the scanner reports the same imports as MS-TORCH-BOUND-IMPORT events, so the
finding and the marker name the same module and say the same thing (agree.py). Both read the one
table; this module only looks rows up, with PyTorch's own modules never matching.
"""
from __future__ import annotations

import fnmatch
import json
from functools import lru_cache
from pathlib import Path

from analysis.scan.index import is_torch_name

TABLE = Path(__file__).resolve().parent.parent / "knowledge" / "data" / "torch_bound.json"


@lru_cache(maxsize=1)
def _table() -> tuple[tuple[dict, ...], tuple[dict, ...]]:
    data = json.loads(TABLE.read_text(encoding="utf-8"))
    rows = tuple(sorted(data["packages"], key=lambda row: -len(row["module"])))
    return rows, tuple(data.get("patterns", ()))


@lru_cache(maxsize=512)
def torch_bound(module: str) -> dict | None:
    """The table's row for an imported module when a person must port it (not converted), else None."""
    if not module or is_torch_name(module) and not module.startswith("einops."):
        return None
    rows, patterns = _table()
    for row in rows:
        if module == row["module"] or module.startswith(row["module"] + "."):
            return None if row["converted"] else row
    for row in patterns:
        if fnmatch.fnmatchcase(module, row["pattern"]):
            return {"module": module, "what": row["what"], "todo": row["todo"], "converted": False}
    return None
