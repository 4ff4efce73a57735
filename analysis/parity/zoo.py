"""A module built around a model-zoo model (torchvision.models.resnet152(...)) has
nothing to compare from the automatic conversion: MindSpore has no model zoo, so the
converted class still calls torchvision (marked for a person). The skip names the
model, its mindcv counterpart and the one thing to add."""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

TABLE = Path(__file__).resolve().parents[1] / "knowledge" / "data" / "vision_models.json"
ZOO_CALL = re.compile(r"^torchvision\.models\.(\w+)$")


@lru_cache(maxsize=1)
def _twins() -> dict[str, str]:
    return json.loads(TABLE.read_text(encoding="utf-8"))["models"]


def zoo_models(called: list[str]) -> list[str]:
    """The torchvision model constructors among the stubs a construction called."""
    found = []
    for name in called:
        match = ZOO_CALL.match(name)
        if match and match.group(1) in _twins() and name not in found:
            found.append(name)
    return found


def zoo_reason(models: list[str]) -> str:
    twins = ", ".join(f"mindcv.create_model('{_twins()[m.rsplit('.', 1)[1]]}')" for m in models)
    return (f"builds {', '.join(models)}, a model-zoo model: MindSpore has no model zoo, so the automatic "
            f"conversion keeps that call for a person (marked MS-API-UNMAPPED; {twins} builds the same "
            "architecture) and has no MindSpore model to compare. Add: a MindSpore build of it in your converted "
            "tree, then check that tree (parity --converted YOUR_TREE, or the converted-tree archive); this worker "
            "also needs a torchvision that imports beside its torch")
