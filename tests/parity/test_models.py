"""End to end on real torch and MindSpore: hand-converted twins pass, with
per-layer, gradient, state and loss-curve comparisons all within tolerance."""
from __future__ import annotations

import pytest

from analysis.parity import check_parity

from .conftest import MS_REPO, TORCH_REPO

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    return tmp_path_factory.mktemp("ckpt")


@pytest.fixture(scope="module")
def correct_report(checkpoints):
    return check_parity(TORCH_REPO, MS_REPO, loss_steps=3, timeout_s=240, checkpoint_dir=checkpoints)


def _entry(report, name):
    return next(e for e in report["entry_points"] if e["name"] == name)


@pytest.mark.parametrize("name", ["MLP", "LeNet", "ResNetStack", "LSTMTagger", "TinyEncoder"])
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
    assert entry["output_sample"]["torch"] and sum(entry["abs_error_histogram"]["counts"]) > 0


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


def test_blocks_are_built_as_their_parent_builds_them(correct_report):
    """BasicBlock's arguments come from ResNetStack's __init__ (its `width=8`
    default): one entry per distinct call, so the strided shortcut is checked too."""
    plain, strided = _entry(correct_report, "BasicBlock"), _entry(correct_report, "BasicBlock#2")
    assert (plain["args"], plain["kwargs"]) == ([8, 8], {})
    assert (strided["args"], strided["kwargs"]) == ([8, 16], {"stride": 2})
    assert plain["arguments_from"] == strided["arguments_from"] == "models/resnet.py:33"
    assert plain["status"] == strided["status"] == "pass"
    assert any(layer["path"].startswith("shortcut.") for layer in strided["layers"])


def test_transferred_weights_saved_as_mindspore_checkpoint(correct_report, checkpoints):
    import mindspore as ms
    import torch

    from .conftest import TORCH_REPO as repo  # noqa: F401  (the PyTorch twin whose weights were copied)

    entry = _entry(correct_report, "MLP")
    state = ms.load_checkpoint(entry["checkpoint"])
    assert entry["checkpoint"] == str(checkpoints / "models.mlp.MLP.ckpt")
    torch.manual_seed(0)  # the engine seeds 0 before building the PyTorch module
    import importlib.util

    spec = importlib.util.spec_from_file_location("fixture_mlp", TORCH_REPO / "models" / "mlp.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    reference = module.MLP().state_dict()
    assert (state["layers.0.weight"].asnumpy() == reference["layers.0.weight"].numpy()).all()
    assert (state["layers.1.moving_variance"].asnumpy() == reference["layers.1.running_var"].numpy()).all()


def test_by_design_buffers_are_reported(correct_report):
    mlp = _entry(correct_report, "MLP")
    names = [b["name"] for b in mlp["weights"]["no_counterpart_by_design"]]
    assert names == ["layers.1.num_batches_tracked"]


def test_converter_output_for_the_sample_repo_passes(sample_parity):
    """No converted tree given: the engine converts the sample with
    analysis.convert and checks the result, aligned by its layer map."""
    report, _ = sample_parity
    assert report["converted_by"] == "analysis.convert.convert_tree"
    entries = {e["name"]: e for e in report["entry_points"]}
    assert set(entries) == {"LeNet", "MLP"}
    for entry in entries.values():
        assert entry["status"] == "pass", entry["reason"]
        assert {p["how"] for p in entry["weights"]["pairs"] if p["torch"]} == {"layer_map"}

