"""Long-lived worker processes: each imports one framework once and runs many calls.

A call that hangs is killed after its timeout and a call that crashes the process (a segfault
in a kernel) costs that call only: the worker is started again for the next one. Workers run
in a temporary directory (MindSpore writes rank_0/ into the current directory)."""
from __future__ import annotations

import multiprocessing as mp
import os
import re
import tempfile
import threading
import traceback
from typing import Callable, Iterable

from .compare import ERROR_LIMIT, short_error


def _fresh(framework: str, arrays: dict):
    if framework == "torch":
        import torch

        return {name: torch.tensor(values) for name, values in arrays.items()}
    import mindspore

    return {name: mindspore.Tensor(values.copy()) for name, values in arrays.items()}


FILL_VALUES = None

# a recurrent layer's weights, by name: PyTorch lists them layer by layer (w_ih, w_hh, b_ih, b_hh per
# direction), MindSpore all input weights first; filled in PyTorch's order in both, each gets the same values
_RNN_WEIGHT = re.compile(r"(?:^|\.)(weight|bias)_(ih|hh)_l(\d+)(_reverse)?$")


def _fill_order(named: list) -> list:
    """(name, parameter) pairs in the order the fill numbers them: as listed, a recurrent layer's in PyTorch's."""
    def key(item):
        found = _RNN_WEIGHT.search(item[0])
        if not found:
            return (0,)
        kind, gate, layer, reverse = found.groups()
        return (int(layer), bool(reverse), kind == "bias", gate == "hh")
    return sorted(named, key=key) if all(_RNN_WEIGHT.search(n) for n, _ in named) else named


def _fill(framework: str):
    import numpy as np

    def values(shape, i):
        n = int(np.prod(shape)) if len(shape) else 1
        return (np.sin(np.arange(n, dtype=np.float64) * 0.37 + i) * 0.5).astype(np.float32).reshape(shape)

    if framework == "torch":
        import torch

        def fill(module):
            with torch.no_grad():
                for i, (_, p) in enumerate(_fill_order([(n, p) for n, p in module.named_parameters() if p.requires_grad])):
                    p.copy_(torch.from_numpy(values(tuple(p.shape), i)).to(p.dtype))
            return module
        return fill
    import mindspore

    def fill(cell):
        if not hasattr(cell, "trainable_params"):  # a primitive (ops.Softplus()): no weights to set
            return cell
        for i, (_, p) in enumerate(_fill_order([(p.name, p) for p in cell.trainable_params()])):
            p.set_data(mindspore.Tensor(values(tuple(p.shape), i)).astype(p.dtype))
        return cell
    return fill


def execute(framework: str, source: str, arrays: dict, fill, only: dict | None = None) -> tuple[bool, object]:
    """Run one call's source with fresh input tensors (all of `arrays`, or only the sample's own `only`);
    (True, plain result) or (False, error)."""
    from .compare import plain

    ns = {"fill": fill, "__name__": "__verify__"}
    ns.update(_fresh(framework, arrays if only is None else only))
    try:
        exec(compile(source, "<call>", "exec"), ns)
        return True, plain(ns.get("out"))
    except BaseException as exc:  # the call's own failure, whatever it is
        return False, short_error(exc)


def _reset_globals(framework: str) -> None:
    """Undo what one snippet may have set for the whole process (a test of torch.set_default_device('cuda')
    that raised half-way left every later snippet of its worker failing; set_default_dtype, no_grad)."""
    if framework == "torch":
        import torch

        torch.set_default_device(None)
        torch.set_default_dtype(torch.float32)
        torch.set_grad_enabled(True)


def _serve(framework: str, conn) -> None:
    os.chdir(tempfile.mkdtemp(prefix=f"verify-{framework}-"))
    os.environ.setdefault("GLOG_v", "3")
    # the converter is measured as the tables make it, not as earlier verdicts steer it (else a broken
    # API, once marked by the converter, would be measured as `marked`, then converted again next time)
    os.environ["PORTING_NO_VERDICT_HOOK"] = "1"
    import warnings

    warnings.filterwarnings("ignore")
    from .inputs import arrays as make_arrays
    from .verdicts import suspend

    suspend()  # the converter is measured on its own, not steered by the verdicts being regenerated

    arrays = make_arrays()
    if framework == "torch":
        import torch

        torch.set_num_threads(1)
    else:
        import mindspore

        mindspore.set_context(mode=mindspore.PYNATIVE_MODE, device_target="CPU")
    fill = _fill(framework)
    conn.send(("ready", None))
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        kind, payload = job
        try:
            _reset_globals(framework)
            if kind == "run":
                reply = execute(framework, payload, arrays, fill)
            elif kind == "sample":  # (source, its own arrays): PyTorch's sample inputs (samples.py)
                reply = execute(framework, payload[0], arrays, fill, only=payload[1])
            elif kind == "chunks":
                from .blocks import run_chunks

                reply = (True, run_chunks(framework, payload))
            elif kind == "generate":
                from analysis.convert import convert_source
                from .generate import generate

                calls, why = generate(payload, lambda src: execute(framework, src, arrays, fill))
                for call in calls:
                    result = convert_source(call.source, path="call.py")
                    call.converted = result.text
                    call.unconverted = [f"{u.rule_id}: {u.action}" for u in result.unconverted]
                reply = (True, (calls, why))
            else:
                reply = (False, f"unknown job {kind}")
        except BaseException:
            reply = (False, traceback.format_exc()[-ERROR_LIMIT:])
        conn.send(reply)


class Worker:
    """One framework in one process; `call` returns (ok, value) and survives crashes and hangs."""

    def __init__(self, framework: str):
        self.framework = framework
        self.process = None
        self.conn = None

    def start(self) -> None:
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        self.process = ctx.Process(target=_serve, args=(self.framework, child), daemon=True)
        self.process.start()
        child.close()
        self.conn = parent
        if not parent.poll(300):
            self.stop()
            raise RuntimeError(f"{self.framework} worker did not start")
        parent.recv()

    def call(self, kind: str, payload, timeout: float) -> tuple[bool, object]:
        try:
            if self.process is None or not self.process.is_alive():
                self.start()
            self.conn.send((kind, payload))
            if self.conn.poll(timeout):
                return self.conn.recv()
            self.stop()
            return False, f"Timeout: no answer in {timeout:.0f} s"
        except (EOFError, OSError, BrokenPipeError):
            code = self.process.exitcode if self.process else None
            self.stop()
            return False, f"Crash: the {self.framework} process died (exit code {code})"

    def stop(self) -> None:
        if self.process is not None and self.process.pid is not None:
            if self.process.is_alive():
                self.process.kill()
            self.process.join(5)
        self.process = None
        self.conn = None


def run_all(framework: str, kind: str, jobs: Iterable, *, workers: int = 2, timeout: float = 60,
            progress: Callable[[int], None] | None = None) -> list[tuple[bool, object]]:
    """Every job through a pool of `workers` processes of one framework; results in job order."""
    jobs = list(jobs)
    results: list = [None] * len(jobs)
    lock = threading.Lock()
    cursor = iter(range(len(jobs)))
    done = [0]

    def loop():
        worker = Worker(framework)
        try:
            while True:
                with lock:
                    i = next(cursor, None)
                if i is None:
                    return
                results[i] = worker.call(kind, jobs[i], timeout)
                with lock:
                    done[0] += 1
                    if progress:
                        progress(done[0])
        finally:
            if worker.conn is not None:
                try:
                    worker.conn.send(None)
                except OSError:
                    pass
            worker.stop()

    threads = [threading.Thread(target=loop) for _ in range(max(1, min(workers, len(jobs))))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results
