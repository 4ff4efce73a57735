"""End to end on real torch and MindSpore: hand-converted twins pass, with
per-layer, gradient, state and loss-curve comparisons all within tolerance."""
from __future__ import annotations

import pytest

from analysis.parity import check_parity

from .conftest import MS_REPO, TORCH_REPO

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def correct_report():
    return check_parity(TORCH_REPO, MS_REPO, loss_steps=5, timeout_s=240)


def _entry(report, name):
    return next(e for e in report["entry_points"] if e["name"] == name)


@pytest.mark.parametrize("name", ["MLP", "LeNet"])
def test_correct_conversion_passes(correct_report, name):
    entry = _entry(correct_report, name)
    assert entry["status"] == "pass", entry["reason"]
    assert entry["first_diverging_layer"] is None
    assert entry["config_mismatches"] == []
    assert entry["metrics"]["max_abs"] < 1e-5
    assert entry["weights"]["unmatched_torch"] == []
    assert all(layer["status"] == "pass" for layer in entry["layers"])
    assert entry["gradients"] and all(g["status"] == "pass" for g in entry["gradients"])
    assert entry["state_after_step"] and all(s["status"] == "pass" for s in entry["state_after_step"])
    assert entry["loss_curve"]["status"] == "pass"
    assert entry["device"] == "cpu"


def test_discovery_finds_both_models_with_inferred_inputs(correct_report):
    assert correct_report["entries_from"] == "discovered"
    lenet = _entry(correct_report, "LeNet")
    assert lenet["inputs"][0]["shape"] == [4, 1, 32, 32]  # 28x28 does not fit fc1
    assert _entry(correct_report, "MLP")["inputs"][0]["shape"] == [4, 20]


def test_layers_link_to_source_lines(correct_report):
    lenet = _entry(correct_report, "LeNet")
    bn1 = next(layer for layer in lenet["layers"] if layer["path"] == "bn1")
    assert bn1["file"] == "models/lenet.py" and bn1["line"] == 12
    mlp = _entry(correct_report, "MLP")
    dropout = next(layer for layer in mlp["layers"] if layer["path"] == "layers.3")
    assert dropout["line"] == 13


def test_by_design_buffers_are_reported(correct_report):
    mlp = _entry(correct_report, "MLP")
    names = [b["name"] for b in mlp["weights"]["no_counterpart_by_design"]]
    assert names == ["layers.1.num_batches_tracked"]
