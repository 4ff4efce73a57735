"""Constructor arguments that are objects of the frameworks themselves, built
in the sandboxed child once per side: a torch.nn layer a call site passes
(`mlp_act = nn.ReLU()`, as `{ layer = "ReLU" }`) is the torch layer on the
PyTorch side and, on the MindSpore side, what the converter writes for that
same call (never a hand-kept table: the check then also covers the layer's
conversion); an example tensor (`continuous_mean_std = torch.randn(10, 2)`,
as `{ tensor = { shape = [10, 2], dtype = "float32" } }`) holds the same
values on both sides."""
from __future__ import annotations

import functools
import re

import numpy as np

TENSOR_SEED = 1234  # fixed: both sides, and every run, draw the same values


def layer(name: str, args: list, kwargs: dict, converted: bool):
    if not converted:
        import torch

        found = getattr(torch.nn, name, None)
        if not isinstance(found, type):
            raise ValueError(f"torch.nn has no layer {name}")
        return found(*args, **kwargs)
    namespace: dict = {}
    exec(compile(_converted_source(_call_text(name, args, kwargs)), "<layer argument>", "exec"), namespace)
    return namespace["layer"]


def _call_text(name: str, args: list, kwargs: dict) -> str:
    """`nn.LeakyReLU(0.2, inplace=True)`: literal values only, written back as Python."""
    parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    return f"nn.{name}({', '.join(parts)})"


@functools.lru_cache(maxsize=64)
def _converted_source(call: str) -> str:
    from analysis.convert.engine import convert_source
    from analysis.verify.sample_verdicts import lenient_mode

    # the sample verdicts' notes (a dtype class this argument never sees) are no reason to refuse it: parity
    # checks the numbers itself
    with lenient_mode():
        result = convert_source(f"import torch.nn as nn\nlayer = {call}\n", path="layer_argument.py")
    # a support helper written into the text may name torch in its docstring: only an import of it counts
    if result.unconverted or re.search(r"^\s*(import|from)\s+torch\b", result.text, re.M):
        raise ValueError(f"the converter leaves {call} unconverted; give this argument's MindSpore counterpart "
                         "by hand")
    return result.text


def tensor(spec: dict, converted: bool):
    """The example tensor `spec` describes (shape, dtype, an integer range or a constant fill)."""
    shape, dtype = tuple(spec["shape"]), spec.get("dtype", "float32")
    rng = np.random.default_rng(TENSOR_SEED)
    if "fill" in spec:
        values = np.full(shape, spec["fill"], dtype=dtype)
    elif dtype.startswith("int"):
        low, high = spec.get("range", [0, 2])
        values = rng.integers(low, high, size=shape).astype(dtype)
    elif dtype == "bool":
        values = rng.integers(0, 2, size=shape).astype(bool)
    else:
        values = rng.standard_normal(shape).astype(dtype)
    if converted:
        import mindspore as ms

        return ms.Tensor(values)
    import torch

    return torch.from_numpy(values.copy())
