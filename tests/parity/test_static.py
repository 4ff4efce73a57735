"""Parts of the parity engine that run no user code: discovery by static
scan, the manifest, the CLI's argument handling, JSON-safe numbers."""
from __future__ import annotations

import io
import math

import numpy as np
import pytest

from analysis.cli import parity as parity_cli
from analysis.parity import check_parity, discover
from analysis.parity.compare import Capture, json_safe, metrics, tolerance
from analysis.parity.manifest import ManifestError, load_manifest

from .conftest import TORCH_REPO


def test_discovery_lists_module_classes_without_importing(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "nets.py").write_text(
        "raise SystemExit('never imported')\n"
        "import torch.nn as nn\n"
        "class Base(nn.Module):\n    pass\n"
        "class Child(Base):\n    pass\n"
        "class Plain:\n    pass\n"
        "class Full(torch.nn.Module):\n    pass\n"
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "nets.py").write_text("import torch.nn as nn\nclass Hidden(nn.Module):\n    pass\n")
    found = {(c["module"], c["class"]) for c in discover.candidates(tmp_path)}
    assert found == {("pkg.nets", "Base"), ("pkg.nets", "Child"), ("pkg.nets", "Full")}


def test_discovery_on_fixture_repo():
    names = {c["class"] for c in discover.candidates(TORCH_REPO)}
    assert names == {"LeNet", "MLP", "BasicBlock", "ResNetStack", "LSTMTagger", "TinyEncoder"}


def test_manifest_entries(tmp_path):
    path = tmp_path / "porting.toml"
    path.write_text(
        '[[entry]]\nclass = "models.lenet:LeNet"\nkwargs = {num_classes = 4}\nloss = "cross_entropy"\n'
        'inputs = [{shape = [2, 1, 32, 32]}]\ntolerance = {atol = 1e-4}\n'
        '[[entry]]\nclass = "models.mlp.MLP"\nmode = "eval"\n'
    )
    first, second = load_manifest(path)
    assert (first["module"], first["class"], first["kwargs"], first["loss"]) == ("models.lenet", "LeNet",
                                                                                 {"num_classes": 4}, "cross_entropy")
    assert first["inputs"] == [{"shape": [2, 1, 32, 32]}] and first["tolerance"] == {"atol": 1e-4}
    assert (second["module"], second["class"], second["mode"]) == ("models.mlp", "MLP", "eval")


@pytest.mark.parametrize("body, message", [
    ('[[entry]]\nclass = "LeNet"\n', "must look like"),
    ('[[entry]]\nclass = "m:X"\ninputs = [{dtype = "float32"}]\n', "needs a shape"),
    ('[[entry]]\nclass = "m:X"\nmode = "sometimes"\n', "mode must be"),
    ("[[entry]\n", "cannot read manifest"),
])
def test_manifest_errors(tmp_path, body, message):
    path = tmp_path / "porting.toml"
    path.write_text(body)
    with pytest.raises(ManifestError, match=message):
        load_manifest(path)


def test_bad_manifest_is_reported_not_raised(tmp_path):
    path = tmp_path / "porting.toml"
    path.write_text('[[entry]]\nclass = "nope"\n')
    report = check_parity(TORCH_REPO, TORCH_REPO, manifest=path)
    assert report["entry_points"] == [] and "must look like" in report["error"]


def test_cli_rejects_missing_directories(tmp_path):
    out = io.StringIO()
    assert parity_cli.run({"original_dir": str(tmp_path / "absent")}, out) == 2
    assert "is not a directory" in out.getvalue()
    out = io.StringIO()
    assert parity_cli.run({"original_dir": str(tmp_path), "converted": str(tmp_path / "absent")}, out) == 2


def test_metrics_labels():
    ref = Capture(np.array([1.0, 2.0, 3.0], np.float32))
    atol, rtol = tolerance("Linear", "float32")
    assert metrics(ref, Capture(np.array([1.0, 2.0, 3.0], np.float32)), atol, rtol)["label"] == "exact"
    noisy = metrics(ref, Capture(np.array([1.0, 2.0, 3.0000002], np.float32)), atol, rtol)
    assert (noisy["status"], noisy["label"]) == ("pass", "kernel noise")
    drift = metrics(ref, Capture(np.array([1.0, 2.0, 3.1], np.float32)), atol, rtol)
    assert (drift["status"], drift["label"]) == ("fail", "drift")
    assert drift["max_abs"] == pytest.approx(0.1, rel=1e-5)
    shape = metrics(ref, Capture(np.zeros(4, np.float32)), atol, rtol)
    assert (shape["status"], shape["label"]) == ("fail", "shape mismatch")


def test_loose_kinds_get_wider_tolerances():
    assert tolerance("LSTM", "float32")[0] > tolerance("Linear", "float32")[0]
    assert tolerance("Linear", "float16")[0] > tolerance("Linear", "float32")[0]
    assert tolerance("Linear", "float32", {"atol": 0.5}) == (0.5, 1e-4)


def test_large_tensors_are_sampled_with_exact_stats():
    big = np.arange(3 << 20, dtype=np.float32)
    capture = Capture(big)
    assert capture.sampled and capture.values.size < big.size
    assert capture.stats["max"] == float(big.max()) and capture.stats["min"] == 0.0


def test_json_safe_replaces_non_finite():
    assert json_safe({"a": [math.inf, -math.inf, math.nan, 1.5]}) == {"a": ["inf", "-inf", "nan", 1.5]}


def test_output_figures_sample_and_histogram():
    from analysis.parity.compare import output_figures

    ref = np.linspace(-1, 1, 5000).astype(np.float32)
    cand = ref + np.float32(1e-6) * (np.arange(5000) % 3)
    figures = output_figures(ref, cand)
    sample = figures["output_sample"]
    assert len(sample["torch"]) == len(sample["mindspore"]) <= 1000
    hist = figures["abs_error_histogram"]
    assert sum(hist["counts"]) == 5000 and len(hist["edges"]) == len(hist["counts"]) + 1
    assert hist["counts"][0] > 0  # the exact matches land in the first bin
    assert output_figures(ref, ref)["abs_error_histogram"]["counts"] == [5000]


def test_layer_tolerance_picks_exact_then_longest_pattern():
    from analysis.parity.compare import Tolerances

    tols = Tolerances({"atol": 2e-5, "loss_rtol": 1e-2},
                      {"encoder": {"atol": 1e-3}, "encoder.attn": {"rtol": 5e-3}, "layers.*": {"atol": 1e-4}})
    assert tols.pattern_for("encoder.attn") == "encoder.attn"
    assert tols.pattern_for("encoder.attn.q") == "encoder.attn"  # the longer prefix wins
    assert tols.pattern_for("encoder.ff") == "encoder"
    assert tols.pattern_for("encoderx") is None and tols.pattern_for("layers") is None
    assert tols.pattern_for("layers.3.conv") == "layers.*"
    atol, rtol, used = tols.pick("Linear", "float32", "encoder.attn.q")
    assert (atol, rtol) == (2e-5, 5e-3)  # rtol from the layer, atol from the entry's tolerance
    assert used == {"atol": 2e-5, "rtol": 5e-3, "source": "manifest", "pattern": "encoder.attn"}
    assert tols.pick("Linear", "float32", "head")[2]["source"] == "manifest"  # the entry-wide override
    _, _, used = tols.pick("Linear", "float32", "layers.0", factor=10.0)
    assert used["atol"] == pytest.approx(1e-3) and used["factor"] == 10.0


def test_tolerance_sources_without_a_manifest():
    from analysis.parity.compare import Tolerances

    tols = Tolerances(None, None)
    assert tols.pick("Linear", "float32", "fc")[2] == {"atol": 1e-5, "rtol": 1e-4, "source": "default"}
    assert tols.pick("LayerNorm", "float32", "norm")[2]["source"] == "op-kind"
    assert Tolerances({"loss_rtol": 1e-2}).pick("Linear", "float32")[2]["source"] == "default"


def test_manifest_dataset_and_layer_tolerance(tmp_path):
    path = tmp_path / "porting.toml"
    path.write_text(
        '[[entry]]\nclass = "models.mlp:MLP"\n'
        'dataset = { class = "data.toy:ToyDataset", kwargs = { size = 8 }, batch_size = 4 }\n'
        '[entry.layer_tolerance]\n"layers.*" = { atol = 1e-4, rtol = 1e-3 }\n'
    )
    (entry,) = load_manifest(path)
    assert entry["dataset"]["module"] == "data.toy" and entry["dataset"]["class_name"] == "ToyDataset"
    assert entry["dataset"]["batch_size"] == 4 and entry["dataset"]["kwargs"] == {"size": 8}
    assert entry["layer_tolerance"] == {"layers.*": {"atol": 1e-4, "rtol": 1e-3}}


@pytest.mark.parametrize("extra, message", [
    ('dataset = "data.toy:ToyDataset"\n', "dataset must be a table"),
    ('dataset = { class = "ToyDataset" }\n', "dataset 'class' must look like"),
    ('dataset = { class = "data.toy:T", batch_size = 0 }\n', "batch_size must be a positive integer"),
    ('dataset = { class = "data.toy:T", shuffle = true }\n', "unknown keys shuffle"),
    ('layer_tolerance = { fc = { atol = -1 } }\n', "must be a number >= 0"),
    ('layer_tolerance = { fc = { eps = 1e-3 } }\n', "must set atol and/or rtol only"),
])
def test_manifest_option_errors(tmp_path, extra, message):
    path = tmp_path / "porting.toml"
    path.write_text('[[entry]]\nclass = "m:X"\n' + extra)
    with pytest.raises(ManifestError, match=message):
        load_manifest(path)


def test_dataset_batches_in_order_wrapping_and_keyed():
    from analysis.parity.dataset import DatasetError, draw_batches

    samples = [(np.full(3, i, np.float32), i % 2) for i in range(5)]
    batches = draw_batches(samples, {"batch_size": 2}, 3)
    assert [b.inputs[0][:, 0].tolist() for b in batches] == [[0, 1], [2, 3], [4, 0]]
    assert batches[2].label.tolist() == [0, 0]
    keyed = draw_batches([{"x": np.ones(2), "y": 1}], {"batch_size": 2, "input_keys": ["x"], "label_key": "y"}, 1)
    assert keyed[0].inputs[0].shape == (2, 2) and keyed[0].label.tolist() == [1, 1]
    with pytest.raises(DatasetError, match="name input_keys"):
        draw_batches([{"x": 1}], {"batch_size": 1}, 1)
    with pytest.raises(DatasetError, match="empty"):
        draw_batches([], {"batch_size": 1}, 1)


def test_layer_chart_hover_names_the_tolerance_source():
    from porting_site.projects.charts import layer_errors

    rows = [{"path": "proj", "status": "pass", "max_abs": 2e-4, "atol": 1e-3, "rtol": 1e-4,
             "tolerance": {"atol": 1e-3, "rtol": 1e-4, "source": "manifest", "pattern": "pro?"}},
            {"path": "head", "status": "pass", "max_abs": 1e-7, "atol": 1e-5, "rtol": 1e-4}]
    hover = layer_errors(rows)["data"][0]["hovertext"]
    assert hover[0].endswith("tolerance atol 0.001, rtol 0.0001 (manifest pro?)")
    assert "tolerance" not in hover[1]  # a report from before per-layer tolerances
