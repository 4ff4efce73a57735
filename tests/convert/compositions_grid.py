"""Run by test_compositions.py in a process of its own: every local helper of helper_source.py that
test_compositions covers, and the MindSpore calls the converter writes for max pooling and view(dtype),
against PyTorch over dtypes and shapes (dtype, shape, values and -0.0's sign compared). Prints one JSON
line: {"checked": n, "wrong": [what differed]}."""
from __future__ import annotations

import itertools
import json

import mindspore as ms
import numpy as np
import torch
from mindspore import nn

from analysis.convert.support import helper_source as H

rng = np.random.default_rng(0)
checked, wrong = [0], []
FLOATS, INTS = (np.float32, np.float64, np.float16), (np.int64, np.int32, np.int16, np.int8, np.uint8)


def as_numpy(value):
    if isinstance(value, (tuple, list)):
        return [as_numpy(v) for v in value]
    return value.detach().numpy() if isinstance(value, torch.Tensor) else value.asnumpy()


def same(a, b) -> bool:
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind != "f":
        return np.array_equal(a, b)
    numbers = ~np.isnan(a)
    return np.allclose(a, b, rtol=1e-5, atol=1e-5, equal_nan=True) \
        and np.array_equal(np.signbit(a)[numbers & (a == 0)], np.signbit(b)[numbers & (a == 0)])


def check(what: str, in_torch, in_mindspore) -> None:
    try:
        expected = as_numpy(in_torch())
    except Exception:  # PyTorch refuses this input itself: nothing to compare
        return
    checked[0] += 1
    try:
        actual = as_numpy(in_mindspore())
    except Exception as exc:
        wrong.append(f"{what}: {type(exc).__name__}: {str(exc).strip().splitlines()[0][:120]}")
        return
    if not same(expected, actual):
        wrong.append(f"{what}: {str(actual)[:80]} where PyTorch gives {str(expected)[:80]}")


def array(shape, dtype, nan=False):
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if np.issubdtype(dtype, np.floating):
        values = (rng.standard_normal(shape) * 5).astype(dtype)
        if nan and values.size > 1:
            values.reshape(-1)[rng.integers(0, values.size)] = np.nan
        return values
    return rng.integers(0, 50, shape).astype(dtype)


def T(values):
    return torch.tensor(values)


def M(values):
    return ms.tensor(values)


def reductions():
    for dtype in FLOATS + INTS + (np.bool_,):
        for shape in ((3,), (4,), (3, 4), (4, 3), (1,), (2, 2)):
            x = array(shape, dtype)
            for k in (0, 1, -1, 2, -2, 5):
                check(f"diag {dtype.__name__} {shape} {k}", lambda: torch.diag(T(x), k), lambda: H.diag(M(x), k))
            for shape2 in (shape, (2, 3, 4), ()):
                for nan in (False, True):
                    y = array(shape2, dtype, nan)
                    tag = f"{dtype.__name__} {shape2} nan={nan}"
                    check(f"max_all {tag}", lambda: torch.max(T(y)), lambda: H.max_all(M(y)))
                    check(f"min_all {tag}", lambda: torch.min(T(y)), lambda: H.min_all(M(y)))
                    check(f"median_all {tag}", lambda: torch.median(T(y)), lambda: H.median_all(M(y)))
                    check(f"nanmedian_all {tag}", lambda: torch.nanmedian(T(y)), lambda: H.nanmedian_all(M(y)))


def copysign():
    for left, right in itertools.product(FLOATS + (np.int64, np.int32), FLOATS + (np.int64,)):
        for s1, s2 in (((5,), (5,)), ((4, 4), (4,)), ((3, 1), (1, 3)), ((), (3,)), ((3,), ()), ((), ())):
            a, b = array(s1, left), array(s2, right)
            if np.issubdtype(right, np.floating):
                b.reshape(-1)[:1] = -0.0
            check(f"copysign {left.__name__}{s1} {right.__name__}{s2}", lambda: torch.copysign(T(a), T(b)),
                  lambda: H.copysign(M(a), M(b)))
        for number in (-1.5, 1, -0.0, 0.0, -2):
            check(f"copysign {left.__name__} {number}", lambda: torch.copysign(T(a), number),
                  lambda: H.copysign(M(a), number))


def indexing():
    for dtype in (np.int64, np.int32):
        for repeats in ([1, 2, 3], [0, 2, 1], [3], [2, 0]):
            r = np.array(repeats, dtype)
            check(f"repeat_interleave_index {repeats} {dtype.__name__}", lambda: torch.repeat_interleave(T(r)),
                  lambda: H.repeat_interleave_index(M(r)))
    for bounds_type, values_type in itertools.product((np.int64, np.float32, np.int32, np.float64), repeat=2):
        bounds = np.array([1, 3, 5, 7, 9]).astype(bounds_type)
        for shape in ((2, 3), (7,), ()):
            v = (rng.integers(0, 11, shape) + (0.5 if np.issubdtype(values_type, np.floating) else 0)).astype(values_type)
            for right, out_int32 in itertools.product((False, True), repeat=2):
                check(f"bucketize {bounds_type.__name__} {values_type.__name__}{shape} {right} {out_int32}",
                      lambda: torch.bucketize(T(v), T(bounds), right=right, out_int32=out_int32),
                      lambda: H.bucketize(M(v), M(bounds), right=right, out_int32=out_int32))
    special = np.array([[1.5, 3, np.nan, -np.inf, np.inf]], np.float32)
    check("bucketize nan/inf", lambda: torch.bucketize(T(special), T(np.array([1., 3, 5]))),
          lambda: H.bucketize(M(special), M(np.array([1., 3, 5]))))
    for dtype in (np.int64, np.float32, np.bool_):
        for n, r, replace in itertools.product((0, 1, 3, 5), (0, 1, 2, 3, 4), (False, True)):
            t = array((n,), dtype)
            check(f"combinations {dtype.__name__} n={n} r={r} {replace}",
                  lambda: torch.combinations(T(t), r=r, with_replacement=replace),
                  lambda: H.combinations(M(t), r=r, with_replacement=replace))
    x = array((4, 5, 3), np.float32)
    for dim, start, length in ((0, -1, 1), (1, -3, 2), (-1, 0, 3), (2, 1, 2), (1, 4, 1)):
        check(f"narrow {dim} {start} {length}", lambda: torch.narrow(T(x), dim, start, length),
              lambda: H.narrow(M(x), dim, start, length))
        check(f"narrow tensor start {dim} {start}", lambda: torch.narrow(T(x), dim, torch.tensor(start), length),
              lambda: H.narrow(M(x), dim, ms.tensor(start), length))
    for dtype in (np.float32, np.int64, np.float16, np.bool_):
        for xs, mask_shape, source_shape in (((5,), (2, 5), (2, 5)), ((2, 5), (2, 5), (10,)), ((2, 5), (5,), (3, 4)),
                                             ((3, 1), (3, 4), (20,)), ((), (3,), (3,))):
            x, mask, source = array(xs, dtype), array(mask_shape, np.bool_), array(source_shape, dtype)
            check(f"masked_scatter {dtype.__name__} {xs} {mask_shape}",
                  lambda: T(x).masked_scatter(T(mask), T(source)), lambda: H.masked_scatter(M(x), M(mask), M(source)))


def losses():
    for n, classes, reduction, dtype in itertools.product((1, 3), (1, 4, 7), ("mean", "sum", "none"),
                                                          (np.float32, np.float64)):
        x = rng.standard_normal((n, classes)).astype(dtype)
        y = np.full((n, classes), -1, np.int64)
        for row in range(n):
            count = rng.integers(0, classes + 1)
            y[row, :count] = rng.choice(classes, count)
        check(f"multilabel_margin_loss {n}x{classes} {reduction} {dtype.__name__}",
              lambda: torch.nn.functional.multilabel_margin_loss(T(x), T(y), reduction=reduction),
              lambda: H.multilabel_margin_loss(M(x), M(y), reduction))
        check(f"MultiLabelMarginLoss 1-D {classes} {reduction}",
              lambda: torch.nn.MultiLabelMarginLoss(reduction=reduction)(T(x[0]), T(y[0])),
              lambda: H.MultiLabelMarginLoss(reduction)(M(x[0]), M(y[0])))


def transposed():
    shapes = {1: (2, 4, 7), 2: (2, 4, 5, 4), 3: (1, 4, 4, 3, 3)}
    for dims, kernel, stride, padding, dilation, groups, extra, batched in itertools.product(
            (1, 2, 3), (2, 3), (2, 3), (0, 1, "tuple"), (1, 2), (1, 2), (0, 1, 2), (True, False)):
        if dims == 3 and dilation == 2:
            continue  # MindSpore's Conv3dTranspose refuses depth dilation: the converter marks it
        pad = padding if padding != "tuple" else (2, 1, 0)[:dims]
        layer = getattr(torch.nn, f"ConvTranspose{dims}d")(4, 6, kernel, stride=stride, padding=pad,
                                                             dilation=dilation, groups=groups)
        x = rng.standard_normal(shapes[dims] if batched else shapes[dims][1:]).astype(np.float32)
        try:
            size = tuple(n + extra for n in layer(T(x)).shape[-dims:])
        except Exception:
            continue
        written = pad if isinstance(pad, int) else pad[0] if dims == 1 else tuple(p for p in pad for _ in (0, 1))
        cell = getattr(nn, f"Conv{dims}dTranspose")(4, 6, kernel, stride=stride, pad_mode="pad", padding=written,
                                                     dilation=dilation, group=groups, has_bias=True)
        cell.weight.set_data(M(layer.weight.detach().numpy().reshape(cell.weight.shape)))
        cell.bias.set_data(M(layer.bias.detach().numpy()))
        tag = f"conv_transpose {dims}d k{kernel} s{stride} p{pad} d{dilation} g{groups} +{extra} batched={batched}"
        check(tag, lambda: layer(T(x), output_size=size),
              lambda: H.conv_transpose_output_size(cell, M(x), ((1, 6) + size) if batched else size))
        if extra == 0:
            check(f"{tag} (the cell)", lambda: layer(T(x)), lambda: cell(M(x)) if batched else cell(M(x[None]))[0])


def written_calls():
    """What the converter writes for max pooling (pad_mode='pad') and view(dtype) (MindSpore's view)."""
    shapes = {1: (2, 3, 11), 2: (2, 3, 9, 8), 3: (1, 2, 7, 6, 9)}
    for dims, kernel, stride, padding, dilation, ceil, indices, dtype in itertools.product(
            (1, 2, 3), (2, 3), (None, 2), (0, 1), (1, 2), (False, True), (False, True), (np.float32, np.float16)):
        if padding > kernel // 2:
            continue
        x = (rng.standard_normal(shapes[dims]) - 2).astype(dtype)
        check(f"MaxPool{dims}d k{kernel} s{stride} p{padding} d{dilation} ceil={ceil} indices={indices} "
              f"{dtype.__name__}",
              lambda: getattr(torch.nn, f"MaxPool{dims}d")(kernel, stride, padding, dilation, indices, ceil)(T(x)),
              lambda: getattr(nn, f"MaxPool{dims}d")(kernel_size=kernel, stride=stride or kernel, pad_mode="pad",
                                                     padding=padding, dilation=dilation, return_indices=indices,
                                                     ceil_mode=ceil)(M(x)))
    types = {np.float32: (torch.float32, ms.float32), np.float64: (torch.float64, ms.float64),
             np.float16: (torch.float16, ms.float16), np.int32: (torch.int32, ms.int32),
             np.int64: (torch.int64, ms.int64), np.uint8: (torch.uint8, ms.uint8), np.int8: (torch.int8, ms.int8),
             np.int16: (torch.int16, ms.int16), np.bool_: (torch.bool, ms.bool_)}
    for source, target in itertools.product(types, repeat=2):
        for shape in ((4, 4), (8,), (3, 2, 8)):
            x = array(shape, source)
            check(f"view {source.__name__} -> {target.__name__} {shape}",
                  lambda: T(x).view(types[target][0]), lambda: M(x).view(types[target][1]))
    x = array((2, 4), np.float32)
    check("view float32 -> complex64", lambda: T(x).view(torch.complex64).view(torch.float32),
          lambda: M(x).view(ms.complex64).view(ms.float32))


if __name__ == "__main__":
    for part in (reductions, copysign, indexing, losses, transposed, written_calls):
        part()
    print(json.dumps({"checked": checked[0], "wrong": wrong}))
