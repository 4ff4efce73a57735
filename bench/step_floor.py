"""How far restructuring a converted training step could go: the GAN of bench/training_scripts/gan.py
timed in one process as PyTorch runs it, as the converter writes it (two compiled steps, the draws made
outside them), as one compiled graph holding both steps, and as one graph holding the draws too.

    python bench/step_floor.py [--iterations N] [--rounds N] [--threads N]

Prints each variant's median time per iteration (both losses read back, as a training loop that logs
them) and its median ratio to PyTorch's, run in this same process, the variants taking turns. The variants share the converter's support
module (analysis/convert/support: compiled_step, randn_draw, synchronous_cpu_launch), so the MindSpore
side pays what converted code pays per call."""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LATENT, BATCH = 8, 64


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


def torch_step():
    import torch
    import torch.nn as nn

    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(LATENT, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
    D = nn.Sequential(nn.Linear(2, 64), nn.LeakyReLU(0.2), nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1),
                      nn.Sigmoid())
    criterion = nn.BCELoss()
    opt_d = torch.optim.Adam(D.parameters(), lr=0.001, betas=(0.5, 0.999))
    opt_g = torch.optim.Adam(G.parameters(), lr=0.001, betas=(0.5, 0.999))
    ones, zeros = torch.ones(BATCH, 1), torch.zeros(BATCH, 1)

    def step():
        real = torch.randn(BATCH, 2) * 0.5 + torch.tensor([2.0, -1.0])
        fake = G(torch.randn(BATCH, LATENT))
        d_loss = criterion(D(real), ones) + criterion(D(fake.detach()), zeros)
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        g_loss = criterion(D(fake), ones)
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
        return d_loss.item(), g_loss.item()
    return step


def mindspore_steps():
    """The three MindSpore variants, each a function running one iteration."""
    sys.path.insert(0, str(ROOT / "analysis" / "convert" / "support"))
    import mindspore
    from mindspore import nn, ops
    from helper_random import randn_draw
    from helper_training import compiled_step, prefix_optimizer_state, synchronous_cpu_launch

    synchronous_cpu_launch()
    mindspore.set_seed(0)
    G = nn.SequentialCell(nn.Dense(LATENT, 64), nn.ReLU(), nn.Dense(64, 64), nn.ReLU(), nn.Dense(64, 2))
    D = nn.SequentialCell(nn.Dense(2, 64), nn.LeakyReLU(0.2), nn.Dense(64, 64), nn.LeakyReLU(0.2), nn.Dense(64, 1),
                          nn.Sigmoid())
    criterion = nn.BCELoss(reduction="mean")
    opt_d = nn.Adam(D.trainable_params(), learning_rate=0.001, beta1=0.5, beta2=0.999)
    opt_g = nn.Adam(G.trainable_params(), learning_rate=0.001, beta1=0.5, beta2=0.999)
    D.update_parameters_name("D.")
    G.update_parameters_name("G.")
    prefix_optimizer_state(opt_g, "opt_g.")  # one graph holding both updates needs distinct names
    ones, zeros = ops.ones((BATCH, 1)), ops.zeros((BATCH, 1))
    D.set_train(True)
    G.set_train(True)

    def forward_d(z, real):
        fake = G(z)
        return criterion(D(real), ones) + criterion(D(ops.stop_gradient(fake)), zeros), fake

    def forward_g(z):
        return criterion(D(G(z)), ones)

    grad_d = mindspore.value_and_grad(forward_d, None, opt_d.parameters, has_aux=True)
    grad_g = mindspore.value_and_grad(forward_g, None, opt_g.parameters)

    def body(z, real):
        (d_loss, _), grads = grad_d(z, real)
        opt_d(grads)
        g_loss, grads = grad_g(z)
        opt_g(grads)
        return d_loss, g_loss

    @compiled_step
    def step_d(z, real):
        (d_loss, fake), grads = grad_d(z, real)
        opt_d(grads)
        return d_loss, fake

    @compiled_step
    def step_g(z):
        g_loss, grads = grad_g(z)
        opt_g(grads)
        return g_loss

    both = compiled_step(body)
    normal = ops.StandardNormal()
    shift = mindspore.tensor([2.0, -1.0])

    @compiled_step
    def everything(unused):
        return body(normal((BATCH, LATENT)), normal((BATCH, 2)) * 0.5 + shift)

    def draws():
        return randn_draw(BATCH, LATENT), randn_draw(BATCH, 2) * 0.5 + mindspore.tensor([2.0, -1.0])

    def as_converted():
        z, real = draws()
        d_loss, _ = step_d(z, real)
        g_loss = step_g(z)
        return d_loss.asnumpy(), g_loss.asnumpy()

    def one_graph():
        d_loss, g_loss = both(*draws())
        return d_loss.asnumpy(), g_loss.asnumpy()

    unused = mindspore.tensor(0)

    def one_graph_with_draws():
        d_loss, g_loss = everything(unused)
        return d_loss.asnumpy(), g_loss.asnumpy()

    return {"as converted: two compiled steps, draws outside": as_converted,
            "one compiled graph, draws outside": one_graph,
            "one compiled graph, draws inside": one_graph_with_draws}


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
    times = _rounds({"PyTorch": torch_step(), **mindspore_steps()}, opts.iterations, opts.rounds)
    floor = times.pop("PyTorch")
    print(f"{'PyTorch':50s} {statistics.median(floor):7.3f} ms")
    for name, took in times.items():
        ratios = sorted(t / f for t, f in zip(took, floor))
        print(f"{name:50s} {statistics.median(took):7.3f} ms  {statistics.median(ratios):5.2f}x "
              f"(rounds: {ratios[0]:.2f}-{ratios[-1]:.2f}x)")


if __name__ == "__main__":
    main()
