"""Child-process entry of a parity run (started by analysis.sandbox): one
entry point per box, so nothing a previous entry's code did is still there.

It measures and sends data through the channel (analysis/sandbox/channel.py):
the compared tensors as they are taken (measure.py), the result so far after
each phase, the final result, and the checkpoint as a file for the one slot
the parent declared. The parent judges (verdict.py).

The original and converted trees usually share package names (models.lenet
in both), so each side is imported with its tree alone on sys.path and its
modules dropped from sys.modules afterwards; the classes stay usable.
"""
from __future__ import annotations

import json
import os
import re
import sys
import traceback
from pathlib import Path

from . import arguments, dataset, sizes, within
from .loader import CALLED as stub_calls

FILE_CHUNK = 16 << 20
CHECKPOINT_SLOT = "checkpoint"


def _sender(channel):
    from .compare import json_safe

    def send(record: dict, arrays: dict | None = None) -> None:
        channel.send(json_safe(record), arrays)

    return send


def _send_file(channel, path: str, slot: str) -> None:
    """A file of the box's home to the parent's slot, in chunks; removed here after."""
    import numpy as np

    with open(path, "rb") as fh:
        while True:
            chunk = fh.read(FILE_CHUNK)
            last = len(chunk) < FILE_CHUNK
            channel.send({"event": "file", "slot": slot, "last": last}, {"data": np.frombuffer(chunk, np.uint8)})
            if last:
                break
    os.unlink(path)


def _purge(tree: str) -> None:
    """Drop the tree's modules from sys.modules. Names are collected before
    any is deleted: a namespace package's path is recomputed from its parent's
    entry, which must still be there (a tree whose code sits in one folder
    without __init__.py otherwise fails with KeyError: '<folder>')."""
    root = str(Path(tree).resolve())
    doomed = []
    for name, module in list(sys.modules.items()):
        spec = getattr(module, "__spec__", None)
        file = getattr(spec, "origin", None) or ""
        try:
            locations = list(getattr(spec, "submodule_search_locations", None) or [])
            inside = str(file).startswith(root) or any(str(p).startswith(root) for p in locations)
        except Exception:  # exotic module objects (torch's class namespaces), stale namespace paths
            inside = False
        if inside:
            doomed.append(name)
    for name in doomed:
        sys.modules.pop(name, None)


def _resources() -> dict:
    """Peak virtual and resident memory of this child so far (MiB)."""
    fields = {"VmPeak": "vm_peak_mb", "VmHWM": "rss_peak_mb"}
    out = {}
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                key = line.split(":", 1)[0]
                if key in fields:
                    out[fields[key]] = int(line.split()[1]) // 1024
    except OSError:
        pass
    return out


_LOADED: dict = {"from": None}  # (tree, folder) whose modules sys.modules holds now


def load_class(tree: str, module: str, class_name: str, notes: dict | None = None):
    """A class or function of the tree (see loader.load). Loads from one tree
    and folder share its modules, so a class handed to another as an argument
    is the class that one's module checks with isinstance
    (`assert isinstance(net, SirenNet)`); the modules are dropped from
    sys.modules before a load from the other tree (which reuses the names) or
    from another folder (whose script imports its own sibling `model`)."""
    from .loader import load, module_file

    path = module_file(Path(tree), module)
    here = (tree, str(path.parent) if path is not None else "")
    if _LOADED["from"] not in (None, here):
        _purge(_LOADED["from"][0])
    _LOADED["from"] = here
    try:
        found, info = load(tree, module, class_name)
    except BaseException:
        _purge(tree)
        _LOADED["from"] = None
        raise
    if notes is not None:
        for key, values in info.items():
            notes.setdefault(key, [])
            notes[key] += [v for v in values if v not in notes[key]]
    return found


def main(payload_path: str, channel) -> None:
    payload = json.loads(Path(payload_path).read_text())
    from analysis.sandbox import lockdown

    import numpy  # noqa: F401  (trusted imports before lockdown)
    import torch

    import mindspore  # noqa: F401

    from . import checks
    from . import frameworks as fw
    from . import zoo
    from .measure import Sink

    zoo.zoo_models([])  # the model-zoo table is read before lockdown

    send = _sender(channel)
    torch.set_num_threads(int(payload.get("threads", 2)))
    device = payload.get("device", "cpu")
    unavailable, devices = None, {}
    try:
        torch_device, ms_target = fw.setup(device)
        devices = {"torch": torch_device, "mindspore": ms_target}
    except fw.DeviceUnavailable as exc:
        unavailable = f"device {device} not available on this worker: {exc}"
    if unavailable is None:
        _warm_up(torch_device)
    dropout_off = fw.disable_functional_dropout()  # every random part off, on both sides
    dropout_off.append("random draws replayed from one seeded generator: " + ", ".join(fw.REPLAY.install()))
    send({"protections": lockdown()})
    job = payload["job"]
    send({"event": "start", "key": job["key"]})
    if unavailable:
        send({"event": "result", "key": job["key"], "result": {"status": "error", "reason": unavailable}})
        return
    job["functional_dropout_off"] = dropout_off
    try:
        result = run_job(job, torch_device, checks, fw, _progress(send, job["key"]), Sink(send, job["key"]))
    except Exception as exc:  # user code failed somewhere: report
        result = {"status": "error", "reason": f"{type(exc).__name__}: {exc}",
                  "traceback": traceback.format_exc()[-4000:]}
    result["resources"] = _resources()
    result["devices"] = devices
    if result.get("checkpoint_saved"):
        _send_file(channel, checks.CHECKPOINT_INSIDE, CHECKPOINT_SLOT)
    send({"event": "result", "key": job["key"], "result": result})


def _warm_up(torch_device: str) -> None:
    """A tiny forward, gradient and step on both sides before the entry's clock starts:
    the frameworks' first-call set-up (kernel selection, autograd, optimizer graphs)
    belongs to the startup allowance, not to the entry's timeout, now that every entry
    has a fresh box."""
    import numpy as np
    import torch

    import mindspore as ms

    layer = torch.nn.Linear(4, 2).to(torch_device)
    layer(torch.ones(3, 4, device=torch_device)).sum().backward()
    cell = ms.nn.Dense(4, 2)
    grad_fn = ms.value_and_grad(lambda x: cell(x).sum(), None, weights=cell.trainable_params())
    _, grads = grad_fn(ms.Tensor(np.ones((3, 4), np.float32)))
    ms.nn.SGD(cell.trainable_params(), learning_rate=0.1)(grads)


PHASE_WORDS = {
    "import": "importing the PyTorch class", "construct": "constructing the PyTorch module",
    "dataset": "loading the dataset", "inputs": "inferring the input shape",
    "import_converted": "importing the MindSpore cell", "construct_converted": "constructing the MindSpore cell",
}


def _progress(send, key: str):
    """The result so far after each phase, so a timeout keeps it."""
    def emit(result: dict, next_phase: str) -> None:
        send({"event": "partial", "key": key, "phase": next_phase, "result": result})

    return emit


def run_job(job: dict, torch_device: str, checks, fw, progress=None, sink=None) -> dict:
    result = _run_job(job, torch_device, checks, fw, progress, sink)
    if job.get("sizes_rejected"):  # built at other sizes than discovery chose (_other_sizes): the report says which
        result.update({k: job[k] for k in ("sizes_rejected", "chosen_sizes", "kwargs")})
    if job.get("within_also"):  # which of the parents held the block (within.submodule sets job["within"])
        result["within_used"] = job["within"]
    return result


def _run_job(job: dict, torch_device: str, checks, fw, progress=None, sink=None) -> dict:
    import torch

    import mindspore as ms

    entry = dict(job)
    phase = "importing the PyTorch class"

    def at(key: str) -> str:
        if progress is not None:
            progress({"inputs": entry.get("inputs")} if entry.get("inputs") else {}, key)
        return PHASE_WORDS[key]

    try:
        at("import")
        notes: dict = {}
        entry["load_notes"] = notes
        target = job.get("factory") or job["class"]
        if job.get("within"):  # a block as its parent builds it
            try:
                sub, entry["within_path"], parent = within.submodule(job, job["original_dir"], load_class, notes,
                                                                     torch.nn.Module)
            except within.NotBuilt as exc:
                return dict(arguments.hint_reason(job, None, f"built only inside another module, and {exc}",
                                                  inputs=True), load_notes=notes)
            torch_cls = _returning(sub)
        else:
            torch_cls = load_class(job["original_dir"], job["module"], job.get("instance") or target, notes)
            stub_calls.clear()  # what the module's own top level called is not this class's doing
        if job.get("instance"):  # a module-level object (`G = nn.Sequential(...)`): checked as it is
            if not isinstance(torch_cls, torch.nn.Module):
                return {"status": "skipped", "reason": f"{job['instance']} in {job['module']} is not a torch.nn.Module"}
            torch_cls = _returning(torch_cls)
        if job.get("factory") or job.get("instance") or job.get("within"):
            if not callable(torch_cls):
                return {"status": "error", "reason": f"{target} in {job['module']} is not a function"}
        elif not (isinstance(torch_cls, type) and issubclass(torch_cls, torch.nn.Module)):
            return {"status": "skipped", "reason": f"{job['class']} is not a torch.nn.Module"}
        phase = at("construct")
        fw.seed_all(int(job.get("seed", 0)))
        args = arguments.resolve(job.get("args", []), job["original_dir"], load_class, notes)
        kwargs = arguments.resolve(job.get("kwargs", {}), job["original_dir"], load_class, notes)
        missing = arguments.unbound(torch_cls, args, kwargs)
        if missing:
            builders = job.get("built_only_by") or []
            if builders:  # a person adds a call of its builder (with values), or the block's own arguments
                names = " or ".join(f"{b.split(':')[1]}()" for b in builders)
                key, target = builders[0].split(" ", 1)
                missing += (f"; the repository builds it only inside {names}, which nothing in it calls: a "
                            f"porting.toml entry calling it ({key} = \"{target}\" with its kwargs) checks the model "
                            "that holds it, or give this block's own arguments")
            return dict(arguments.hint_reason(job, torch_cls, f"constructor needs arguments ({missing})"),
                        load_notes=notes)
        try:
            torch_model = torch_cls(*args, **kwargs)
        except Exception as exc:
            torch_model = _other_sizes(exc, job, torch_cls, args, notes, fw)
            if torch_model is None:
                failure = _original_constructor_failure(exc, job, entry.get("load_notes"), torch_cls)
                if failure is None:
                    raise
                return dict(failure, load_notes=notes)
        if not isinstance(torch_model, torch.nn.Module):
            return {"status": "skipped", "reason": f"{target}() returned a {type(torch_model).__name__}, "
                                                   "not a torch.nn.Module"}
        torch_model = torch_model.to(torch_device)
        spec = job.get("dataset")
        if spec:
            phase = at("dataset") + f" {spec['class']}"
            entry["dataset_batches"] = _dataset_batches(job, spec)
            if not job.get("inputs"):
                entry["inputs"] = dataset.input_specs(entry["dataset_batches"][0])
                entry["input_source"] = f"dataset {spec['class']}"
        if not entry.get("inputs") and job.get("within"):
            phase = at("inputs")
            recorded = _inputs_inside(job, parent, entry["within_path"], sub, torch_device, checks, fw) or []
            entry["inputs"] = [spec for spec in recorded if "constant" not in spec] or None
            constants = {spec["name"]: spec["constant"] for spec in recorded if "constant" in spec}
            if entry["inputs"]:
                entry["input_source"] = f"what {job['within']['class']}'s forward passes {entry['within_path']}"
                if constants:  # bound on both sides; the specs (what is drawn, compared, differentiated) stay tensors
                    entry["input_constants"] = constants
                    entry["input_source"] += " (with " + ", ".join(f"{k}={v!r}" for k, v in constants.items()) + ")"
        if not entry.get("inputs"):
            phase = at("inputs")
            specs, how = checks.infer_inputs(torch_model, torch_device, job.get("shape_hints"))
            if specs is None:
                stubs = notes.get("stubbed_modules") or []
                if stubs and not any(True for _ in torch_model.parameters()):  # built of stubs: nothing to feed
                    return {"status": "skipped", "missing_modules": stubs, "load_notes": notes,
                            "reason": _zoo_reason(phase) or
                                      f"{how}: the module holds no parameters, its layers come from "
                                      f"{', '.join(stubs)}, which does not import here and was replaced by a "
                                      f"stub; {_what_to_add(stubs)}"}
                return dict(arguments.hint_reason(job, torch_cls, how, inputs=True, forward_of=torch_model),
                            load_notes=notes)
            entry["inputs"], entry["input_source"] = specs, how
        phase = at("import_converted")
        try:
            if job.get("within"):
                ms_cls = _returning(within.submodule(job, job["converted_dir"], load_class, notes, ms.nn.Cell,
                                                     path=entry["within_path"])[0])
            else:
                ms_cls = load_class(job["converted_dir"], job["module"], job.get("instance") or target, notes)
            if job.get("instance"):
                ms_cls = _returning(ms_cls)
        except within.NotBuilt as exc:
            return {"status": "error", "reason": f"converted tree: {exc}", "inputs": entry["inputs"]}
        except (ImportError, AttributeError) as exc:
            return {"status": "error", "reason": f"converted tree has no {job['module']}.{job['class']}: {exc}",
                    "inputs": entry["inputs"]}
        if not (job.get("factory") or job.get("instance") or job.get("within")) and not (isinstance(ms_cls, type) and issubclass(ms_cls, ms.nn.Cell)):
            return {"status": "error", "reason": f"converted {job['class']} is not a mindspore.nn.Cell"}
        phase = at("construct_converted")
        ms_model = ms_cls(*arguments.resolve(job.get("args", []), job["converted_dir"], load_class, notes, True),
                          **arguments.resolve(job.get("kwargs", {}), job["converted_dir"], load_class, notes, True))
        if not isinstance(ms_model, ms.nn.Cell):
            return {"status": "error", "reason": f"converted {target}() returned a {type(ms_model).__name__}, "
                                                 "not a mindspore.nn.Cell"}
        names = [spec.get("name") for spec in entry["inputs"]]
        constants = entry.get("input_constants")
        if any(names) or constants:
            fw.keyword_inputs(torch_model, names, "forward", constants)
            fw.keyword_inputs(ms_model, names, "construct", constants)
        if job.get("inputs"):  # given by the manifest or a call site (inference has run the forward already)
            phase = "the original PyTorch forward"
            failure = _original_forward_failure(torch_model, entry["inputs"], torch_device, fw)
            if failure:
                return {"status": "torch_fail", "inputs": entry["inputs"], "load_notes": notes,
                        "reason": f"the original PyTorch forward fails on these inputs, before any conversion: "
                                  f"{failure}"}
        phase = "running the checks"
        result = checks.run_entry(entry, torch_model, ms_model, torch_device=torch_device,
                                  root=Path(job["original_dir"]), progress=progress, sink=sink)
        result["load_notes"] = notes
        if entry.get("within_path"):
            result["within_path"] = entry["within_path"]
        return result
    except dataset.DatasetError as exc:
        return {"status": "error", "reason": f"dataset {job['dataset']['class']}: {exc}",
                "traceback": traceback.format_exc()[-4000:], "inputs": entry.get("inputs")}
    except Exception as exc:
        stubs = (entry.get("load_notes") or {}).get("stubbed_modules")
        missing = _stub_blamed(stubs or [], f"{exc}\n{traceback.format_exc()}")
        if missing:  # a library that does not import here, not a conversion error: what to add is the library
            return {"status": "skipped", "reason": _zoo_reason(phase) or
                                                   f"{phase}: needs {', '.join(missing)}, which does not import "
                                                   f"here and was replaced by a stub ({type(exc).__name__}: "
                                                   f"{str(exc)[:200]}); {_what_to_add(missing)}",
                    "missing_modules": missing, "load_notes": entry.get("load_notes"),
                    "traceback": traceback.format_exc()[-4000:], "inputs": entry.get("inputs")}
        hint = (f" (modules replaced by stubs because they do not import here: {', '.join(stubs)})"
                if stubs and "stub" in f"{exc}{traceback.format_exc()}".lower() else "")
        return {"status": "error", "reason": f"{phase}: {type(exc).__name__}: {exc}{hint}",
                "load_notes": entry.get("load_notes"),
                "traceback": traceback.format_exc()[-4000:], "inputs": entry.get("inputs")}


def _zoo_reason(phase: str) -> str:
    """'' unless the construction called a stubbed model-zoo constructor: then that is what to add."""
    from . import zoo

    models = zoo.zoo_models(stub_calls)
    return f"{phase}: {zoo.zoo_reason(models)}" if models else ""


def _stub_blamed(stubs: list[str], text: str) -> list[str]:
    """The stubbed modules an error names (a stub's class is called after its
    module path: `torchvision.models.resnet152`), or the one stub when the
    error mentions stubs at all."""
    named = [s for s in stubs if re.search(rf"(?<![\w.]){re.escape(s)}\.", text)]
    if named:
        return named
    return list(stubs) if len(stubs) == 1 and "stub" in text.lower() else []


def _what_to_add(modules: list[str]) -> str:
    from .dependencies import WORKER_OWNED

    owned = [m for m in modules if m.replace("_", "-").lower() in WORKER_OWNED]
    if owned:
        return (f"{', '.join(owned)} belongs to the worker's own installation, which must provide one that imports "
                "with its torch (a deployment fix)")
    return (f"declare {', '.join(modules)} in requirements.txt or pyproject.toml so the check installs it "
            "(with the dependency layer on), or vendor it in the tree")


def _original_constructor_failure(exc: Exception, job: dict, notes: dict | None, torch_cls) -> dict | None:
    """The result when the repository's own constructor fails with the arguments its call site
    gives (`LambdaLayer(n = 64 * 64)` asking for petabytes): not the conversion's doing, nor the
    check's. None where the failure is a stub's, the sandbox's refusal (an OSError: no network, no
    file outside), or an allocation a machine could satisfy (then the memory ceiling stopped it: an
    error that says what to raise)."""
    if isinstance(exc, OSError):
        return None  # the box refused it (a socket, a download, a file outside): an error that says so
    text = f"{exc}\n{traceback.format_exc()}"
    if _stub_blamed((notes or {}).get("stubbed_modules") or [], text):
        return None
    asked = re.search(r"tried to allocate (\d+) bytes", str(exc))
    if isinstance(exc, MemoryError) or (asked and int(asked.group(1)) <= _physical_memory()):
        return None
    chosen = {**(job.get("stand_ins") or {}), **(job.get("chosen_sizes") or {})}
    if chosen:  # values the checker picked, not the repository's: a person gives real ones
        return arguments.hint_reason(job, torch_cls, f"the PyTorch constructor fails with the sizes the checker "
                                                     f"chose ({type(exc).__name__}: {str(exc)[:200]})")
    where = f" (from {job['arguments_from']})" if job.get("arguments_from") else ""
    size = f"; it asked for {int(asked.group(1)):,} bytes, more than this machine has" if asked else ""
    return {"status": "torch_fail", "reason": f"the original PyTorch constructor fails with these arguments{where}, "
                                              f"before any conversion: {type(exc).__name__}: {exc}{size}",
            "traceback": traceback.format_exc()[-4000:]}


def _other_sizes(exc: Exception, job: dict, torch_cls, args: list, notes: dict, fw):
    """The PyTorch model built at other sizes when the constructor's own check rejects those the checker
    chose (`if kernel_size != 2 * stride: raise ValueError`, an assert): sizes.alternatives() in turn, a
    bounded number. The job then carries the sizes that built (the MindSpore side is built with them) and
    those rejected, with why; None when none builds or the sizes were not the checker's."""
    chosen = job.get("chosen_sizes")
    if not chosen or not isinstance(exc, (AssertionError, ValueError)) or job.get("within"):
        return None
    rejected = [{"sizes": chosen, "error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"}]
    for other in sizes.alternatives(chosen):
        fw.seed_all(int(job.get("seed", 0)))
        kwargs = arguments.resolve({**job.get("kwargs", {}), **other}, job["original_dir"], load_class, notes)
        try:
            model = torch_cls(*args, **kwargs)
        except (AssertionError, ValueError) as again:
            rejected.append({"sizes": other, "error": f"{type(again).__name__}: {' '.join(str(again).split())[:200]}"})
            continue
        job.update(kwargs={**job.get("kwargs", {}), **other}, chosen_sizes=other, sizes_rejected=rejected)
        return model
    return None


def _physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 1 << 40


def _original_forward_failure(torch_model, specs: list, torch_device: str, fw) -> str:
    """'' when the PyTorch model runs on the inputs in eval mode, else the
    error: a repository whose own forward fails is not a conversion error."""
    import torch

    training = torch_model.training
    torch_model.eval()
    try:
        with torch.no_grad():
            torch_model(*fw.to_torch(fw.make_arrays(specs, 0), torch_device))
    except PermissionError:  # a sandbox refusal is an answer, not the model's failure
        raise
    except Exception as exc:  # user code
        return f"{type(exc).__name__}: {str(exc)[:300]}"
    finally:
        torch_model.train(training)
    return ""


def _inputs_inside(job: dict, parent, path: str, sub, torch_device: str, checks, fw) -> list | None:
    """The tensors the parent's forward passes the block, from the parent's own
    inputs (its call site's, or inferred)."""
    parent = parent.to(torch_device)
    specs = job["within"].get("inputs")
    if not specs:
        specs, _ = checks.infer_inputs(parent, torch_device, job["within"].get("shape_hints"))
    if not specs:
        return None
    return within.recorded_inputs(parent, path, sub, specs, torch_device, fw)


def _returning(obj):
    """A module-level instance as a factory without arguments."""
    def factory():
        return obj
    return factory


def _dataset_batches(job: dict, spec: dict) -> list:
    """The loss curve's batches from the repo's dataset class (one per step,
    at least one for the forward checks)."""
    try:
        cls = load_class(job["original_dir"], spec["module"], spec["class_name"])
    except (ImportError, AttributeError) as exc:
        raise dataset.DatasetError(f"class not found in the original tree ({type(exc).__name__}: {exc})") from exc
    try:
        data = cls(*spec.get("args", []), **spec.get("kwargs", {}))
    except Exception as exc:  # user code
        raise dataset.DatasetError(f"constructing it raised {type(exc).__name__}: {exc}") from exc
    try:
        return dataset.draw_batches(data, spec, max(1, int(job.get("loss_steps", 20))))
    except dataset.DatasetError:
        raise
    except Exception as exc:  # the dataset's own __getitem__/__iter__
        raise dataset.DatasetError(f"reading samples raised {type(exc).__name__}: {exc}") from exc
