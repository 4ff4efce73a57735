"""Cost of a parity check against the raw work it cannot avoid.

    python bench/parity.py [--loss-steps N] [--repeat R]

For each fixture model (tests/parity/fixtures), in one process and after a
warm-up: the raw time is what both frameworks must compute anyway (an eval
forward, a train forward+backward, and N optimizer steps, in PyTorch and in
MindSpore); the check time is checks.run_entry on the same models (alignment,
weight transfer, config compare, per-layer hooks and statistics, gradients,
state after a step, loss curves, and the float64 PyTorch reference that runs
beside every one of them for the noise band). Prints both and their ratio, plus the
wall time of the sandboxed end-to-end check_parity (process start and imports
included) for reference. Run from a scratch directory: MindSpore writes
rank_0/ folders into the working directory.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FIXTURES = ROOT / "tests" / "parity" / "fixtures"
MODELS = {
    "MLP": ("models.mlp", [{"shape": [4, 20], "dtype": "float32"}]),
    "LeNet": ("models.lenet", [{"shape": [4, 1, 32, 32], "dtype": "float32"}]),
    "ResNetStack": ("models.resnet", [{"shape": [4, 3, 32, 32], "dtype": "float32"}]),
    "LSTMTagger": ("models.tagger", [{"shape": [4, 8], "dtype": "int64", "range": [0, 30]}]),
    "TinyEncoder": ("models.encoder", [{"shape": [4, 8], "dtype": "int64", "range": [0, 50]}]),
}


def raw_time(torch_model, ms_model, arrays, steps: int) -> float:
    """Eval forward, train forward+backward, `steps` optimizer steps: both frameworks, nothing else."""
    import mindspore as ms
    import torch

    from analysis.parity import frameworks as fw

    started = time.perf_counter()
    t_in, m_in = fw.to_torch(arrays, "cpu"), fw.to_ms(arrays)
    fw.train_mode(torch_model, ms_model, False)
    with torch.no_grad():
        ref = fw.first_tensor(torch_model(*t_in), "torch")
    ms_model(*m_in)
    fw.train_mode(torch_model, ms_model, True)
    target_np = fw.make_target("mse", ref.numpy(), 0)
    t_target, m_target = torch.from_numpy(target_np), ms.Tensor(target_np)
    t_opt = torch.optim.SGD(torch_model.parameters(), lr=0.01)
    m_params = ms_model.trainable_params()
    m_opt, _ = fw.ms_optimizer({"name": "SGD", "lr": 0.01}, m_params)

    def loss(*xs):
        return ((fw.first_tensor(ms_model(*xs), "ms") - m_target) ** 2).mean()

    grad_fn = ms.value_and_grad(loss, None, weights=m_params)
    for step in range(1 + steps):
        t_opt.zero_grad()
        out = fw.first_tensor(torch_model(*t_in), "torch")
        ((out - t_target) ** 2).mean().backward()
        _, grads = grad_fn(*m_in)
        if step:  # the first pass is the gradient check's forward+backward
            t_opt.step()
            m_opt(grads)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--loss-steps", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args(argv)

    import torch

    from analysis.parity import check_parity, checks
    from analysis.parity import frameworks as fw
    from analysis.parity.runner import load_class

    torch.set_num_threads(2)
    fw.setup("cpu")
    fw.disable_functional_dropout()  # as the sandboxed runner does
    fw.REPLAY.install()
    rows = []
    for name, (module, inputs) in MODELS.items():
        torch_cls = load_class(str(FIXTURES / "torch_repo"), module, name)
        ms_cls = load_class(str(FIXTURES / "ms_repo"), module, name)
        entry = {"inputs": inputs, "loss_steps": options.loss_steps}
        raws, fulls = [], []
        for attempt in range(options.repeat + 1):  # attempt 0 warms both frameworks up
            fw.seed_all(0)
            torch_model, ms_model = torch_cls(), ms_cls()
            raw = raw_time(torch_model, ms_model, fw.make_arrays(inputs, 0), options.loss_steps)
            fw.seed_all(0)
            torch_model, ms_model = torch_cls(), ms_cls()
            started = time.perf_counter()
            result = checks.run_and_judge(entry, torch_model, ms_model, torch_device="cpu")
            full = time.perf_counter() - started
            assert result["status"] == "pass", result["reason"]
            assert result["reference"]["float64"], "the float64 reference must be part of the measured check"
            if attempt:
                raws.append(raw)
                fulls.append(full)
        raw, full = min(raws), min(fulls)
        rows.append({"model": name, "raw_s": round(raw, 4), "check_s": round(full, 4), "ratio": round(full / raw, 3)})

    started = time.perf_counter()
    report = check_parity(FIXTURES / "torch_repo", FIXTURES / "ms_repo", loss_steps=options.loss_steps)
    sandboxed = time.perf_counter() - started
    checked = sum(1 for e in report["entry_points"] if e["status"] == "pass")

    if options.json:
        print(json.dumps({"rows": rows, "sandboxed_s": sandboxed, "entries": checked}, indent=2))
        return 0
    print(f"loss steps: {options.loss_steps}, best of {options.repeat}")
    print(f"{'model':<12} {'raw fwd+bwd (s)':>16} {'full check (s)':>15} {'ratio':>7}")
    for row in rows:
        print(f"{row['model']:<12} {row['raw_s']:>16.4f} {row['check_s']:>15.4f} {row['ratio']:>7.3f}")
    total_raw = sum(r["raw_s"] for r in rows)
    total_check = sum(r["check_s"] for r in rows)
    print(f"{'all':<12} {total_raw:>16.4f} {total_check:>15.4f} {total_check / total_raw:>7.3f}")
    print(f"sandboxed check_parity on the fixture repo ({checked} entry points pass, process start and "
          f"imports included): {sandboxed:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
