"""Every measurement of one entry point, in the sandboxed child:
configuration, forward (eval, then train with Dropout off), gradients, state
after one step, loss curves.

The child measures and judges nothing: each pair of tensors to compare
(PyTorch's, MindSpore's) goes to the parent as data through the sink
(`measure.Sink`), and the rows of the result only point at those pairs.
Tolerances, statuses, the first layer at fault and the verdict are the
parent's (verdict.py)."""
from __future__ import annotations

import copy
import gc
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import torch

import mindspore as ms

from . import frameworks as fw
from . import tables
from .align import align, map_path, transfer_weights
from .compare import Capture, noise_of, spec_text
from .config import compare_config
from .dataset import Batch, DatasetError
from .snapshot import InitialState
from .sources import layer_source

STATE_STEP_LR = 0.1  # plain SGD step used to expose buffer/update errors
RELEASE_ABOVE_BYTES = 64 << 20  # models whose float32 weights pass this get freed memory returned between phases
CHECKPOINT_INSIDE = "/sandbox/checkpoint.ckpt"  # written here, then sent to the parent's output slot
_sink = None  # the measurement sink of the entry being checked (set by run_entry)


def infer_inputs(model, device: str, hints: list[list[int]] | None = None) -> tuple[list[dict] | None, str]:
    """Input specs from the first Conv/Linear/Embedding/RNN/attention layer,
    then from literal shapes in the repository (`torch.randn(1, 3, 32, 32)`),
    tried in eval mode until the forward runs. A forward taking several
    tensors (nn.Transformer's src and tgt) gets one of each."""
    first = next(((n, m, kind) for n, m in model.named_modules() for kind in [_input_layer_kind(m)] if kind), None)
    candidates, kind, name = [], "", ""
    batch, seq = tables.DEFAULT_BATCH, tables.DEFAULT_SEQ_LEN
    if first is not None:
        name, layer, kind = first
        if kind == "Linear":  # features alone, or a sequence of them (transformer blocks)
            candidates = [[{"shape": [batch, layer.in_features], "dtype": "float32"}],
                          [{"shape": [batch, seq, layer.in_features], "dtype": "float32"}]]
        elif kind == "Embedding":
            candidates = [[{"shape": [batch, seq], "dtype": "int64", "range": [0, layer.num_embeddings]}]]
        elif kind in ("LSTM", "GRU", "RNN"):
            shape = [batch, seq] if layer.batch_first else [seq, batch]
            candidates = [[{"shape": shape + [layer.input_size], "dtype": "float32"}]]
        elif kind in tables.ATTENTION_LAYERS:
            attn = layer if kind == "MultiheadAttention" else next(
                m for m in layer.modules() if type(m).__name__ == "MultiheadAttention")
            batch_first = getattr(attn, "batch_first", False)
            shape = ([batch, seq] if batch_first else [seq, batch]) + [attn.embed_dim]
            candidates = [[{"shape": shape, "dtype": "float32"}]]
        else:
            dims = int(kind[-2])
            candidates = [[{"shape": [batch, layer.in_channels] + [size] * dims, "dtype": "float32"}]
                          for size in tables.SPATIAL_CANDIDATES[dims]]
    if first is None:  # no input layer (a norm or scale holding its own parameters): their trailing size
        sizes = [int(p.shape[-1]) for _, p in model.named_parameters() if p.dim() >= 1][:1]
        candidates = [[{"shape": [batch, seq, n], "dtype": "float32"}] for n in sizes] + \
                     [[{"shape": [batch, n], "dtype": "float32"}] for n in sizes]
        kind, name = ("parameter", next(n for n, p in model.named_parameters() if p.dim() >= 1)) if sizes else ("", "")
    from_layer = len(candidates)
    candidates += [[{"shape": list(shape), "dtype": "float32"}] for shape in hints or []]
    if not candidates:
        return None, "no Conv/Linear/Embedding/RNN/attention layer and no literal input shape in the repository " \
                     "to infer the input shape from"
    tensors = _tensor_arguments(model)
    state, state_from = _recurrent_state(model, batch) if tensors == 2 else (None, "")
    errors = []
    model.eval()
    for index, first in enumerate(candidates):
        # `forward(x, hidden)`: the state from the recurrent layer's own sizes first, then x's shape again
        variants = ([first + [state]] if state is not None and len(first) == 1 else []) + \
            [first * tensors if len(first) == 1 else first]
        for specs in variants:
            try:
                with torch.no_grad():
                    model(*fw.to_torch(fw.make_arrays(specs, 0), device))
            except PermissionError:  # a sandbox refusal is an answer, not a wrong size
                raise
            except Exception as exc:  # user code: any failure means "try the next size"
                errors.append(f"{spec_text(specs[0])}: {type(exc).__name__}: {exc}")
                continue
            how = f"inferred from {kind} '{name}'" if index < from_layer else "from a literal shape in the repository"
            if state is not None and specs[-1] is state:
                how += f"; the state from {state_from}'s sizes"
            return specs, how
    where = f"{kind} '{name}'" if kind else "the repository's literal shapes"
    return None, f"no input shape from {where} ran the forward (" + "; ".join(errors[:3]) + ")"


PARAMETRIZATION_MODULES = ("torch.nn.utils.parametrize", "torch.nn.utils.parametrizations")


def _input_layer_kind(module) -> str:
    """The torch.nn input layer a module is (Conv1d, Linear...), itself or as the nearest torch.nn class it
    extends (pytorch-tcn's TemporalConv1d(nn.Conv1d) takes Conv1d's (N, C, L) input of its in_channels);
    '' for any other. A user class merely named "RNN" is none."""
    for cls in type(module).__mro__:
        if cls.__module__.startswith("torch.nn"):
            return cls.__name__ if cls.__name__ in tables.INPUT_LAYERS else ""
    return ""


def _recurrent_state(model, batch: int) -> tuple[dict | None, str]:
    """The initial state spec of the first torch RNN/GRU/LSTM: (layers x
    directions, batch, hidden), a (h, c) tuple for an LSTM (h sized by
    proj_size when set)."""
    found = next(((n, m) for n, m in model.named_modules() if type(m).__name__ in ("LSTM", "GRU", "RNN")
                  and type(m).__module__.startswith("torch.nn")), None)
    if found is None:
        return None, ""
    name, rnn = found
    layers = rnn.num_layers * (2 if rnn.bidirectional else 1)
    hidden = {"shape": [layers, batch, rnn.hidden_size], "dtype": "float32"}
    if type(rnn).__name__ != "LSTM":
        return hidden, f"{type(rnn).__name__} '{name}'"
    outer = {"shape": [layers, batch, getattr(rnn, "proj_size", 0) or rnn.hidden_size], "dtype": "float32"}
    return {"tuple": [outer, hidden]}, f"LSTM '{name}'"


def _tensor_arguments(model) -> int:
    """How many arguments forward() requires (at least one)."""
    import inspect

    try:
        params = inspect.signature(model.forward).parameters.values()
    except (TypeError, ValueError):
        return 1
    return max(1, sum(1 for p in params if p.default is inspect.Parameter.empty
                      and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)))


def run_entry(entry: dict, torch_model, ms_model, *, torch_device: str, root: Path | None,
              progress=None, sink=None) -> dict:
    """Every measurement of one entry point; the compared tensors go to
    `sink` as they are taken. `progress(result, next_phase)` gets the result
    so far after each phase, so a timeout later keeps what was done."""
    global _sink
    _sink = sink
    try:
        return _run_entry(entry, torch_model, ms_model, torch_device=torch_device, root=root, progress=progress)
    finally:
        fw.REPLAY.stop()
        _sink = None


def run_and_judge(entry: dict, torch_model, ms_model, *, torch_device: str, root: Path | None = None) -> dict:
    """Measure and judge in this one process: for benchmarks and tests of the trusted code
    on trusted models. Parity on uploaded code always judges in the parent (engine.py)."""
    with judged_here(entry) as judge:
        return judge.judge(run_entry(entry, torch_model, ms_model, torch_device=torch_device, root=root,
                                     sink=_sink))


@contextmanager
def judged_here(job: dict):
    """A Judge fed directly by the measurements taken inside the block (see run_and_judge)."""
    from .measure import Sink
    from .verdict import Judge

    global _sink
    judge = Judge(job)
    _sink = Sink(lambda record, arrays=None: judge.pair(record, arrays), "local")
    try:
        yield judge
    finally:
        _sink = None


def _pair(role: str, reference: Capture, candidate: Capture, noise=None, *, kind: str = "",
          layer: str | None = None, figures: bool = False) -> dict:
    return _sink.pair(role, reference, candidate, noise, kind=kind, layer=layer, figures=figures)


def _run_entry(entry: dict, torch_model, ms_model, *, torch_device: str, root: Path | None, progress) -> dict:
    timings: dict[str, float] = {}
    started = time.perf_counter()
    result: dict = {"inputs": entry["inputs"], "input_source": entry.get("input_source", "manifest")}
    loss_name = entry.get("loss", "mse")
    layer_map = entry.get("layer_map") or []

    def report(next_phase: str) -> None:
        _release(torch_model)  # the last phase's tensors go before the next one allocates its own
        result["timings_s"] = {k: round(v, 4) for k, v in timings.items()}
        if progress is not None:
            progress(result, next_phase)

    alignment = align(torch_model, ms_model, layer_map)
    transfer_weights(torch_model, ms_model, alignment)
    result["weights"] = alignment.to_dict()
    timings["align_transfer"] = time.perf_counter() - started
    if entry.get("checkpoint"):
        # The transferred weights as a MindSpore checkpoint, before any step changes them.
        try:
            ms.save_checkpoint(ms_model, CHECKPOINT_INSIDE)
            result["checkpoint_saved"] = True
        except Exception:  # no room in the box's home (the team's disk room caps it): the check goes on
            result["checkpoint_failed"] = True
            Path(CHECKPOINT_INSIDE).unlink(missing_ok=True)  # what it wrote of it would fill the home

    lines = _lines(torch_model, alignment, layer_map, root)
    result["config_mismatches"] = [dict(m, **_where(lines, m["layer"])) for p in alignment.pairs for m in compare_config(p)]
    ref, why = _float64_twin(torch_model)
    result["reference"] = {"float64": ref is not None, "noise_factor": tables.NOISE_FACTOR,
                           **({"reason": why} if why else {})}

    initial = InitialState(torch_model, ms_model, alignment, ref)
    # the root too: a bug in its own forward is its own. Not a parametrization (weight_norm's): what it
    # returns is a weight in each framework's own layout (Conv1d's unit height axis), checked through the
    # layer that uses it and through its parameters
    hooked = [p for p in alignment.pairs if not type(p.module).__module__.startswith(PARAMETRIZATION_MODULES)]
    seed = int(entry.get("seed", 0))
    batches = entry.get("dataset_batches")
    # The repo's first batch drives the forward checks unless the manifest gave inputs.
    from_dataset = bool(batches) and str(entry.get("input_source", "")).startswith("dataset")
    arrays = batches[0].inputs if from_dataset else fw.make_arrays(entry["inputs"], seed)
    report("forward_eval")

    # Forward, eval mode.
    t0 = time.perf_counter()
    fw.train_mode(torch_model, ms_model, False, *([ref] if ref is not None else []))
    eval_out = _forward_compare(torch_model, ms_model, hooked, arrays, torch_device, lines, ref)
    result.update(layers=eval_out["layers"], outputs=eval_out["outputs"])
    timings["forward_eval"] = time.perf_counter() - t0
    if eval_out["crash"]:
        result["crash"] = eval_out["crash"]
    if eval_out["reference_error"]:
        result["reference"].update(float64=False, reason=eval_out["reference_error"])
        initial.drop_reference(torch_model)
        ref = None  # the fixed tolerances alone judge the rest
    trainable = any(p.requires_grad for p in torch_model.parameters())

    if entry.get("mode", "both") in ("both", "train") and not eval_out["crash"]:
        report("train_step")
        t0 = time.perf_counter()
        result["random_parts_off"] = fw.train_mode(torch_model, ms_model, True, *([ref] if ref is not None else []))
        if entry.get("functional_dropout_off"):
            result["random_parts_off"].append({"side": "both", "layer": "", "what": "functional dropout is the identity: "
                                               + ", ".join(entry["functional_dropout_off"])})
        step = _train_step(torch_model, ms_model, alignment, hooked, arrays, torch_device, lines,
                           loss_name, seed, ref)
        result.update(step)
        timings["train_step"] = time.perf_counter() - t0
        steps = int(entry.get("loss_steps", 20))
        if steps > 0 and not trainable:
            result["loss_curve"] = {"skipped": "no parameters: nothing to train", "steps": 0}
        elif steps > 0:
            report("loss_curve")
            t0 = time.perf_counter()
            initial.restore(torch_model, ms_model)
            # Handed over, not shared: the loss curve frees the reference once its curve is drawn.
            handed, ref, initial = [ref], None, None
            result["loss_curve"] = _loss_curve(entry, torch_model, ms_model, alignment, torch_device, loss_name,
                                               seed, steps, handed)
            timings["loss_curve"] = time.perf_counter() - t0
    result["timings_s"] = {k: round(v, 4) for k, v in timings.items()}
    result["layer_order"] = [p.torch_path for p in alignment.pairs]  # the parent orders culprits by it
    return result


def _float64_twin(torch_model):
    """The same module, same weights, in float64: the reference PyTorch's own
    float32 round-off is measured against. None (and why) when it cannot be
    made, e.g. code that builds float32 tensors itself."""
    try:
        # Plain floating parameters go straight to float64: no float32 copy of the model in between.
        memo = {id(p): torch.nn.Parameter(p.detach().to(torch.float64, copy=True), requires_grad=p.requires_grad)
                for p in torch_model.parameters()
                if type(p) is torch.nn.Parameter and p.is_floating_point() and not vars(p)}
        return copy.deepcopy(torch_model, memo).double(), None
    except Exception as exc:  # user code (deepcopy of odd attributes)
        return None, f"no float64 copy of the module ({type(exc).__name__}: {exc}); the fixed tolerances alone apply"


def _as64(arrays) -> list:
    return fw.as_float64(arrays)


def _lines(torch_model, alignment, layer_map: list[dict], root: Path | None) -> dict[str, dict]:
    by_map = {map_path(e): e for e in layer_map if map_path(e)}
    lines = {}
    for pair in alignment.pairs:
        entry = by_map.get(pair.torch_path)
        where = layer_source(torch_model, pair.torch_path, root)
        if entry and entry.get("line"):
            where = {"file": (where or {}).get("file", ""), "line": entry["line"]}
        if where:
            lines[pair.torch_path] = where
    return lines


def _where(lines: dict, layer: str) -> dict:
    where = lines.get(layer) or {}
    return {"file": where.get("file"), "line": where.get("line")}


def _forward_compare(torch_model, ms_model, hooked, arrays, torch_device, lines, ref=None) -> dict:
    t_rec, m_rec, comparer = _recorders(hooked, lines)
    m_out, crash = None, None
    try:
        fw.REPLAY.reset()
        with torch.no_grad():
            t_out = torch_model(*fw.to_torch(arrays, torch_device))
        r_out = _reference_run(ref, hooked, t_rec, comparer, lambda: ref(*fw.to_torch(_as64(arrays), torch_device)))
        try:
            fw.REPLAY.reset()
            m_out = ms_model(*fw.to_ms(arrays))
        except Exception as exc:  # keep what the hooks saw up to the crash
            crash = f"MindSpore forward raised {type(exc).__name__}: {str(exc).strip().splitlines()[0][:300]}"
    finally:
        t_rec.detach()
        m_rec.detach()
    layers = comparer.layers()
    outputs = [{"index": 0, "crash": crash}] if crash else _compare_outputs(t_out, m_out, r_out, figures=True)
    return {"layers": layers, "outputs": outputs, "crash": crash, "reference_error": comparer.reference_error}


def _reference_run(ref, hooked, t_rec, comparer, call):
    """Run the float64 twin through `call` with hooks on the same layers, and
    hand the comparer PyTorch's float32-vs-float64 error per layer call."""
    if ref is None:
        return None
    modules = dict(ref.named_modules())
    r_rec = fw.Recorder("torch").attach([(p.torch_path, modules[p.torch_path]) for p in hooked
                                         if p.torch_path in modules])
    fw.REPLAY.reset()
    try:
        with torch.set_grad_enabled(comparer.training):
            out = call()
    except Exception as exc:  # float64 unsupported somewhere in user code: floors only
        comparer.reference_error = f"the float64 reference failed ({type(exc).__name__}: {str(exc)[:200]})"
        return None
    finally:
        r_rec.detach()
    for path, calls in r_rec.calls.items():
        for index, (r_in, r_out) in enumerate(calls):
            t_calls = t_rec.calls.get(path, [])
            if index < len(t_calls):
                t_in, t_out = t_calls[index]
                comparer.noise[(path, index)] = (noise_of(t_in, r_in), noise_of(t_out, r_out))
            for capture in (r_in, r_out):
                if capture is not None:
                    capture.release()
    return out


def _compare_outputs(t_out, m_out, r_out=None, figures: bool = False) -> list[dict]:
    """Output rows: each a measured pair, or a note that one side has no such output."""
    t_arrays, m_arrays = fw.flat_tensors(t_out, "torch"), fw.flat_tensors(m_out, "ms")
    r_arrays = fw.flat_tensors(r_out, "torch") if r_out is not None else []
    outputs = []
    for index, t in enumerate(t_arrays):
        if index >= len(m_arrays):
            outputs.append({"index": index, "missing": "mindspore"})
            continue
        noise = noise_of(Capture(t), Capture(r_arrays[index])) if index < len(r_arrays) else None
        outputs.append(dict(index=index, **_pair("output", Capture(t), Capture(m_arrays[index]), noise,
                                                  kind="output", figures=figures and index == 0)))
    if len(m_arrays) > len(t_arrays):
        outputs.append({"index": len(t_arrays), "missing": "torch"})
    return outputs


class LayerComparer:
    """Called from the MindSpore hooks: sends each call's tensors with the
    PyTorch capture of the same layer and call index, then frees both.
    `noise[(path, call)]` holds PyTorch's own float32-vs-float64 error of that
    call's (input, output) when the float64 reference ran."""

    def __init__(self, torch_recorder, hooked, lines, training: bool = False) -> None:
        self.torch = torch_recorder
        self.pairs = {p.torch_path: p for p in hooked}
        self.lines = lines
        self.training = training
        self.rows: dict[tuple[str, int], dict] = {}
        self.noise: dict[tuple[str, int], tuple[float | None, float | None]] = {}
        self.reference_error: str | None = None

    def __call__(self, path: str, call: int, m_in, m_out) -> None:
        t_calls = self.torch.calls.get(path, [])
        if call >= len(t_calls):
            return  # MindSpore called it more often: reported from the PyTorch side's view
        t_in, t_out = t_calls[call]
        noise_in, noise_out = self.noise.get((path, call), (None, None))
        row: dict = {}
        if t_out is None or m_out is None:
            row["no_tensor"] = True
        else:
            pair = self.pairs[path]
            row["out"] = _pair("layer", t_out, m_out, noise_out, kind=pair.torch_type, layer=path)["pair"]
            if t_in is not None and m_in is not None:
                row["in"] = _pair("input", t_in, m_in, noise_in, kind="input")["pair"]
        for capture in (t_in, t_out):
            if capture is not None:
                capture.release()
        self.rows[(path, call)] = row

    def layers(self) -> list[dict]:
        """Rows in PyTorch execution order (the parent judges them)."""
        layers = []
        for path, call in self.torch.order:
            pair = self.pairs[path]
            row = {"path": path, "call": call, "torch_type": pair.torch_type, "mindspore_type": pair.ms_type,
                   "mindspore_path": pair.ms_path, **_where(self.lines, path)}
            if not path:
                row["root"] = True
            found = self.rows.get((path, call))
            if found is None:
                row["missing"] = True  # not called (this many times) in MindSpore
            else:
                row.update(found)
            layers.append(row)
        return layers


def _recorders(hooked, lines, training: bool = False):
    t_rec = fw.Recorder("torch").attach([(p.torch_path, p.module) for p in hooked])
    comparer = LayerComparer(t_rec, hooked, lines, training)
    m_rec = fw.Recorder("ms", on_call=comparer).attach([(p.torch_path, p.cell) for p in hooked])
    return t_rec, m_rec, comparer


def _train_step(torch_model, ms_model, alignment, hooked, arrays, torch_device, lines, loss_name, seed,
                ref=None):
    """One train-mode forward (hooked), backward and plain SGD step on both
    sides and on the float64 reference; compares layer outputs, gradients
    (parameters and input) and the state afterwards (updated parameters,
    buffers such as running statistics and masks)."""
    t_loss_fn, m_loss_fn = fw.LOSSES[loss_name]
    t_inputs = fw.to_torch(arrays, torch_device, grad=True)
    m_inputs = fw.to_ms(arrays)
    t_rec, m_rec, comparer = _recorders(hooked, lines, training=True)
    params = [link for link in alignment.links if link.kind == "parameter" and link.ms_param.requires_grad]
    ms_weights = [link.ms_param for link in params]
    float_pos = tuple(i for i, a in enumerate(arrays) if isinstance(a, np.ndarray) and np.issubdtype(a.dtype, np.floating))
    r_inputs, m_grads_raw = None, None
    try:
        torch_model.zero_grad(set_to_none=True)
        fw.REPLAY.reset()
        t_out = torch_model(*t_inputs)
        t_first = fw.first_tensor(t_out, "torch")
        target = fw.make_target(loss_name, t_first.detach().cpu().numpy(), seed)
        t_loss = t_loss_fn(t_first, fw.to_torch([target], torch_device)[0])
        t_loss.backward()
        r_loss = None
        if ref is not None:
            ref.zero_grad(set_to_none=True)
            r_inputs = fw.to_torch(_as64(arrays), torch_device, grad=True)
            box = {}

            def ref_call():
                full = ref(*r_inputs)
                box["loss"] = t_loss_fn(fw.first_tensor(full, "torch"), fw.to_torch(_as64([target]), torch_device)[0])
                box["loss"].backward()
                return full

            box["out"] = _reference_run(ref, hooked, t_rec, comparer, ref_call)
            r_loss = box.get("loss")
        # PyTorch's step and the reference's noise now, so the float64 gradients are gone before MindSpore runs.
        grad_noise, state_noise = _step_torch(params, alignment.links, ref)
        m_target = fw.to_ms([target])[0]
        m_out_holder = []

        def forward(*xs):
            fw.REPLAY.reset()
            out = ms_model(*xs)
            m_out_holder.append(out)
            return m_loss_fn(fw.first_tensor(out, "ms"), m_target)

        if ms_weights or float_pos:
            grad_fn = ms.value_and_grad(forward, grad_position=float_pos or None, weights=ms_weights or None)
            m_loss, m_grads_raw = grad_fn(*m_inputs)
        else:  # nothing to differentiate: the forward (and its buffers) still count
            m_loss = forward(*m_inputs)
    finally:
        t_rec.detach()
        m_rec.detach()
    m_in_grads, m_w_grads = (), ()
    if m_grads_raw is not None:
        if float_pos and ms_weights:
            m_in_grads, m_w_grads = m_grads_raw
        elif float_pos:
            m_in_grads = m_grads_raw
        else:
            m_w_grads = m_grads_raw
        m_in_grads = m_in_grads if isinstance(m_in_grads, tuple) else (m_in_grads,)
    m_grads_raw, m_w_grads = None, list(m_w_grads)  # a list: each gradient is freed once stepped

    layers = comparer.layers()
    r_first = box.get("out") if ref is not None else None
    outputs = _compare_outputs(t_out, m_out_holder[0] if m_out_holder else None, r_first)
    kinds = {p.torch_path: p.torch_type for p in alignment.pairs}
    gradients = []
    for link, m_grad in zip(params, m_w_grads):
        t_arr = _grad_array(link)
        m_arr = m_grad.asnumpy().reshape(t_arr.shape) if m_grad.size == t_arr.size else m_grad.asnumpy()
        gradients.append({"name": link.torch_name, "mindspore_name": link.ms_name, "layer": link.layer,
                          **_where(lines, link.layer),
                          **_pair("gradient", Capture(t_arr), Capture(m_arr), grad_noise.get(link.torch_name),
                                  kind=kinds.get(link.layer, ""), layer=link.layer)})
        del m_arr
    input_gradients = []
    for pos, m_grad in zip(float_pos, m_in_grads):
        t_grad = t_inputs[pos].grad
        if t_grad is None:
            continue
        r_grad = r_inputs[pos].grad if r_inputs is not None else None
        t_cap = Capture(t_grad.cpu().numpy())
        noise = noise_of(t_cap, Capture(r_grad.cpu().numpy())) if r_grad is not None else None
        input_gradients.append({"input": pos, **_pair("input_gradient", t_cap, Capture(m_grad.asnumpy()), noise,
                                                      kind="input")})

    # The same plain SGD step on MindSpore (PyTorch took it above), then every linked tensor compared
    # (parameters and buffers).
    for index, link in enumerate(params[:len(m_w_grads)]):
        link.ms_param.set_data(link.ms_param - STATE_STEP_LR * m_w_grads[index])
        m_w_grads[index] = None
    torch_model.zero_grad(set_to_none=True)  # the loss curve starts from fresh gradients anyway
    state = []
    for link in alignment.links:
        t_arr = link.tensor.detach().cpu().numpy()
        m_arr = link.ms_param.asnumpy().reshape(t_arr.shape)
        noise = state_noise.get(link.torch_name)
        state.append({"name": link.torch_name, "mindspore_name": link.ms_name, "layer": link.layer, "kind": link.kind,
                      **_where(lines, link.layer),
                      **_pair("state", Capture(t_arr), Capture(m_arr), noise, kind=kinds.get(link.layer, ""),
                              layer=link.layer)})
    loss_pair = {"torch": float(t_loss.item()), "mindspore": float(m_loss.asnumpy())}
    if ref is not None and r_loss is not None:
        loss_pair["torch_float64"] = float(r_loss.item())
    step = {"layers_train": layers, "outputs_train": outputs, "loss_train_step": loss_pair,
            "gradients": gradients, "input_gradients": input_gradients, "state_after_step": state}
    if not params:
        step["gradients_note"] = "no parameters: forward and buffers checked, nothing to differentiate"
    if comparer.reference_error:
        step["reference_error_train"] = comparer.reference_error
    return step


def _grad_array(link) -> np.ndarray:
    grad = link.tensor.grad
    return np.zeros(tuple(link.tensor.shape), np.float32) if grad is None else grad.detach().cpu().numpy()


def _step_torch(params, links, ref) -> tuple[dict, dict]:
    """PyTorch's plain SGD step, and the float64 reference's noise at each
    gradient and each linked tensor after the step (by PyTorch name). The
    reference is not stepped in place: its after-step tensors are made one at
    a time (its weights stay the initial ones, see snapshot.py), and its
    gradients are freed before MindSpore runs."""
    r_tensors = _named_tensors(ref)
    grad_noise = {}
    for link in params:
        r_grad = getattr(r_tensors.get(link.torch_name), "grad", None)
        if r_grad is not None:
            grad_noise[link.torch_name] = noise_of(Capture(_grad_array(link)), Capture(r_grad.detach().cpu().numpy()))
    stepped = set()
    with torch.no_grad():
        for link in params:
            if link.tensor.grad is not None:
                link.tensor -= STATE_STEP_LR * link.tensor.grad
            r_param = r_tensors.get(link.torch_name)
            if r_param is not None and r_param.grad is not None:
                stepped.add(link.torch_name)
    state_noise = {}
    for link in links:
        r_tensor = r_tensors.get(link.torch_name)
        if r_tensor is None or not r_tensor.is_floating_point():
            continue
        with torch.no_grad():
            r_after = r_tensor - STATE_STEP_LR * r_tensor.grad if link.torch_name in stepped else r_tensor
        state_noise[link.torch_name] = noise_of(Capture(link.tensor.detach().cpu().numpy()),
                                                Capture(r_after.detach().cpu().numpy()))
        del r_after
    if ref is not None:
        ref.zero_grad(set_to_none=True)
    return grad_noise, state_noise


def _named_tensors(model) -> dict:
    if model is None:
        return {}
    return {**dict(model.named_buffers()), **dict(model.named_parameters())}


def _loss_curve(entry, torch_model, ms_model, alignment, torch_device, loss_name, seed, steps,
                handed: list | None = None) -> dict:
    """N optimizer steps from identical weights over identical batches, the
    float64 twin alongside: its distance from PyTorch float32 at each step is
    the noise band MindSpore is judged against (rtol is the floor). The twin
    (handed over in a list, the only reference to it) takes its N steps
    first and is freed before the two frameworks take theirs."""
    ref = handed.pop() if handed else None
    t_loss_fn, m_loss_fn = fw.LOSSES[loss_name]
    torch_spec = entry.get("optimizer") or {"name": "SGD", "lr": 0.01}
    ms_spec = entry.get("converted_optimizer") or torch_spec
    t_opt = fw.torch_optimizer(torch_spec, torch_model.parameters())
    t_sched = fw.scheduler(entry.get("scheduler"), t_opt, "torch")
    drawn = entry.get("dataset_batches")
    if drawn:
        batches = [b.inputs for b in drawn]
        origin = {"source": "dataset", "class": entry["dataset"]["class"],
                  "batch_size": int(entry["dataset"].get("batch_size", 8))}
    else:
        # A few batches, cycled: their targets are learnable, so the curve goes down without one
        # extra reference forward per step.
        count = int(entry.get("batches", min(max(steps, 1), tables.RANDOM_BATCHES)))
        batches = [fw.make_arrays(entry["inputs"], seed + 1 + b) for b in range(count)]
        origin = {"source": "random", "spec": entry["inputs"]}
    n_batches = len(batches)
    with torch.no_grad():
        torch_model.eval()
        refs = [fw.first_tensor(torch_model(*fw.to_torch(b, torch_device)), "torch").cpu().numpy()
                for b in (batches if not drawn else batches[:1])]
        fw.train_mode(torch_model, ms_model, True, *([ref] if ref is not None else []))
    if drawn and drawn[0].label is not None:
        targets = [dataset_target(loss_name, b.label, refs[0]) for b in drawn]
        origin["targets"] = "the dataset's labels"
    else:
        targets = [fw.learnable_target(loss_name, out, seed + 100 + b) for b, out in enumerate(refs)]
        origin["targets"] = fw.LEARNABLE_TARGET_NOTE[loss_name]
    origin.update(count=n_batches, digests=[Batch(fw.flat_arrays(a), t).digest() for a, t in zip(batches, targets)])
    box = {}

    def forward(*xs):
        return m_loss_fn(fw.first_tensor(ms_model(*xs), "ms"), box["target"])

    r_curve = _reference_curve(entry, ref, torch_spec, batches, targets, torch_device, t_loss_fn, steps)
    del ref
    _release(torch_model)
    # MindSpore's optimizer only now: its state (SGD keeps an accumulator even without momentum) is
    # not held beside the reference's gradients.
    m_params = ms_model.trainable_params()
    m_opt, m_opt_name = fw.ms_optimizer(ms_spec, m_params)
    m_sched = fw.scheduler(entry.get("converted_scheduler") or entry.get("scheduler"), m_opt, "ms")
    grad_fn = ms.value_and_grad(forward, None, weights=m_params)
    t_curve, m_curve = [], []
    for step in range(steps):
        arrays, target = batches[step % n_batches], targets[step % n_batches]
        t_opt.zero_grad(set_to_none=True)
        fw.REPLAY.reset(step)
        t_out = fw.first_tensor(torch_model(*fw.to_torch(arrays, torch_device)), "torch")
        t_loss = t_loss_fn(t_out, fw.to_torch([target], torch_device)[0])
        t_loss.backward()
        t_opt.step()
        t_opt.zero_grad(set_to_none=True)  # freed now, not at the next step: one framework's gradients at a time
        box["target"] = fw.to_ms([target])[0]
        fw.REPLAY.reset(step)
        m_loss, grads = grad_fn(*fw.to_ms(arrays))
        m_opt(grads)
        del grads
        for sched in (t_sched, m_sched):
            if sched is not None:
                sched.step()
        t_curve.append(float(t_loss.item()))
        m_curve.append(float(m_loss.asnumpy()))
    curve = {"torch": t_curve, "mindspore": m_curve, "steps": steps,
             "optimizer": {"torch": torch_spec, "mindspore": ms_spec, "mindspore_class": m_opt_name,
                           "scheduler": entry.get("scheduler"),
                           "converted_scheduler": entry.get("converted_scheduler") or entry.get("scheduler")},
             "loss": loss_name, "batches": origin, "mode": "train, random parts off"}
    if r_curve:
        curve["torch_float64"] = r_curve
    return curve


def _reference_curve(entry, ref, torch_spec, batches, targets, torch_device, t_loss_fn, steps) -> list[float]:
    """The float64 twin's losses over the same steps (its own optimizer and
    schedule, the same replayed draws per step)."""
    if ref is None:
        return []
    r_opt = fw.torch_optimizer(torch_spec, ref.parameters())
    r_sched = fw.scheduler(entry.get("scheduler"), r_opt, "torch")
    curve = []
    for step in range(steps):
        arrays, target = batches[step % len(batches)], targets[step % len(batches)]
        r_opt.zero_grad(set_to_none=True)
        fw.REPLAY.reset(step)
        r_out = fw.first_tensor(ref(*fw.to_torch(_as64(arrays), torch_device)), "torch")
        r_loss = t_loss_fn(r_out, fw.to_torch(_as64([target]), torch_device)[0])
        r_loss.backward()
        r_opt.step()
        r_opt.zero_grad(set_to_none=True)
        if r_sched is not None:
            r_sched.step()
        curve.append(float(r_loss.item()))
    return curve


def _release(torch_model) -> None:
    """Freed tensors back to the system: a collection, then glibc's free
    heap pages returned (tensors below its mmap threshold live in the heap).
    It costs ~0.2 s: done only where the weights' copies dominate memory."""
    if sum(p.numel() * p.element_size() for p in torch_model.parameters()) < RELEASE_ABOVE_BYTES:
        return
    gc.collect()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def dataset_target(loss_name: str, label: np.ndarray, output: np.ndarray) -> np.ndarray:
    """A dataset's labels as the loss's target: class ids for cross entropy,
    the output's float dtype otherwise; shapes checked against the model's
    output so a mismatch is named instead of failing inside a loss."""
    if loss_name == "cross_entropy":
        want, target = output.shape[:-1], label.astype(np.int64)
    else:
        want, target = output.shape, label.astype(output.dtype)
    if tuple(target.shape) != tuple(want):
        raise DatasetError(f"labels of shape {list(target.shape)} do not fit the {loss_name} loss on the model's "
                           f"output of shape {list(output.shape)} (it needs {list(want)})")
    return target
