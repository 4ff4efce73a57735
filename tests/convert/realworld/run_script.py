"""Run one training script unmodified and record its losses: `python run_script.py FRAMEWORK SCRIPT OUT
MAX_STEPS [SCRIPT OPTIONS...]`, in the working directory the script expects (its data beside it).

The script is not edited. Its losses are read where every step passes: PyTorch's Tensor.backward
(the PyTorch side) or the function mindspore.value_and_grad returns (the converted side). After
MAX_STEPS losses the run is stopped from there, so a script whose epochs are fixed in its code still
ends after a few steps. A converted step compiled with mindspore.jit (or the support module's compiled_step)
cannot call back into Python, so there the loss is read from what the compiled step returns (its first
value). The time of each loss
is recorded too, wall-clock and the process's CPU time (bench/training_speed.py). The script's folder is on sys.path, as when it is run from
its folder."""
from __future__ import annotations

import json
import os
import runpy
import sys
import time
import traceback


class Enough(Exception):
    """Raised from the loss recorder once MAX_STEPS losses were seen."""


def main() -> None:
    framework, script, out = sys.argv[1:4]
    limit = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    sys.argv = [script, *sys.argv[5:]]  # the script's own command-line options
    losses: list[float] = []
    times: list[float] = []
    cpu_times: list[float] = []

    def record(value) -> None:
        losses.append(float(value))
        times.append(time.perf_counter())
        cpu_times.append(time.process_time())
        if len(losses) >= limit:
            raise Enough()

    import numpy as np
    np.random.seed(0)
    # RUN_THREADS: both frameworks' CPU threads set alike (torch's intra-op pool, MindSpore's runtime pool);
    # unset, each keeps its default (2 and 2 on the 2-core machine)
    threads = int(os.environ.get("RUN_THREADS", "0"))
    if framework == "torch":
        import torch
        torch.manual_seed(0)
        if threads:
            torch.set_num_threads(threads)
        backward = torch.Tensor.backward

        def recording_backward(self, *args, **kwargs):
            if self.numel() == 1:
                record(self.detach().item())
            return backward(self, *args, **kwargs)

        torch.Tensor.backward = recording_backward
    else:
        import mindspore
        mindspore.set_seed(0)
        if threads:
            mindspore.set_context(runtime_num_threads=threads)
        value_and_grad = mindspore.value_and_grad

        def recording_value_and_grad(fn, *args, **kwargs):
            inner = value_and_grad(fn, *args, **kwargs)

            def run(*a, **k):
                result = inner(*a, **k)
                value = result[0][0] if kwargs.get("has_aux") else result[0]
                record(value.asnumpy().item() if hasattr(value, "asnumpy") else value)
                return result
            run.inner = inner
            run.recorder = True
            return run

        mindspore.value_and_grad = recording_value_and_grad
        jit = mindspore.jit

        def recording_jit(fn=None, *args, **kwargs):
            if fn is None:  # @mindspore.jit(...) with options
                return lambda f: recording_jit(f, *args, **kwargs)
            if fn.__code__.co_varnames[:1] == ("self",):  # a method (support's AdamW update): no loss of its own
                return jit(fn, *args, **kwargs)
            compiled = jit(fn, *args, **kwargs)
            unwrapped = []

            def run(*a, **k):
                if not unwrapped:  # the compiled step calls the plain gradient function, not the recorder
                    _unwrap_recorders(fn)
                    unwrapped.append(True)
                result = compiled(*a, **k)
                first = result[0] if isinstance(result, tuple) else result
                record(first.asnumpy().item() if hasattr(first, "asnumpy") else first)
                return result
            return run

        mindspore.jit = recording_jit
        compile_and_run = mindspore.nn.Cell.compile_and_run

        def recording_compile_and_run(self, *a, **k):
            if type(self).__name__ != "compiled_step":  # the converter's compiled step (support module)
                return compile_and_run(self, *a, **k)
            if not getattr(self, "_unwrapped", False):
                # a step that computes no gradient (the application of accumulated ones) records no loss
                self._records = _unwrap_recorders(self.fn)
                self._unwrapped = True
            result = compile_and_run(self, *a, **k)
            if not self._records:
                return result
            first = result[0] if isinstance(result, tuple) else result
            record(first.asnumpy().item() if hasattr(first, "asnumpy") else first)
            return result

        mindspore.nn.Cell.compile_and_run = recording_compile_and_run
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    status = "finished"
    try:
        runpy.run_path(script, run_name="__main__")
    except Enough:
        status = f"stopped after {limit} steps"
    except BaseException as exc:  # noqa: BLE001 - the failure is the result
        status = "error: " + "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()[-1][:400]
        tb = traceback.format_exc().splitlines()
        status += " | " + " / ".join(line.strip() for line in tb[-6:-1])[:600]
    with open(out, "w") as f:
        json.dump({"losses": losses, "times": times, "cpu_times": cpu_times, "status": status}, f)


def _unwrap_recorders(fn) -> bool:
    """Put the plain gradient functions back where fn reads recording ones (its globals, its closure);
    whether it read one. Only recorders: mindspore.ops has an `inner` of its own."""
    found = False
    for name in fn.__code__.co_names:
        value = fn.__globals__.get(name)
        if getattr(value, "recorder", False):
            fn.__globals__[name] = value.inner
            found = True
    for cell in fn.__closure__ or ():
        if getattr(cell.cell_contents, "recorder", False):
            cell.cell_contents = cell.cell_contents.inner
            found = True
    return found


if __name__ == "__main__":
    main()
