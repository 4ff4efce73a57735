"""torchvision.models constructors: MindSpore has no model zoo of its own, so the call stays marked, with
the nearest MindSpore option: the model of the same architecture in mindcv, MindSpore's model library
(analysis/knowledge/data/vision_models.json), whose pretrained weights are its own and whose layers
can be named otherwise (a ResNet's fc is its classifier)."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import libcst as cst

from ..core import rules

TABLE = Path(__file__).resolve().parents[2] / "knowledge" / "data" / "vision_models.json"


@lru_cache(maxsize=1)
def table() -> dict:
    return json.loads(TABLE.read_text(encoding="utf-8"))


def nearest(name: str) -> str:
    """What to write instead of torchvision.models.<name>(...)."""
    data = table()
    twin = data["models"].get(name)
    if twin is None:
        return (f"torchvision.models.{name}: MindSpore has no such model (mindcv {data['mindcv_version']}, its "
                "model library, has none of this name): convert the architecture's definition and its weights")
    head = next((text for family, text in data["heads"].items() if name.startswith(family)), "")
    return (f"torchvision.models.{name}: MindSpore has no model zoo; mindcv (pip install mindcv) builds the same "
            f"architecture: mindcv.create_model('{twin}', num_classes=..., pretrained=...); its pretrained "
            "weights are mindcv's own, not torchvision's" + (f"; the head is named otherwise ({head})" if head else ""))


def constructor(ctx, original: cst.Call, updated: cst.Call, qualified: str, entry):
    ctx.mark(original, rules.API_UNMAPPED, qualified, nearest(qualified.rsplit(".", 1)[1]))
    return updated


def handlers() -> dict:
    names = set(table()["models"])
    return {f"torchvision.models.{name}": constructor for name in names}
