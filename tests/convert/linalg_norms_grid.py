"""Run by test_linalg_norms.py in a process of its own: norms (torch.linalg.vector_norm/matrix_norm/
norm, torch.norm, Tensor.norm, F.normalize), torch.linalg.tensorinv/tensorsolve, torch.diag_embed and
torch.lu_unpack, each call converted by the converter and run with MindSpore, against PyTorch on the
same inputs over dtypes, shapes and options. Prints one JSON line: {"checked": n, "refused_by_torch": n, "marked": [calls
the converter left marked], "wrong": [what differed]}."""
from __future__ import annotations

import itertools
import json

import mindspore as ms
import numpy as np
import torch

from analysis.convert import convert_source

rng = np.random.default_rng(3)
checked, refused, marked, wrong = [0], [0], [], []
INF = float("inf")


def values(shape, dtype):
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-9, 10, size=shape).astype(dtype)
    return (rng.uniform(0.2, 2.0, size=shape) * rng.choice([-1, 1], size=shape)).astype(dtype)


def well_conditioned(shape, dtype):
    """Square matrices (the last two axes) far from singular."""
    n = shape[-1]
    return (rng.standard_normal(shape) * 0.3 + np.eye(n) * 2).astype(dtype)


def as_numpy(value):
    if isinstance(value, (tuple, list)):
        return [as_numpy(v) for v in value]
    if isinstance(value, torch.Tensor):
        return value.detach().numpy()
    if isinstance(value, ms.Tensor):
        return value.asnumpy()
    return np.asarray(value)


def same(what, a, b, tolerance):
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            wrong.append(f"{what}: {len(a)} results in PyTorch, {b!r:.80} in MindSpore")
            return
        for n, (x, y) in enumerate(zip(a, b)):
            same(f"{what} [{n}]", x, y, tolerance)
        return
    checked[0] += 1
    if a.shape != b.shape or a.dtype != b.dtype:
        wrong.append(f"{what}: PyTorch {a.dtype}{a.shape}, MindSpore {b.dtype}{b.shape}")
    elif a.dtype.kind in "fc" and not np.allclose(a, b, rtol=tolerance, atol=tolerance, equal_nan=True):
        wrong.append(f"{what}: largest difference {np.nanmax(np.abs(a - b)):.3g}")
    elif a.dtype.kind not in "fc" and not np.array_equal(a, b):
        wrong.append(f"{what}: values differ")


def check(call: str, inputs: dict, tolerance=None):
    """`y = call` in PyTorch, and converted, in MindSpore, on the same inputs."""
    source = f"import torch\nimport torch.nn.functional as F\ny = {call}\n"
    dtype = next(iter(inputs.values())).dtype
    tolerance = tolerance or (1e-4 if dtype == np.float32 else 1e-9)
    what = f"{call} on {', '.join(f'{k}: {v.dtype}{v.shape}' for k, v in inputs.items())}"
    scope = {"torch": torch, "F": torch.nn.functional, "inf": INF, **{k: torch.tensor(v) for k, v in inputs.items()}}
    try:
        exec(source, scope)
    except Exception:
        refused[0] += 1
        return  # PyTorch refuses this combination: nothing to compare
    expected = as_numpy(scope["y"])
    result = convert_source(source)
    if result.unconverted:
        marked.append(f"{call}: {result.unconverted[0].action}"[:200])
        return
    space = {"inf": INF, **{k: ms.Tensor(v) for k, v in inputs.items()}}
    try:
        exec(result.text, space)
    except Exception as exc:
        wrong.append(f"{what}: MindSpore raised {type(exc).__name__}: {str(exc).splitlines()[0][:160]}")
        return
    same(what, expected, as_numpy(space["y"]), tolerance)


def norms():
    for dtype in (np.float32, np.float64):
        for shape in ((5,), (3, 4), (2, 3, 4)):
            x = {"x": values(shape, dtype)}
            dims = [None, 0, -1] + ([(0, 1)] if len(shape) > 1 else [])
            for ord_, dim, keepdim in itertools.product((2, 1, 0, 3.5, INF, -INF, -1), dims, (False, True)):
                check(f"torch.linalg.vector_norm(x, ord={ord_}, dim={dim}, keepdim={keepdim})", x)
            check("torch.linalg.vector_norm(x)", x)
            check("torch.linalg.vector_norm(x, 3, dtype=torch.float64)", x)
            for p, dim in itertools.product(("'fro'", 2, 1, 3, INF), (None, 0, -1)):
                check(f"torch.norm(x, p={p}, dim={dim})", x)
                check(f"x.norm(p={p}, dim={dim}, keepdim=True)", x)
            check("x.norm()", x)
            check("x.norm(2)", x)
            for p in (2, 1, 3, INF):
                check(f"F.normalize(x, p={p}, dim=-1)", x)
            check("F.normalize(x, dim=0, eps=1e-6)", x)
            # linalg.norm: the 2-norm of all elements without ord, else a vector or a matrix norm
            check("torch.linalg.norm(x)", x)
            check("torch.linalg.norm(x, dim=-1, keepdim=True)", x)
            if len(shape) == 1:
                for ord_ in (2, 1, 0, 3.5, INF, -INF):
                    check(f"torch.linalg.norm(x, ord={ord_})", x)
        for shape in ((3, 4), (4, 4), (2, 3, 4)):
            A = {"A": values(shape, dtype)}
            for ord_ in ("'fro'", "'nuc'", INF, -INF, 1, -1, 2, -2):
                for keepdim in (False, True):
                    check(f"torch.linalg.matrix_norm(A, ord={ord_}, keepdim={keepdim})", A)
                    check(f"torch.linalg.norm(A, ord={ord_}, dim=(-2, -1), keepdim={keepdim})", A)
                if len(shape) == 2:
                    check(f"torch.linalg.norm(A, ord={ord_})", A)
                else:
                    check(f"torch.linalg.matrix_norm(A, ord={ord_}, dim=(0, 2))", A)
                    check(f"torch.linalg.matrix_norm(A, ord={ord_}, dim=(2, 0))", A)
            check("torch.linalg.matrix_norm(A)", A)
            check("torch.linalg.norm(A, 'fro', (0, 1))", A)


def solves():
    for dtype in (np.float32, np.float64):
        tolerance = 1e-3 if dtype == np.float32 else 1e-9
        square = well_conditioned((24, 24), dtype)
        check("torch.linalg.tensorinv(T, ind=2)", {"T": square.reshape(4, 6, 8, 3)}, tolerance)
        check("torch.linalg.tensorinv(T)", {"T": square.reshape(4, 6, 4, 6)}, tolerance)
        check("torch.linalg.tensorinv(T, 1)", {"T": square.reshape(24, 2, 12)}, tolerance)
        check("torch.linalg.tensorsolve(A, B)", {"A": square.reshape(2, 3, 4, 4, 6), "B": values((2, 3, 4), dtype)},
              tolerance)
        # dims: those axes of A move to its end first (A becomes 4x3x2 by 6x4)
        moved = np.moveaxis(square.reshape(4, 3, 2, 6, 4), (3, 4), (0, 2))
        check("torch.linalg.tensorsolve(A, B, dims=(0, 2))", {"A": moved, "B": values((4, 3, 2), dtype)}, tolerance)


def embeddings():
    for dtype in (np.float32, np.float64, np.int64, np.int32, np.bool_):
        for shape in ((3,), (2, 3), (2, 3, 4)):
            x = {"v": values(shape, dtype)}
            for offset in (0, 1, -2):
                check(f"torch.diag_embed(v, offset={offset})", x)
                check(f"v.diag_embed({offset})", x)
            check("torch.diag_embed(v, 1, 0, 2)", x)
            check("torch.diag_embed(v, offset=-1, dim1=-1, dim2=0)", x)
            check("torch.diag_embed(v, dim1=-1, dim2=-2)", x)


def unpacks():
    for dtype in (np.float32, np.float64):
        for shape in ((3, 3), (2, 4, 4), (3, 5), (5, 3), (2, 1, 3, 3)):
            A = torch.tensor(values(shape, dtype))
            LU, pivots = torch.linalg.lu_factor(A)
            inputs = {"LU": LU.numpy(), "pivots": pivots.numpy()}
            check("torch.lu_unpack(LU, pivots)", inputs)
            check("torch.lu_unpack(LU, pivots, unpack_data=False)", inputs)
            check("torch.lu_unpack(LU, pivots, unpack_pivots=False)", inputs)
            check("torch.lu_unpack(LU, pivots, True, True)", inputs)


if __name__ == "__main__":
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_device("CPU")
    norms()
    solves()
    embeddings()
    unpacks()
    print(json.dumps({"checked": checked[0], "refused_by_torch": refused[0], "marked": marked, "wrong": wrong}))
