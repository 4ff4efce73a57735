"""Names PyTorch modules export, for star imports and for APIs the mapping tables omit."""
from __future__ import annotations

from functools import lru_cache

# Consistent counterparts the mapping tables do not list (dtypes, the Tensor type).
SUPPLEMENT: dict[str, str] = {
    "torch.Tensor": "mindspore.Tensor",
    "torch.float32": "mindspore.float32",
    "torch.float": "mindspore.float32",
    "torch.float16": "mindspore.float16",
    "torch.half": "mindspore.float16",
    "torch.bfloat16": "mindspore.bfloat16",
    "torch.float64": "mindspore.float64",
    "torch.double": "mindspore.float64",
    "torch.int8": "mindspore.int8",
    "torch.int16": "mindspore.int16",
    "torch.int32": "mindspore.int32",
    "torch.int": "mindspore.int32",
    "torch.int64": "mindspore.int64",
    "torch.long": "mindspore.int64",
    "torch.uint8": "mindspore.uint8",
    "torch.bool": "mindspore.bool_",
    "torch.complex64": "mindspore.complex64",
    "torch.complex128": "mindspore.complex128",
    "torch.nn.Parameter": "mindspore.Parameter",
    "torch.nn.parameter.Parameter": "mindspore.Parameter",
    "torch.nn.ModuleList": "mindspore.nn.CellList",
    "torch.nn.ModuleDict": "mindspore.nn.CellDict",
    "torch.Tensor.view": "mindspore.Tensor.view",
    "torch.dtype": "mindspore.dtype",
    "torch.from_numpy": "mindspore.Tensor.from_numpy",
    "torch.tensor": "mindspore.tensor",  # the converter's renames (analysis.convert.apis.mapped.SUPPLEMENT)
    "torch.as_tensor": "mindspore.tensor",
}

# Classes and modules star imports bring in that are not in the tables.
_EXTRA_EXPORTS = {
    "torch": {"nn", "optim", "Tensor", "device", "Generator", "no_grad", "enable_grad", "cuda", "autograd", "jit",
              "distributed", "utils", "manual_seed", "save", "load"},
    "torch.nn": {"Module", "Parameter", "Sequential", "ModuleList", "ModuleDict", "DataParallel", "functional", "init"},
    "torch.utils.data": {"Dataset", "IterableDataset", "DataLoader", "Sampler", "DistributedSampler"},
    "torch.optim": {"Optimizer", "lr_scheduler"},
}


@lru_cache(maxsize=None)
def star_exports(module: str) -> frozenset[str]:
    from analysis.knowledge.mapping import load_mapping

    names = set(_EXTRA_EXPORTS.get(module, ()))
    prefix = module + "."
    for target in ("classic", "mint"):
        for entry in load_mapping(target):
            if entry.torch.startswith(prefix):
                rest = entry.torch[len(prefix):]
                if "." not in rest:
                    names.add(rest)
    for name in SUPPLEMENT:
        if name.startswith(prefix) and "." not in name[len(prefix):]:
            names.add(name[len(prefix):])
    return frozenset(names)
