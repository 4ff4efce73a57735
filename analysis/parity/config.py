"""Compare the hyperparameters of each aligned pair as the frameworks define
them, before any number runs (a Dropout p kept as keep_prob, a BatchNorm
momentum not inverted, a LayerNorm eps left at MindSpore's 1e-7...)."""
from __future__ import annotations

import math

from . import tables


def _tuple(value, n: int | None = None) -> tuple:
    if isinstance(value, (list, tuple)):
        return tuple(int(v) if isinstance(v, (int, float)) and float(v).is_integer() else v for v in value)
    return (value,) * (n or 1)


def _dims(module) -> int:
    name = type(module).__name__
    for n in (1, 2, 3):
        if name.endswith(f"{n}d"):
            return n
    return 2


def _kernel(obj) -> tuple:
    return _squeeze_ms_1d(obj, _tuple(obj.kernel_size, _dims(obj)))


def _stride(obj) -> tuple:
    stride = obj.stride if obj.stride is not None else obj.kernel_size
    return _squeeze_ms_1d(obj, _tuple(stride, _dims(obj)))


def _dilation(obj) -> tuple:
    return _squeeze_ms_1d(obj, _tuple(obj.dilation, _dims(obj)))


def _squeeze_ms_1d(obj, value: tuple) -> tuple:
    # MindSpore's 1-d convs and pools run as 2-d with a unit height axis.
    if _dims(obj) == 1 and len(value) == 2 and value[0] == 1:
        return value[1:]
    return value


def _has_bias(obj) -> bool:
    return getattr(obj, "bias", None) is not None


def _torch_padding(obj) -> tuple:
    pad = obj.padding
    if pad == "valid":
        return (0,) * _dims(obj)
    if isinstance(pad, str):
        return (pad,)
    return _tuple(pad, _dims(obj))


def _ms_padding(obj) -> tuple:
    """MindSpore pads per side (top, bottom, left, right); express it as
    PyTorch's symmetric per-axis padding when it is symmetric."""
    mode = getattr(obj, "pad_mode", "pad")
    dims = _dims(obj)
    if mode == "valid":
        return (0,) * dims
    if mode == "same":
        # Input-size independent only at stride 1 with odd kernels: (k-1)*d/2 per side.
        kernel, stride, dilation = _tuple(obj.kernel_size, dims), _tuple(obj.stride, dims), _tuple(obj.dilation, dims)
        kernel, stride, dilation = (v[-dims:] for v in (kernel, stride, dilation))
        if all(k == 1 for k in kernel):
            return (0,) * dims
        if all(s == 1 and k % 2 == 1 for k, s in zip(kernel, stride)):
            return tuple((k - 1) * d // 2 for k, d in zip(kernel, dilation))
    if mode != "pad":
        return (mode,)
    pad = obj.padding
    if isinstance(pad, int):
        return (pad,) * dims
    pad = tuple(pad)
    if len(pad) == 2 * dims or (dims == 1 and len(pad) == 4):
        sides = pad[-2:] if dims == 1 else pad
        pairs = [sides[i:i + 2] for i in range(0, len(sides), 2)]
        if all(a == b for a, b in pairs):
            return tuple(a for a, _ in pairs)
        return tuple(pairs)
    return pad


def _ms_dropout_p(obj) -> float:
    p = getattr(obj, "p", None)
    if p is not None:
        return float(p)
    return 1.0 - float(obj.keep_prob)


def _ms_bn_affine(obj) -> bool:
    return bool(getattr(obj, "affine", True))


def _normalized_shape(obj) -> tuple:
    return _tuple(obj.normalized_shape)


def _gelu_approximate(obj) -> bool:
    # torch: approximate="none"|"tanh"; MindSpore: approximate=True (tanh) by default.
    value = obj.approximate
    return value == "tanh" if isinstance(value, str) else bool(value)


NORMALIZERS = {
    "gelu_approximate": _gelu_approximate,
    "kernel": _kernel,
    "stride": _stride,
    "dilation": _dilation,
    "has_bias": _has_bias,
    "torch_padding": _torch_padding,
    "ms_padding": _ms_padding,
    "ms_dropout_p": _ms_dropout_p,
    "ms_bn_affine": _ms_bn_affine,
    "normalized_shape": _normalized_shape,
}

_MISSING = object()


def _get(obj, getter):
    if isinstance(getter, str) and getter.startswith("@"):
        try:
            return NORMALIZERS[getter[1:]](obj)
        except AttributeError:
            return _MISSING
    for name in getter if isinstance(getter, tuple) else (getter,):
        if hasattr(obj, name):
            return getattr(obj, name)
    return _MISSING


def _same(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-6, abs_tol=1e-12)
        except (TypeError, ValueError):
            return False
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _plain(value):
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return repr(value)


def compare_config(pair) -> list[dict]:
    """Mismatches for one aligned pair, each naming the field and both values."""
    mismatches = []
    expected = tables.CELL_FOR_MODULE.get(pair.torch_type)
    builtin = type(pair.cell).__module__.startswith("mindspore.")
    if expected and builtin and pair.ms_type not in expected:
        # A different built-in cell (a custom cell in its place is the team's choice).
        mismatches.append({"layer": pair.torch_path, "field": "type", "torch": pair.torch_type,
                           "mindspore": pair.ms_type, "rule_id": tables.DEFAULT_FIELD_RULE,
                           "message": f"{pair.torch_type} became {pair.ms_type}, expected {' or '.join(expected)}"})
    kind = tables.CONFIG_KIND.get(pair.torch_type)
    for label, tget, mget in tables.CONFIG_FIELDS.get(kind, []):
        tval, mval = _get(pair.module, tget), _get(pair.cell, mget)
        if tval is _MISSING or mval is _MISSING:
            continue
        if not _same(tval, mval):
            mismatches.append(
                {"layer": pair.torch_path, "field": label, "torch": _plain(tval), "mindspore": _plain(mval),
                 "message": _explain(pair, label, tval, mval),
                 "rule_id": tables.FIELD_RULES.get((kind, label), tables.DEFAULT_FIELD_RULE)}
            )
    return mismatches


def _explain(pair, label: str, tval, mval) -> str:
    where = f"{pair.torch_type} '{pair.torch_path}'"
    if label == "momentum":
        return (f"{where}: running statistics update with momentum {mval} in MindSpore against {tval} in PyTorch; "
                f"MindSpore's argument is the weight of the old value, so pass momentum={1 - float(tval):g}")
    if label == "p":
        return (f"{where}: MindSpore drops {mval} of the activations, PyTorch {tval} "
                f"(keep_prob is the probability of keeping, p of dropping)")
    if label == "eps" and pair.torch_type == "LayerNorm":
        return f"{where}: epsilon {mval} in MindSpore (its default is 1e-7) against eps {tval} in PyTorch"
    if label == "bias":
        return f"{where}: bias {'present' if tval else 'absent'} in PyTorch but has_bias={mval} in MindSpore"
    return f"{where}: {label} is {_plain(tval)} in PyTorch but {_plain(mval)} in MindSpore"
