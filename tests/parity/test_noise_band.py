"""Noise band first (issue 26): a layer far outside PyTorch's own float32
round-off fails even where the op kind's floor tolerance would let it pass.
Real numbers from both frameworks: PyTorch float32 and float64 here,
MindSpore in a process of its own (a kernel run in the test process would fix
MindSpore's device for later tests)."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

from analysis.parity import tables
from analysis.parity.compare import Capture, Tolerances, metrics, noise_of

MINDSPORE_LAYER_NORM = textwrap.dedent('''
    import sys
    import numpy as np
    import mindspore as ms
    from mindspore import nn
    ms.set_context(device_target="CPU")
    x = np.load(sys.argv[1])
    out = {}
    for eps in (1e-5, 1e-3):
        norm = nn.LayerNorm((x.shape[-1],), begin_norm_axis=-1, begin_params_axis=-1, epsilon=eps)
        out[str(eps)] = norm(ms.Tensor(x)).asnumpy()
    np.savez(sys.argv[2], **out)
''')


@pytest.fixture(scope="module")
def layer_norms(tmp_path_factory):
    """PyTorch's LayerNorm (eps 1e-5) in float32 and float64, and MindSpore's
    with eps 1e-5 (a right conversion) and 1e-3 (a wrong one)."""
    folder = tmp_path_factory.mktemp("band")
    x = (np.random.default_rng(3).standard_normal((16, 64)) * 2.0 + 0.5).astype(np.float32)
    np.save(folder / "x.npy", x)
    subprocess.run([sys.executable, "-c", MINDSPORE_LAYER_NORM, str(folder / "x.npy"), str(folder / "ms.npz")],
                   check=True, cwd=folder, timeout=300)
    mindspore = np.load(folder / "ms.npz")
    norm = torch.nn.LayerNorm(64, eps=1e-5)
    with torch.no_grad():
        f32 = norm(torch.from_numpy(x)).numpy()
        f64 = norm.double()(torch.from_numpy(x).double()).numpy()
    return Capture(f32), Capture(f64), Capture(mindspore["1e-05"]), Capture(mindspore["0.001"])


def _check(reference, exact, candidate):
    atol, rtol, _ = Tolerances().pick("LayerNorm", "float32")  # the norms' loose floor
    return metrics(reference, candidate, atol, rtol, noise_of(reference, exact))


def test_changed_eps_fails_on_the_numbers_though_within_the_norm_floor(layer_norms):
    reference, exact, _, wrong = layer_norms
    result = _check(reference, exact, wrong)
    assert result["max_abs"] <= result["atol"] + result["rtol"] * 10, "the floor alone would pass it"
    assert result["status"] == "fail" and result["label"] == "beyond noise band"
    assert result["band_ratio"] > tables.NOISE_BAND_LIMIT
    assert result["noise_band"] > 0 and result["band_limit"] == tables.NOISE_BAND_LIMIT  # both numbers reported


def test_right_eps_stays_a_pass(layer_norms):
    reference, exact, right, _ = layer_norms
    result = _check(reference, exact, right)
    assert result["status"] == "pass", result
    assert result["band_ratio"] < tables.NOISE_BAND_LIMIT / 5


def test_an_exact_float32_point_gets_a_band_of_one_rounding_step():
    """ReLU is exact in float32 (noise 0): a one-ulp difference is not a
    band violation, a 1e-3 one is."""
    values = np.linspace(-3, 3, 101, dtype=np.float32)
    reference = Capture(np.maximum(values, 0))
    exact = Capture(np.maximum(values.astype(np.float64), 0))
    ulp = Capture(np.nextafter(np.maximum(values, 0), np.float32(10)))
    off = Capture(np.maximum(values, 0) + np.float32(1e-3))
    assert metrics(reference, ulp, 1e-5, 1e-4, noise_of(reference, exact))["status"] == "pass"
    wrong = metrics(reference, off, 1e-2, 1e-2, noise_of(reference, exact))
    assert wrong["status"] == "fail" and wrong["label"] == "beyond noise band"
