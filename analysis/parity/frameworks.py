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
        except RuntimeError as exc:
            # a process whose MindSpore already ran a kernel keeps its device: fine if it is this one
            if "has been initialized" not in str(exc) or ms.get_context("device_target") != ms_target:
                raise
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


def make_arrays(specs: list[dict], seed: int) -> list:
    """One value per input spec: an array, or a tuple/dict of arrays for
    `{ tuple = [...] }` / `{ dict = {...} }` specs."""
    rng = np.random.default_rng(seed)
    return [_make_one(spec, rng) for spec in specs]


def _make_one(spec: dict, rng):
    if "tuple" in spec:
        return tuple(_make_one(s, rng) for s in spec["tuple"])
    if "dict" in spec:
        return {k: _make_one(s, rng) for k, s in spec["dict"].items()}
    dtype = spec.get("dtype", "float32")
    if "fill" in spec:  # torch.ones(...).bool(), torch.zeros(...), torch.full(..., v): that constant, not a draw
        return np.full(spec["shape"], spec["fill"]).astype(np.bool_ if dtype == "bool" else dtype)
    low, high = spec.get("range", [0, 10] if dtype.startswith("int") else [-1.0, 1.0])
    if dtype.startswith("int"):
        return rng.integers(int(low), int(high), size=spec["shape"]).astype(dtype)
    if dtype == "bool":
        return rng.integers(0, 2, size=spec["shape"]).astype(np.bool_)
    return rng.uniform(float(low), float(high), size=spec["shape"]).astype(dtype)


def _nested(value, leaf):
    if isinstance(value, tuple):
        return tuple(_nested(v, leaf) for v in value)
    if isinstance(value, dict):
        return {k: _nested(v, leaf) for k, v in value.items()}
    return leaf(value)


def flat_arrays(values) -> list[np.ndarray]:
    """Every array of a list of (possibly tuple/dict) inputs, in order."""
    out = []
    for value in values:
        if isinstance(value, tuple):
            out += flat_arrays(list(value))
        elif isinstance(value, dict):
            out += flat_arrays(list(value.values()))
        else:
            out.append(value)
    return out


def as_float64(values) -> list:
    return [_nested(v, lambda a: a.astype(np.float64) if np.issubdtype(a.dtype, np.floating) else a) for v in values]


def to_torch(arrays, device: str, grad: bool = False) -> list:
    """Copies: a forward that changes its input in place (`x_categ += offsets`) must not change the
    arrays the next run (the float64 reference, MindSpore) is fed."""
    out = []
    for a in arrays:
        if not isinstance(a, np.ndarray):
            out.append(_nested(a, lambda x: torch.from_numpy(np.array(x, copy=True, order="C")).to(device)))
            continue
        t = torch.from_numpy(np.array(a, copy=True, order="C")).to(device)
        if grad and t.is_floating_point():
            t.requires_grad_(True)
        out.append(t)
    return out


def to_ms(arrays) -> list:
    return [_nested(a, lambda x: ms.Tensor(np.ascontiguousarray(x).astype(MS_DTYPES.get(str(x.dtype), x.dtype))))
            for a in arrays]


class _KeywordCall:
    """forward/construct taking one positional list and passing the named ones by keyword.
    An object, not a closure over the model: a deep copy (the float64 reference) then calls
    its own copy. A closure kept calling the float32 original, so the "reference" ran the
    original a second time and doubled its gradients (every entry with a keyword input)."""

    def __init__(self, owner, names: list[str | None], method: str, constants: dict | None = None) -> None:
        self.owner, self.names, self.method = owner, list(names), method
        self.constants = dict(constants or {})

    def __call__(self, *values):
        positional = [v for v, n in zip(values, self.names) if not n]
        keywords = {n: v for v, n in zip(values, self.names) if n}
        return getattr(type(self.owner), self.method)(self.owner, *positional, **self.constants, **keywords)


def keyword_inputs(model, names: list[str | None], method: str, constants: dict | None = None) -> None:
    """Inputs whose spec has a `name` go to forward/construct by keyword, and
    constants (a flag or a None the parent passes: `inference=False`) with them;
    the hooks and every caller keep passing one positional list of tensors."""
    object.__setattr__(model, method, _KeywordCall(model, names, method, constants))


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


def train_mode(torch_model, ms_model, train: bool, *more_torch) -> list[dict]:
    """Train or eval mode; in train mode every random part is off on both
    sides so the forwards are deterministic (the probabilities themselves are
    checked in config, before this runs): Dropout layers stay in eval mode and
    a module's own float `dropout`/`dropout_p` (RNN/LSTM/GRU, MultiheadAttention,
    attention written by hand) is set to 0. Returns what was turned off."""
    turned_off: list[dict] = []
    for model in (torch_model, *more_torch):
        model.train(train)
    ms_model.set_train(train)
    if not train:
        return turned_off
    for side, model in (("torch", torch_model), *(("torch", m) for m in more_torch)):
        for path, module in model.named_modules():
            if isinstance(module, DROPOUT_TORCH):
                module.eval()
                turned_off.append({"side": side, "layer": path, "what": f"{type(module).__name__} kept in eval mode"})
            else:
                turned_off += _zero_dropout_attrs(side, path, module)
    for path, cell in ms_model.cells_and_names():
        if "Dropout" in type(cell).__name__:
            cell.set_train(False)
            turned_off.append({"side": "mindspore", "layer": path,
                               "what": f"{type(cell).__name__} kept in inference mode"})
        else:
            turned_off += _zero_dropout_attrs("mindspore", path, cell)
    # The extra (reference) copies repeat the first model's rows: report each layer once per side.
    seen, unique = set(), []
    for row in turned_off:
        key = (row["side"], row["layer"], row["what"])
        if key not in seen:
            seen.add(key)
            unique.append(row)
    return unique


DROPOUT_ATTRS = ("dropout", "dropout_p", "attn_dropout_p", "p_dropout")


def _zero_dropout_attrs(side: str, path: str, module) -> list[dict]:
    off = []
    for attr in DROPOUT_ATTRS:
        value = module.__dict__.get(attr)
        if isinstance(value, float) and not isinstance(value, bool) and value > 0:
            object.__setattr__(module, attr, 0.0)
            off.append({"side": side, "layer": path, "what": f"{attr}={value:g} set to 0"})
    return off


class RandomReplay:
    """Random draws in user code (a VAE's torch.randn_like, noise injection)
    come from one numpy generator, reset to the same seed before every
    forward of every side: PyTorch float32, its float64 twin and MindSpore
    draw the same numbers in the same order, so a random part is the same on
    all three instead of reading as drift (or inflating the noise band)."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)
        self.replaced: list[str] = []
        self.active = False  # only during the checks' forwards: datasets and inits draw as they always do

    def reset(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.active = True

    def stop(self) -> None:
        self.active = False

    def _draw(self, kind: str, shape) -> np.ndarray:
        shape = tuple(int(d) for d in shape)
        return self.rng.standard_normal(shape) if kind == "normal" else self.rng.random(shape)

    def install(self) -> list[str]:
        import importlib

        def size_of(args, kwargs):
            size = kwargs.get("size", args)
            if len(size) == 1 and isinstance(size[0], (tuple, list)) or (len(size) == 1 and hasattr(size[0], "__len__")):
                size = size[0]
            return tuple(size)

        originals = {}

        def passthrough(key, replay):
            """The original function unless replaying (a seeded generator argument is the user's)."""
            def call(*args, **kwargs):
                if not self.active or kwargs.get("generator") is not None:
                    return originals[key](*args, **kwargs)
                return replay(*args, **kwargs)
            return call

        def torch_fresh(kind):
            def draw(*args, dtype=None, device=None, **kwargs):
                kwargs.pop("generator", None)
                grad = kwargs.pop("requires_grad", False)
                out = torch.from_numpy(self._draw(kind, size_of(args, kwargs))).to(dtype or torch.get_default_dtype())
                return out.to(device).requires_grad_(grad) if device is not None else out.requires_grad_(grad)
            return draw

        def torch_like(kind):
            def draw(input, *args, dtype=None, device=None, **kwargs):
                out = torch.from_numpy(self._draw(kind, input.shape)).to(dtype or input.dtype)
                return out.to(device or input.device)
            return draw

        def ms_fresh(kind):
            def draw(*args, dtype=None, seed=None, **kwargs):
                array = self._draw(kind, size_of(args, kwargs))
                return ms.Tensor(array.astype(np.float32)) if dtype is None else ms.Tensor(array, dtype=dtype)
            return draw

        def ms_like(kind):
            def draw(input, *args, seed=None, dtype=None, **kwargs):
                return ms.Tensor(self._draw(kind, input.shape), dtype=dtype or input.dtype)
            return draw

        for name, fn in (("randn", torch_fresh("normal")), ("rand", torch_fresh("uniform")),
                         ("randn_like", torch_like("normal")), ("rand_like", torch_like("uniform"))):
            originals[f"torch.{name}"] = getattr(torch, name)
            setattr(torch, name, passthrough(f"torch.{name}", fn))
            self.replaced.append(f"torch.{name}")
        for module_name in ("mindspore.ops", "mindspore.mint"):
            try:
                module = importlib.import_module(module_name)
            except ImportError:
                continue
            for name, fn in (("randn", ms_fresh("normal")), ("rand", ms_fresh("uniform")),
                             ("standard_normal", ms_fresh("normal")), ("randn_like", ms_like("normal")),
                             ("rand_like", ms_like("uniform"))):
                if hasattr(module, name):
                    originals[f"{module_name}.{name}"] = getattr(module, name)
                    setattr(module, name, passthrough(f"{module_name}.{name}", fn))
                    self.replaced.append(f"{module_name}.{name}")
        return self.replaced


REPLAY = RandomReplay()


def disable_functional_dropout() -> list[str]:
    """Make the functional dropouts of both frameworks the identity for this
    child (user code calling F.dropout(x, p) is random even in eval mode),
    and force attention dropout to 0. Returns the functions replaced."""
    import functools

    import torch.nn.functional as tf

    replaced = []

    def identity(x, *args, **kwargs):
        return x

    for name in ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"):
        if hasattr(tf, name):
            setattr(tf, name, identity)
            replaced.append(f"torch.nn.functional.{name}")
    sdpa = getattr(tf, "scaled_dot_product_attention", None)
    if sdpa is not None:
        @functools.wraps(sdpa)
        def no_dropout_sdpa(query, key, value, attn_mask=None, dropout_p=0.0, *args, **kwargs):
            return sdpa(query, key, value, attn_mask, 0.0, *args, **kwargs)

        tf.scaled_dot_product_attention = no_dropout_sdpa
        replaced.append("torch.nn.functional.scaled_dot_product_attention(dropout_p=0)")

    def ms_identity(x, *args, **kwargs):
        return x

    import importlib

    for module_name, name in (("mindspore.ops", "dropout"), ("mindspore.ops.function.nn_func", "dropout"),
                              ("mindspore.mint.nn.functional", "dropout"), ("mindspore.ops", "dropout1d"),
                              ("mindspore.ops", "dropout2d"), ("mindspore.ops", "dropout3d")):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        if hasattr(module, name):
            setattr(module, name, ms_identity)
            replaced.append(f"{module_name}.{name}")
    return replaced


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


# Loss-curve targets when the repository gives no labels: a fixed function of
# each batch's own input (through the untrained model), so a correct model can
# fit them and the curve shows training rather than noise.
LEARNABLE_TARGET_NOTE = {
    "mse": "half the untrained model's output on the same batch",
    "cross_entropy": "the untrained model's own top class on the same batch",
    "sum": "fixed random weights",
}


def learnable_target(loss: str, output: np.ndarray, seed: int) -> np.ndarray:
    if loss == "cross_entropy":
        return output.argmax(axis=-1).astype(np.int64)
    if loss == "mse":
        return (0.5 * output).astype(output.dtype)
    return make_target(loss, output, seed)


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
