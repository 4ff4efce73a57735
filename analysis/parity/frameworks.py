"""The small framework-specific pieces the checks need, side by side for
PyTorch and MindSpore: inputs, deterministic train mode, hooks, losses,
optimizers. Runs inside the sandboxed child only."""
from __future__ import annotations

import numpy as np
import torch

import mindspore as ms
from mindspore import nn as msnn
from mindspore import ops

from .compare import Capture

DROPOUT_TORCH = (torch.nn.Dropout, torch.nn.Dropout1d, torch.nn.Dropout2d, torch.nn.Dropout3d, torch.nn.AlphaDropout)
MS_DTYPES = {"float32": np.float32, "float16": np.float16, "float64": np.float64, "int64": np.int32, "int32": np.int32,
             "bool": np.bool_}


# Our device name -> (torch device, MindSpore device_target). On Ascend the
# PyTorch reference stays on the CPU (torch_npu is not assumed).
DEVICES = {"cpu": ("cpu", "CPU"), "gpu": ("cuda", "GPU"), "ascend": ("cpu", "Ascend")}


class DeviceUnavailable(RuntimeError):
    """The worker cannot run the requested device; never fall back to the CPU
    silently, since every figure says which device made it."""


def setup(device: str, seed: int = 0) -> tuple[str, str]:
    torch_device, ms_target = DEVICES[device]
    problems = []
    if torch_device == "cuda" and not torch.cuda.is_available():
        build = "" if torch.version.cuda else " (this PyTorch build has no CUDA support)"
        problems.append(f"PyTorch sees no CUDA device{build}")
    elif torch_device == "cuda":
        try:  # start the CUDA context now, before the sandbox lockdown, and catch a broken driver here
            torch.ones(1, device=torch_device).add_(1).cpu()
        except Exception as exc:
            problems.append(f"PyTorch cannot run on CUDA: {str(exc).strip().splitlines()[0][:300]}")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        try:
            ms.set_device(ms_target)
        except AttributeError:  # older MindSpore
            ms.set_context(device_target=ms_target)
        actual = ms.get_context("device_target")
        if actual != ms_target:
            problems.append(f"MindSpore runs on {actual}, not {ms_target}")
        else:
            (ms.Tensor(np.ones(1, np.float32)) + 1).asnumpy()  # a device that is named but broken fails here
    except Exception as exc:  # MindSpore raises RuntimeError/ValueError with multi-line diagnostics
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        problems.append(f"MindSpore cannot use {ms_target}: {first[:300]}")
    if problems:
        raise DeviceUnavailable("; ".join(problems))
    torch.use_deterministic_algorithms(True, warn_only=True)
    seed_all(seed)
    return torch_device, ms_target


def seed_all(seed: int) -> None:
    torch.manual_seed(seed)
    ms.set_seed(seed)
    np.random.seed(seed)


def make_arrays(specs: list[dict], seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    arrays = []
    for spec in specs:
        dtype = spec.get("dtype", "float32")
        low, high = spec.get("range", [0, 10] if dtype.startswith("int") else [-1.0, 1.0])
        if dtype.startswith("int"):
            arrays.append(rng.integers(int(low), int(high), size=spec["shape"]).astype(np.int64))
        elif dtype == "bool":
            arrays.append(rng.integers(0, 2, size=spec["shape"]).astype(np.bool_))
        else:
            arrays.append(rng.uniform(float(low), float(high), size=spec["shape"]).astype(dtype))
    return arrays


def to_torch(arrays, device: str, grad: bool = False) -> list[torch.Tensor]:
    out = []
    for a in arrays:
        t = torch.from_numpy(np.ascontiguousarray(a)).to(device)
        if grad and t.is_floating_point():
            t.requires_grad_(True)
        out.append(t)
    return out


def to_ms(arrays) -> list:
    return [ms.Tensor(np.ascontiguousarray(a).astype(MS_DTYPES.get(str(a.dtype), a.dtype))) for a in arrays]


def flat_tensors(value, framework: str) -> list[np.ndarray]:
    """Every tensor in a (possibly nested) output, as numpy, in order."""
    if framework == "torch" and isinstance(value, torch.Tensor):
        return [value.detach().float().cpu().numpy() if value.dtype == torch.bfloat16 else value.detach().cpu().numpy()]
    if framework == "ms" and isinstance(value, ms.Tensor):
        return [value.asnumpy()]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [a for v in value for a in flat_tensors(v, framework)]
    return []


def first_tensor(value, framework: str):
    kind = torch.Tensor if framework == "torch" else ms.Tensor
    if isinstance(value, kind):
        return value
    if isinstance(value, (list, tuple)):
        for v in value:
            found = first_tensor(v, framework)
            if found is not None:
                return found
    return None


def train_mode(torch_model, ms_model, train: bool) -> None:
    """Train or eval mode; in train mode Dropout stays off on both sides so
    the two forwards are deterministic (probabilities are checked in config)."""
    torch_model.train(train)
    ms_model.set_train(train)
    if train:
        for module in torch_model.modules():
            if isinstance(module, DROPOUT_TORCH):
                module.eval()
        for _, cell in ms_model.cells_and_names():
            if "Dropout" in type(cell).__name__:
                cell.set_train(False)


class Recorder:
    """Forward hooks on aligned layers of one framework; each call becomes
    (input capture, output capture) in execution order. With `on_call`, the
    captures go to it instead of being kept (the second framework's side is
    compared on the fly, so only one side's tensors are ever held)."""

    def __init__(self, framework: str, on_call=None) -> None:
        self.framework = framework
        self.on_call = on_call
        self.calls: dict[str, list[tuple[Capture | None, Capture | None]]] = {}
        self.counts: dict[str, int] = {}
        self.order: list[tuple[str, int]] = []
        self.handles = []

    def attach(self, named: list[tuple[str, object]]) -> "Recorder":
        for path, layer in named:
            self.handles.append(layer.register_forward_hook(self._hook(path)))
        return self

    def _hook(self, path: str):
        def hook(_layer, args, output):
            index = self.counts.get(path, 0)
            self.counts[path] = index + 1
            self.order.append((path, index))
            captured = (self._capture(first_tensor(args, self.framework)),
                        self._capture(first_tensor(output, self.framework)))
            if self.on_call is not None:
                self.on_call(path, index, *captured)
            else:
                self.calls.setdefault(path, []).append(captured)

        return hook

    def _capture(self, tensor) -> Capture | None:
        if tensor is None:
            return None
        arrays = flat_tensors(tensor, self.framework)
        return Capture(arrays[0]) if arrays else None

    def detach(self) -> None:
        for handle in self.handles:
            handle.remove()
        self.handles = []


# Losses: name -> (torch fn, MindSpore fn); both take (output, target).
def _torch_ce(out, target):
    return torch.nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]), target.reshape(-1))


def _ms_ce(out, target):
    return ops.cross_entropy(out.reshape(-1, out.shape[-1]), target.reshape(-1))


LOSSES = {
    "mse": (lambda o, t: torch.mean((o - t) ** 2), lambda o, t: ops.mean((o - t) ** 2)),
    "cross_entropy": (_torch_ce, _ms_ce),
    "sum": (lambda o, t: (o * t).sum(), lambda o, t: (o * t).sum()),
}


def make_target(loss: str, output: np.ndarray, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed + 7919)
    if loss == "cross_entropy":
        return rng.integers(0, output.shape[-1], size=output.shape[:-1]).astype(np.int64)
    return rng.standard_normal(output.shape).astype(output.dtype if output.dtype != np.float64 else np.float64)


def torch_optimizer(spec: dict, params):
    name, kw = _optimizer_kwargs(spec)
    cls = {"sgd": torch.optim.SGD, "momentum": torch.optim.SGD, "adam": torch.optim.Adam,
           "adamw": torch.optim.AdamW}[name]
    return cls(params, **kw)


def ms_optimizer(spec: dict, params):
    """MindSpore's experimental optimizers follow PyTorch's update rules and
    argument names; the classic nn ones are the fallback."""
    name, kw = _optimizer_kwargs(spec)
    try:
        from mindspore.experimental import optim

        cls = {"sgd": optim.SGD, "momentum": optim.SGD, "adam": optim.Adam, "adamw": optim.AdamW}[name]
        return cls(params, **kw), "mindspore.experimental.optim." + cls.__name__
    except (ImportError, AttributeError):
        if name in ("sgd", "momentum"):
            return msnn.SGD(params, learning_rate=kw["lr"], momentum=kw.get("momentum", 0.0),
                            weight_decay=kw.get("weight_decay", 0.0)), "mindspore.nn.SGD"
        return msnn.Adam(params, learning_rate=kw["lr"], weight_decay=kw.get("weight_decay", 0.0)), "mindspore.nn.Adam"


SCHEDULERS = ("StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LinearLR", "ConstantLR", "PolynomialLR")


def scheduler(spec: dict | None, optimizer, framework: str):
    """A learning-rate schedule stepped once per step, or None. MindSpore's
    experimental schedulers mirror PyTorch's names and arguments."""
    if not spec:
        return None
    name = spec.get("name", "")
    if name not in SCHEDULERS:
        raise ValueError(f"scheduler {name!r} is not supported (use one of {', '.join(SCHEDULERS)})")
    kwargs = {k: v for k, v in spec.items() if k != "name"}
    if framework == "torch":
        return getattr(torch.optim.lr_scheduler, name)(optimizer, **kwargs)
    from mindspore.experimental.optim import lr_scheduler

    return getattr(lr_scheduler, name)(optimizer, **kwargs)


def _optimizer_kwargs(spec: dict) -> tuple[str, dict]:
    name = str(spec.get("name", "SGD")).lower()
    kw = {"lr": float(spec.get("lr", spec.get("learning_rate", 0.01)))}
    for key in ("momentum", "weight_decay", "nesterov", "eps", "dampening"):
        if key in spec:
            kw[key] = spec[key]
    if "betas" in spec:
        kw["betas"] = tuple(spec["betas"])
    if name == "momentum":
        kw.setdefault("momentum", 0.9)
    return name, kw
