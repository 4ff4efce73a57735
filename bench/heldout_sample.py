"""The held-out sample's order: torch's documented public surface, shuffled with a fixed seed, each name
mapped to the file PaConvert (PaddlePaddle/PaConvert) keeps its tests for that API in. Files are fetched
in this order until enough are found (a name with no file is skipped); nothing is picked by hand."""
from __future__ import annotations

import inspect
import random

SEED = 2911
# the namespaces sampled: (module path, what counts as an API there)
NAMESPACES = ("torch", "torch.Tensor", "torch.nn", "torch.nn.functional", "torch.linalg", "torch.fft", "torch.special")


def _is_api(namespace: str, value) -> bool:
    if not callable(value) or inspect.ismodule(value):
        return False
    if namespace == "torch.nn":  # the layers
        import torch.nn

        return inspect.isclass(value) and issubclass(value, torch.nn.Module)
    if namespace == "torch.Tensor":
        return True
    return not inspect.isclass(value)


def candidates(seed: int = SEED) -> list[str]:
    """Every public, documented (a non-empty docstring: internal kernels such as torch.mkldnn_* have none)
    API of NAMESPACES, in the shuffled order the sample is drawn in."""
    import importlib

    import torch

    out = set()
    for namespace in NAMESPACES:
        holder = torch.Tensor if namespace == "torch.Tensor" else importlib.import_module(namespace)
        for name in dir(holder):
            if name.startswith("_"):
                continue
            try:
                value = getattr(holder, name)
            except Exception:
                continue
            doc = getattr(value, "__doc__", None)
            if _is_api(namespace, value) and doc and doc.strip():
                out.add(f"{namespace}.{name}")
    order = sorted(out)
    random.Random(seed).shuffle(order)
    return order


def test_file(api: str) -> str:
    """torch.nn.functional.relu -> tests/test_nn_functional_relu.py (PaConvert's naming)."""
    return "tests/test_" + api[len("torch."):].replace(".", "_") + ".py"
