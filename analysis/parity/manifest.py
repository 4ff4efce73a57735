"""Read the optional `porting.toml` manifest naming the modules to check.

    [[entry]]
    class = "models.lenet:LeNet"        # or "models.lenet.LeNet"
    kwargs = { num_classes = 10 }        # also: args = [...]
    # An argument may be a class of the tree or an object built first, nested freely:
    #   kwargs = { block = { class = "models.resnet:BasicBlock" },
    #              config = { call = "model:GPTConfig", kwargs = { n_layer = 2, n_embd = 64 } } }
    # instance = "train.py:G" checks a module-level object (`G = nn.Sequential(...)`) as it is
    # a module may be named by its file where a folder is not an identifier: class = "1-1.Basics/model.py:Net"
    # factory = "models.resnet:ResNet18" builds the module by calling that function instead
    #   (class = the class it returns, for the converter's layer map; optional)
    timeout = 600                        # seconds for this entry (default: the run's)
    # inputs: positional tensors in order; `name = "mask"` passes one by keyword;
    #   { tuple = [spec, ...] } / { dict = { key = spec } } pass a tuple/dict of tensors;
    #   dtype: float32 (default), float64, float16, int64, int32, bool
    #   fill = 1 gives that constant instead of random values (an all-ones mask: dtype = "bool", fill = 1)
    mode = "both"                        # "eval" | "train" | "both"
    loss = "cross_entropy"               # "mse" (default) | "cross_entropy" | "sum"
    loss_steps = 20
    inputs = [{ shape = [4, 1, 32, 32], dtype = "float32", range = [-1.0, 1.0] }]
    tolerance = { atol = 1e-5, rtol = 1e-4, loss_rtol = 1e-3 }
    optimizer = { name = "SGD", lr = 0.01, momentum = 0.9 }
    converted_optimizer = { name = "SGD", lr = 0.01 }   # what the converted code uses, when it differs
    scheduler = { name = "StepLR", step_size = 5, gamma = 0.5 }   # also converted_scheduler
    # Loss-curve batches from the repo's own torch Dataset, in order (no shuffling):
    dataset = { class = "data.toy:ToyDataset", kwargs = { size = 64 }, batch_size = 8 }
    #   dict samples: input_keys = ["features"], label_key = "label" (tuple samples: item 0 in, item 1 label)

    [entry.layer_tolerance]              # per PyTorch submodule path: exact, prefix or glob
    "encoder.attn" = { atol = 1e-4, rtol = 1e-3 }
    "layers.*" = { atol = 1e-4 }
"""
from __future__ import annotations

import tomllib
from pathlib import Path

MANIFEST_NAMES = ("porting.toml", ".porting/porting.toml")
ENTRY_KEYS = ("args", "kwargs", "mode", "loss", "loss_steps", "inputs", "tolerance", "optimizer",
              "converted_optimizer", "scheduler", "converted_scheduler", "seed", "batches", "dataset",
              "layer_tolerance", "timeout", "factory")
DATASET_KEYS = {"class", "args", "kwargs", "batch_size", "input_keys", "label_key"}
TOLERANCE_KEYS = {"atol", "rtol"}


class ManifestError(ValueError):
    pass


def find_manifest(original_dir: Path) -> Path | None:
    for name in MANIFEST_NAMES:
        if (original_dir / name).is_file():
            return original_dir / name
    return None


def split_target(target: str) -> tuple[str, str]:
    """'pkg.mod:Class' or 'pkg.mod.Class' -> ('pkg.mod', 'Class'); empty parts when malformed."""
    module, _, cls = target.partition(":") if ":" in target else target.rpartition(".")
    return module, cls


def load_manifest(path: Path) -> list[dict]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ManifestError(f"cannot read manifest {path.name}: {exc}") from exc
    raw = data.get("entry") or data.get("parity", {}).get("entry") or []
    entries = []
    for index, item in enumerate(raw):
        left = _placeholders(item)
        if left:
            raise ManifestError(f"entry {index}: replace {PLACEHOLDER} in {', '.join(left)} (a hint's value to fill in)")
        target = item.get("factory") or item.get("instance") or item.get("class", "")
        module, cls = split_target(target)
        if not module or not cls:
            raise ManifestError(f"entry {index}: 'class' (or 'factory') must look like 'package.module:Name', "
                                f"got {target!r}")
        entry = {"module": module, "class": cls, "name": item.get("name", cls)}
        entry.update({k: item[k] for k in ENTRY_KEYS if k in item})
        if "factory" in item:
            f_module, factory = split_target(item["factory"])
            if f_module != module:
                raise ManifestError(f"entry {index}: factory and class must be in the same module")
            entry["factory"] = factory
            entry["name"] = item.get("name", f"{factory}()")
            # The class it returns names the converter's layer map; the function's name otherwise.
            entry["class"] = split_target(item["class"])[1] or item["class"] if "class" in item else factory
        if "instance" in item and "factory" not in item:  # a module-level object: `instance = "train.py:G"`
            entry.update(instance=cls, name=item.get("name", cls), **{"class": split_target(item["class"])[1]
                                                                       if "class" in item else cls})
        for spec in entry.get("inputs", []):
            _input_spec(index, spec)
        timeout = entry.get("timeout")
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0):
            raise ManifestError(f"entry {index}: timeout must be a positive number of seconds")
        if entry.get("mode", "both") not in ("eval", "train", "both"):
            raise ManifestError(f"entry {index}: mode must be eval, train or both")
        if "dataset" in entry:
            entry["dataset"] = _dataset(index, entry["dataset"])
        if "layer_tolerance" in entry:
            _layer_tolerance(index, entry["layer_tolerance"])
        entries.append(entry)
    return entries


PLACEHOLDER = "FILL_IN"


def _placeholders(value, where: str = "") -> list[str]:
    """The keys still holding a hint's FILL_IN."""
    if value == PLACEHOLDER:
        return [where or "the entry"]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _placeholders(v, f"{where}.{k}" if where else str(k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _placeholders(v, f"{where}[{i}]")]
    return []


DTYPES = {"float32", "float64", "float16", "int64", "int32", "bool"}


def _input_spec(index: int, spec) -> None:
    if not isinstance(spec, dict):
        raise ManifestError(f"entry {index}: every input must be a table such as {{ shape = [4, 3] }}")
    if "tuple" in spec:
        for inner in spec["tuple"]:
            _input_spec(index, inner)
        return
    if "dict" in spec:
        for inner in spec["dict"].values():
            _input_spec(index, inner)
        return
    if "shape" not in spec:
        raise ManifestError(f"entry {index}: every input needs a shape")
    if spec.get("dtype", "float32") not in DTYPES:
        raise ManifestError(f"entry {index}: input dtype must be one of {', '.join(sorted(DTYPES))}")


def _dataset(index: int, spec) -> dict:
    if not isinstance(spec, dict):
        raise ManifestError(f"entry {index}: dataset must be a table such as {{ class = \"data.toy:ToyDataset\" }}")
    unknown = set(spec) - DATASET_KEYS
    if unknown:
        raise ManifestError(f"entry {index}: dataset has unknown keys {', '.join(sorted(unknown))} "
                            f"(known: {', '.join(sorted(DATASET_KEYS))})")
    module, cls = split_target(str(spec.get("class", "")))
    if not module or not cls:
        raise ManifestError(f"entry {index}: dataset 'class' must look like 'package.module:ClassName', "
                            f"got {spec.get('class')!r}")
    batch_size = spec.get("batch_size", 8)
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        raise ManifestError(f"entry {index}: dataset batch_size must be a positive integer, got {batch_size!r}")
    keys = spec.get("input_keys")
    if keys is not None and (not isinstance(keys, list) or not keys):
        raise ManifestError(f"entry {index}: dataset input_keys must be a non-empty list")
    return dict(spec, module=module, class_name=cls, batch_size=batch_size)


def _layer_tolerance(index: int, table) -> None:
    if not isinstance(table, dict):
        raise ManifestError(f"entry {index}: layer_tolerance must map layer paths to {{ atol, rtol }}")
    for pattern, tol in table.items():
        if not isinstance(tol, dict) or not tol or set(tol) - TOLERANCE_KEYS:
            raise ManifestError(f"entry {index}: layer_tolerance {pattern!r} must set atol and/or rtol only")
        for key, value in tol.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ManifestError(f"entry {index}: layer_tolerance {pattern!r} {key} must be a number >= 0")
