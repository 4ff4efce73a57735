"""Read the optional `porting.toml` manifest naming the modules to check.

    [[entry]]
    class = "models.lenet:LeNet"        # or "models.lenet.LeNet"
    kwargs = { num_classes = 10 }        # also: args = [...]
    mode = "both"                        # "eval" | "train" | "both"
    loss = "cross_entropy"               # "mse" (default) | "cross_entropy" | "sum"
    loss_steps = 20
    inputs = [{ shape = [4, 1, 32, 32], dtype = "float32", range = [-1.0, 1.0] }]
    tolerance = { atol = 1e-5, rtol = 1e-4, loss_rtol = 1e-3 }
    optimizer = { name = "SGD", lr = 0.01, momentum = 0.9 }
    converted_optimizer = { name = "SGD", lr = 0.01 }   # what the converted code uses, when it differs
    scheduler = { name = "StepLR", step_size = 5, gamma = 0.5 }   # also converted_scheduler
"""
from __future__ import annotations

import tomllib
from pathlib import Path

MANIFEST_NAMES = ("porting.toml", ".porting/porting.toml")
ENTRY_KEYS = ("args", "kwargs", "mode", "loss", "loss_steps", "inputs", "tolerance", "optimizer",
              "converted_optimizer", "scheduler", "converted_scheduler", "seed", "batches")


class ManifestError(ValueError):
    pass


def find_manifest(original_dir: Path) -> Path | None:
    for name in MANIFEST_NAMES:
        if (original_dir / name).is_file():
            return original_dir / name
    return None


def load_manifest(path: Path) -> list[dict]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ManifestError(f"cannot read manifest {path.name}: {exc}") from exc
    raw = data.get("entry") or data.get("parity", {}).get("entry") or []
    entries = []
    for index, item in enumerate(raw):
        target = item.get("class", "")
        module, _, cls = target.partition(":") if ":" in target else target.rpartition(".")
        if not module or not cls:
            raise ManifestError(f"entry {index}: 'class' must look like 'package.module:ClassName', got {target!r}")
        entry = {"module": module, "class": cls, "name": item.get("name", cls)}
        entry.update({k: item[k] for k in ENTRY_KEYS if k in item})
        for spec in entry.get("inputs", []):
            if "shape" not in spec:
                raise ManifestError(f"entry {index}: every input needs a shape")
        if entry.get("mode", "both") not in ("eval", "train", "both"):
            raise ManifestError(f"entry {index}: mode must be eval, train or both")
        entries.append(entry)
    return entries
