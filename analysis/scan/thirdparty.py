"""The analyzer's side of knowledge/data/torch_bound.json: imports of packages built on torch.

The converter (convert/apis/thirdparty.py) marks each such import with what the table says to do, or
rewrites it (einops); the scanner reports the same imports as MS-TORCH-BOUND-IMPORT events, so the
finding and the marker name the same module and say the same thing (agree.py). Both read the one
table (knowledge/torch_bound.py); here PyTorch's own modules never match.
"""
from __future__ import annotations

from functools import lru_cache

from analysis.knowledge.torch_bound import row_for
from analysis.scan.index import is_torch_name


@lru_cache(maxsize=512)
def torch_bound(module: str) -> dict | None:
    """The table's row for an imported module when a person must port it (not converted), else None."""
    if not module or is_torch_name(module) and not module.startswith("einops."):
        return None
    row = row_for(module)
    return None if row is None or row["converted"] else row
