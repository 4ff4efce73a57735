"""Measure, on the installed MindSpore, what each in-place Tensor method really does.

PyTorch's in-place methods (name ending in "_") that have a MindSpore namesake are called on a
float32 Tensor and on a Parameter, with the same arguments as on a PyTorch tensor. Each gets one
verdict (the converter reads them from analysis/convert/tensors/inplace_methods.json):
  mutates      the receiver afterwards equals PyTorch's receiver
  returns-only the call returns PyTorch's value but the receiver is unchanged or wrong
  wrong        neither the receiver nor the returned value matches
  raises       the call raises (often: no CPU kernel)
  missing      MindSpore's Tensor has no such method
plus out_of_place_ok: whether what the converter writes instead, recv.assign_value(recv.<name>(...))
with the out-of-place name (without "_"), leaves PyTorch's receiver and returns PyTorch's value.

Regenerate:  python -m analysis.verify.inplace_probe   (about a minute; run from a scratch
directory or let it chdir into one: MindSpore writes rank_0/ into the current directory)."""
from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "convert" / "inplace_methods.json"
# random fills: compared by "receiver changed, same shape", not by value
RANDOM = {"uniform_", "normal_", "random_", "bernoulli_", "exponential_", "geometric_", "cauchy_", "log_normal_"}
# not arithmetic on values (autograd flags, storage, callables, shapes of storage)
SKIP = {"requires_grad_", "share_memory_", "set_", "resize_", "resize_as_", "map_", "apply_", "map2_",
        "record_stream", "detach_", "retain_grad_", "as_strided_", "sparse_resize_", "sparse_resize_and_clear_",
        "module_load", "_coalesced_", "set_data"}

# out-of-place forms whose name is not the in-place name without "_" (the knowledge base's mapping)
OUT_OF_PLACE = {"fill_diagonal_": "fill_diagonal"}
X = (np.arange(6, dtype=np.float32).reshape(2, 3) + 1) / 8  # 0.125 .. 0.75: fine for log, sqrt, acos
O = (np.arange(6, dtype=np.float32)[::-1].reshape(2, 3).copy() + 1) / 10
MASK = np.array([[True, False, True], [False, True, False]])
IDX = np.array([0, 2], dtype=np.int64)
IDX2 = np.array([[0, 2], [1, 0]], dtype=np.int64)
SRC2 = np.array([[9, 8], [7, 6]], dtype=np.float32)

# explicit arguments where a generic try would not fit; ("T", array) is a tensor argument
SPECIAL = {
    "clamp_": [(0.2, 0.6)], "clip_": [(0.2, 0.6)], "clamp_min_": [(0.3,)], "clamp_max_": [(0.3,)],
    "masked_fill_": [(("T", MASK), -1.0)], "masked_scatter_": [(("T", MASK), ("T", O))],
    "index_fill_": [(1, ("T", IDX), -1.0)], "index_add_": [(1, ("T", IDX), ("T", SRC2))],
    "index_copy_": [(1, ("T", IDX), ("T", SRC2))], "scatter_": [(1, ("T", IDX2), ("T", SRC2))],
    "scatter_add_": [(1, ("T", IDX2), ("T", SRC2))], "scatter_reduce_": [(1, ("T", IDX2), ("T", SRC2), "sum")],
    "index_put_": [((("T", np.array([0, 1])), ("T", np.array([1, 2]))), ("T", np.array([9.0, 8.0], np.float32)))],
    "put_": [(("T", IDX), ("T", np.array([9.0, 8.0], np.float32)))],
    "transpose_": [(0, 1)], "swapaxes_": [(0, 1)], "swapdims_": [(0, 1)], "unsqueeze_": [(0,)],
    "squeeze_": [()], "fill_diagonal_": [(0.5,)], "lerp_": [(("T", O), 0.3)], "tril_": [()], "triu_": [()],
    "renorm_": [(2, 0, 0.5)], "clamp": [], "pow_": [(2.0,)], "float_power_": [(2.0,)], "fmod_": [(0.3,)],
    "remainder_": [(0.3,)], "polygamma_": [(1,)], "mvlgamma_": [(1,)], "nan_to_num_": [()],
    "copysign_": [(("T", -O),)], "geometric_": [(0.5,)], "bernoulli_": [(0.5,)], "random_": [(0, 10)],
    "addcmul_": [(("T", O), ("T", O))], "addcdiv_": [(("T", O), ("T", O))],
    "logit_": [()], "cumsum_": [(1,)], "cumprod_": [(1,)],
    "addmm_": [(("T", np.ones((2, 4), np.float32)), ("T", np.ones((4, 3), np.float32) / 4))],
    "addr_": [(("T", np.array([1.0, 2.0], np.float32)), ("T", np.array([0.5, 1.0, 1.5], np.float32)))],
}
GENERIC = [(), (("T", O),), (0.5,), (("T", O), ("T", O))]
EXTRA = {  # keyword forms PyTorch code uses often, probed as their own rows
    "add_": [((("T", O),), {"alpha": 0.5})], "sub_": [((("T", O),), {"alpha": 0.5})],
    "addcmul_": [((("T", O), ("T", O)), {"value": 0.5})], "addcdiv_": [((("T", O), ("T", O)), {"value": 0.5})],
}


def _convert(framework, value):
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "T":
        arr = value[1]
        if framework == "torch":
            import torch
            return torch.tensor(arr)
        import mindspore
        return mindspore.Tensor(arr.copy())
    if isinstance(value, tuple):
        return tuple(_convert(framework, v) for v in value)
    return value


def _drain():
    """MindSpore's PyNative runtime reports a failed kernel again on the next operations: run a
    trivial one until it succeeds so the next method is measured on its own."""
    import mindspore
    for _ in range(5):
        try:
            (mindspore.Tensor(np.ones(2, np.float32)) + 1).asnumpy()
            return
        except Exception:  # noqa: BLE001 - the stale error of the previous call
            continue


def _numpy(value):
    if hasattr(value, "asnumpy"):
        return value.asnumpy()
    if hasattr(value, "detach"):
        return value.detach().numpy()
    return None


def _receiver(framework, kind):
    if framework == "torch":
        import torch
        t = torch.tensor(X.copy())
        return torch.nn.Parameter(t, requires_grad=False) if kind == "parameter" else t
    import mindspore
    t = mindspore.Tensor(X.copy())
    return mindspore.Parameter(t, name="p") if kind == "parameter" else t


def _call(framework, kind, name, args, kwargs):
    recv = _receiver(framework, kind)
    result = getattr(recv, name)(*_convert(framework, args), **kwargs)
    return _numpy(recv), _numpy(result)


def _same(a, b):
    return a is not None and b is not None and a.shape == b.shape and np.allclose(a, b, rtol=1e-4, atol=1e-5,
                                                                                 equal_nan=True)


def _verdict(name, torch_pair, ms_pair):
    (t_recv, t_ret), (m_recv, m_ret) = torch_pair, ms_pair
    if name in RANDOM:
        changed = m_recv is not None and m_recv.shape == X.shape and not np.allclose(m_recv, X)
        return "mutates" if changed else ("returns-only" if m_ret is not None and not np.allclose(m_ret, X)
                                          else "wrong")
    if _same(t_recv, m_recv):
        return "mutates"
    return "returns-only" if _same(t_ret, m_ret) else "wrong"


def _torch_args(name):
    import torch
    tries = [(a, {}) for a in SPECIAL.get(name, GENERIC)]
    for args, kwargs in tries:
        try:
            getattr(torch.tensor(X.copy()), name)(*_convert("torch", args), **kwargs)
            return args, kwargs
        except Exception:  # noqa: BLE001 - trying argument shapes
            continue
    return None


def probe_one(name, args, kwargs):
    import mindspore
    import torch
    row = {"args": _describe(args, kwargs)}
    torch_pair = _call("torch", "tensor", name, args, kwargs)
    if not hasattr(mindspore.Tensor, name):
        row.update(tensor="missing", parameter="missing")
    else:
        for kind in ("tensor", "parameter"):
            try:
                row[kind] = _verdict(name, torch_pair, _call("mindspore", kind, name, args, kwargs))
            except Exception as exc:  # noqa: BLE001 - the measurement
                _drain()
                row[kind] = "raises"
                row[f"{kind}_error"] = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:160]}" \
                    if str(exc).strip() else type(exc).__name__
    plain = OUT_OF_PLACE.get(name, name[:-1])
    row["out_of_place"] = plain
    # what the converter writes, recv.assign_value(recv.<plain>(...)), run on a Tensor and a Parameter:
    # both the receiver and the returned value must be PyTorch's
    row["out_of_place_ok"] = False
    if hasattr(mindspore.Tensor, plain):
        try:
            fits = True
            for kind in ("tensor", "parameter"):
                recv = _receiver("mindspore", kind)
                result = recv.assign_value(getattr(recv, plain)(*_convert("mindspore", args), **kwargs))
                got, returned = _numpy(recv), _numpy(result)
                if name in RANDOM:
                    fits &= got.shape == X.shape and not np.allclose(got, X) and _same(got, returned)
                else:
                    fits &= bool(_same(torch_pair[0], got) and _same(torch_pair[1], returned))
                # assign_value of a bool result changes the receiver's dtype (eq_ keeps float32)
                fits &= got.dtype == X.dtype
            row["out_of_place_ok"] = bool(fits)
        except Exception as exc:  # noqa: BLE001 - the measurement
            _drain()
            row["out_of_place_error"] = f"{type(exc).__name__}: {str(exc).strip()[:120]}"
    return row


def _describe(args, kwargs):
    def one(v):
        if isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) and v[0] == "T":
            return f"tensor{list(v[1].shape)}"
        if isinstance(v, tuple):
            return "(" + ", ".join(one(x) for x in v) + ")"
        return repr(v)
    return ", ".join([one(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])


def in_place_names():
    import mindspore
    import torch
    names = sorted(n for n in dir(torch.Tensor) if n.endswith("_") and not n.startswith("_") and n not in SKIP)
    return [n for n in names if hasattr(mindspore.Tensor, n) or hasattr(mindspore.Tensor, n[:-1])]


def measure():
    import mindspore
    import torch
    methods, keyword_rows = {}, {}
    order = in_place_names()
    if os.environ.get("INPLACE_PROBE_REVERSE"):  # a check that no result depends on the one before
        order.reverse()
    for name in order:
        found = _torch_args(name)
        if found is None:
            methods[name] = {"tensor": "unprobed", "parameter": "unprobed", "note": "no argument set fits PyTorch"}
            continue
        methods[name] = probe_one(name, *found)
        for args, kwargs in EXTRA.get(name, []):
            keyword_rows[f"{name}({_describe(args, kwargs)})"] = probe_one(name, args, kwargs)
    # a failed MindSpore kernel can be reported again by the next operations: every row that saw an
    # error is measured again alone in a fresh process (a stale error can only add failures)
    for name, row in methods.items():
        if any(key.endswith("error") for key in row):
            methods[name] = _alone(name)
    counts = {}
    for row in methods.values():
        counts[row["tensor"]] = counts.get(row["tensor"], 0) + 1
    return {"measured_with": {"mindspore": mindspore.__version__, "torch": torch.__version__,
                              "device": "CPU", "mode": "PyNative", "python": platform.python_version(),
                              "receiver": "float32 [2, 3]; Parameter of the same",
                              "script": "python -m analysis.verify.inplace_probe"},
            "counts_tensor": counts, "methods": methods, "keyword_forms": keyword_rows}


def _alone(name):
    import subprocess
    proc = subprocess.run([sys.executable, "-m", "analysis.verify.inplace_probe", "--one", name],
                          capture_output=True, text=True, timeout=300, cwd=os.getcwd(),
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    line = next(l for l in proc.stdout.splitlines() if l.startswith("ROW "))
    return json.loads(line[4:])


def main():
    if sys.argv[1:2] == ["--one"]:
        os.chdir(tempfile.mkdtemp(prefix="inplace_probe_"))
        name = sys.argv[2]
        print("ROW " + json.dumps(probe_one(name, *_torch_args(name))))
        return
    os.chdir(tempfile.mkdtemp(prefix="inplace_probe_"))
    table = measure()
    OUT.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    print(json.dumps(table["counts_tensor"]), "->", OUT, file=sys.stderr)


if __name__ == "__main__":
    main()
