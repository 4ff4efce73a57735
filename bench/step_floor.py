"""How far restructuring a converted training step could go: bench/training_scripts/gan.py timed in one
process as PyTorch runs it, as the converter writes it (two compiled steps, the draws made outside them),
as one compiled graph holding both steps, and as one graph holding the draws too.

    python bench/step_floor.py [--iterations N] [--rounds N] [--threads N]

Both sides are the script itself: its code before the training loop runs once, then each iteration runs
the loop's body (PyTorch's source, and the converter's output of it, helpers inlined). The restructured
variants reuse what the conversion built (its networks, optimizers and value_and_grad functions, by the
names the converter gives them). Prints each variant's median time per iteration and its median ratio
to PyTorch's, the variants taking turns, in this same process."""
from __future__ import annotations

import argparse
import ast
import os
import statistics
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SCRIPT = ROOT / "bench" / "training_scripts" / "gan.py"


def _rounds(steps: dict, iterations: int, rounds: int) -> dict[str, list[float]]:
    """Milliseconds per iteration of each step, block by block: the variants take turns within each round,
    so a slow spell of the machine falls on all of them alike."""
    for step in steps.values():
        for _ in range(20):  # compilation and warm-up
            step()
    times = {name: [] for name in steps}
    for _ in range(rounds):
        for name, step in steps.items():
            started = time.perf_counter()
            for _ in range(iterations):
                step()
            times[name].append((time.perf_counter() - started) / iterations * 1000)
    return times


def script_step(source: str, name: str) -> tuple:
    """(a function running one iteration of the script's training loop, the script's namespace): the code
    before the loop runs now, the loop's body at each call (its loop variable held at 1: no logging step)."""
    path = Path(f"{name}.py").resolve()  # in the working directory: MindSpore's graph compiler reads the source
    path.write_text(source)
    tree = ast.parse(source)
    loop = next(node for node in tree.body if isinstance(node, ast.For))
    setup = compile(ast.Module(body=tree.body[:tree.body.index(loop)], type_ignores=[]), str(path), "exec")
    body = compile(ast.Module(body=loop.body, type_ignores=[]), str(path), "exec")
    module = types.ModuleType(name)  # importable by name too: the compiler resolves the step's globals so
    module.__file__ = str(path)
    sys.modules[name] = module
    namespace = module.__dict__
    exec(setup, namespace)  # noqa: S102 - this repository's own bench script and its conversion
    namespace[loop.target.id] = 1

    def step():
        exec(body, namespace)  # noqa: S102
    return step, namespace


def mindspore_steps() -> dict:
    """The conversion as written, and the two restructured variants built from its own objects."""
    import mindspore
    from mindspore import ops

    from analysis.convert import convert_source
    from analysis.convert.support.helper_training import prefix_optimizer_state

    as_converted, ns = script_step(convert_source(SCRIPT.read_text()).text, "converted")
    compiled_step, grad_d, grad_g, opt_d, opt_g = (ns[k] for k in ("compiled_step", "grad_fn", "grad_fn2", "opt_d",
                                                                    "opt_g"))
    prefix_optimizer_state(opt_g, "opt_g.")  # one graph holding both updates needs distinct names

    def body(z, real):
        (d_loss, _), grads = grad_d(z, real)
        opt_d(grads)
        g_loss, grads = grad_g(z)
        opt_g(grads)
        return d_loss, g_loss

    both = compiled_step(body)
    normal, shift = ops.StandardNormal(), mindspore.tensor([2.0, -1.0])
    batch, latent = ns["batch"], ns["latent"]

    @compiled_step
    def everything(unused):
        return body(normal((batch, latent)), normal((batch, 2)) * 0.5 + shift)

    def one_graph():  # the script's draws, as converted
        real = ns["randn_draw"](batch, 2) * 0.5 + mindspore.tensor([2.0, -1.0])
        both(ns["randn_draw"](batch, latent), real)

    unused = mindspore.tensor(0)
    return {"as converted: two compiled steps, draws outside": as_converted,
            "one compiled graph, draws outside": one_graph,
            "one compiled graph, draws inside": lambda: everything(unused)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=100, help="iterations per block")
    parser.add_argument("--rounds", type=int, default=9, help="blocks per variant, taken in turns")
    parser.add_argument("--threads", type=int, default=1, help="torch.set_num_threads and MindSpore's runtime threads")
    opts = parser.parse_args()
    os.environ.setdefault("GLOG_v", "3")
    os.chdir(tempfile.mkdtemp())  # MindSpore writes rank_0/ into the working directory
    import torch

    torch.set_num_threads(opts.threads)
    import mindspore

    mindspore.set_context(runtime_num_threads=opts.threads)
    torch_step, _ = script_step(SCRIPT.read_text(), "pytorch")
    times = _rounds({"PyTorch": torch_step, **mindspore_steps()}, opts.iterations, opts.rounds)
    floor = times.pop("PyTorch")
    print(f"{'PyTorch':50s} {statistics.median(floor):7.3f} ms")
    for name, took in times.items():
        ratios = sorted(t / f for t, f in zip(took, floor))
        print(f"{name:50s} {statistics.median(took):7.3f} ms  {statistics.median(ratios):5.2f}x "
              f"(rounds: {ratios[0]:.2f}-{ratios[-1]:.2f}x)")


if __name__ == "__main__":
    main()
