"""The worker pool: frameworks imported once, a crash or a hang costs one call, not the run."""
from __future__ import annotations

from analysis.verify.workers import Worker, run_all

CRASH = "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"
HANG = "while True:\n    pass\n"
OK = "import torch\nout = torch.abs(x)\n"


def test_a_segfault_and_a_hang_cost_one_call_each():
    results = run_all("torch", "run", [OK, CRASH, OK, HANG, OK], workers=1, timeout=5)
    assert [ok for ok, _ in results] == [True, False, True, False, True]
    assert results[1][1].startswith("Crash") and results[3][1].startswith("Timeout")
    assert results[0][1].tolist() == results[4][1].tolist()  # the restarted worker computes the same


def test_one_process_serves_many_calls():
    worker = Worker("torch")
    try:
        first = worker.call("run", OK, 60)
        pid = worker.process.pid
        for _ in range(5):
            assert worker.call("run", OK, 60)[0]
        assert worker.process.pid == pid and first[0]
    finally:
        worker.stop()


def test_each_call_gets_fresh_inputs():
    """An in-place method must not leak into the next call."""
    results = run_all("torch", "run", ["out = x.add_(1)\n", "out = x.clone()\n"], workers=1, timeout=60)
    assert abs(float(results[0][1][0, 0]) - float(results[1][1][0, 0]) - 1) < 1e-6
