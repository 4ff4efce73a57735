"""Manifest options on real torch and MindSpore: loss-curve batches from the
repo's own dataset, per-layer tolerance overrides, and a device the worker
does not have. The manifests share one sandboxed child (check_parity_many)."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from analysis.parity import check_parity, check_parity_many
from analysis.parity.dataset import Batch

from .conftest import MS_REPO, TORCH_REPO, edited_twin, manifest_for

pytestmark = pytest.mark.slow

MLP = '[[entry]]\nname = "{name}"\nclass = "models.mlp:MLP"\nloss = "cross_entropy"\nloss_steps = {steps}\n'
TOY = 'dataset = {{ class = "data.toy:{cls}", kwargs = {{ {kwargs} }}, batch_size = 8{extra} }}\n'
SGD = 'optimizer = {name = "SGD", lr = 0.1}\n'

# A hand-written Dense in the converted encoder whose output carries a small
# constant offset (the way a bias added in lower precision might): `proj`
# itself is off, while norm1 right after it removes a constant shift, so
# nothing downstream differs.
SHIFTED_DENSE = '''

class ShiftedDense(nn.Dense):
    def construct(self, x):
        return super().construct(x) + 2e-4
'''
ENCODER = '[[entry]]\nname = "{name}"\nclass = "models.encoder:TinyEncoder"\nloss_steps = 2\n'


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("options")
    shifted = edited_twin(tmp, "shifted", "models/encoder.py",
                          ("self.proj = nn.Dense(dim, dim)", "self.proj = ShiftedDense(dim, dim)"),
                          ("\n\nclass TinyEncoder", SHIFTED_DENSE + "\n\nclass TinyEncoder"))
    data = "".join([
        MLP.format(name="dataset", steps=6) + SGD + TOY.format(cls="ToyDataset", kwargs="size = 20", extra=""),
        MLP.format(name="random", steps=6) + SGD,
        MLP.format(name="dataset_wrong_lr", steps=6) + SGD + 'converted_optimizer = {name = "SGD", lr = 1.0}\n'
        + TOY.format(cls="ToyDataset", kwargs="size = 20", extra=""),
        MLP.format(name="dict_samples", steps=2) + TOY.format(
            cls="ToyDataset", kwargs="as_dict = true", extra=', input_keys = ["features"], label_key = "label"'),
        MLP.format(name="ragged", steps=2) + TOY.format(cls="RaggedDataset", kwargs="", extra=""),
        MLP.format(name="missing_class", steps=2) + TOY.format(cls="NoSuchDataset", kwargs="", extra=""),
        MLP.format(name="labels_unfit", steps=2).replace("cross_entropy", "mse")
        + TOY.format(cls="ToyDataset", kwargs="", extra=""),
    ])
    tolerances = "".join([
        ENCODER.format(name="default"),
        ENCODER.format(name="override")
        + '[entry.layer_tolerance]\n"proj" = { atol = 1e-3 }\n"ff.*" = { rtol = 1e-3 }\n',
        ENCODER.format(name="glob") + '[entry.layer_tolerance]\n"pro?" = { atol = 1e-3 }\n',
    ])
    results = check_parity_many([(TORCH_REPO, MS_REPO, manifest_for(tmp, "data", data)),
                                 (TORCH_REPO, shifted, manifest_for(tmp, "tol", tolerances))], timeout_s=240)
    return {e["name"]: e for report in results for e in report["entry_points"]}


def _toy_batches(count: int, size: int = 20, batch: int = 8) -> list[Batch]:
    """The fixture dataset read here directly, in order, wrapping around."""
    spec = importlib.util.spec_from_file_location("fixture_toy", TORCH_REPO / "data" / "toy.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    dataset = module.ToyDataset(size=size)
    out = []
    for b in range(count):
        samples = [dataset[(b * batch + i) % size] for i in range(batch)]
        out.append(Batch([np.stack([x.numpy() for x, _ in samples])], np.stack([y.numpy() for _, y in samples])))
    return out


def test_loss_curve_runs_on_the_repos_dataset_in_order(reports):
    entry = reports["dataset"]
    assert entry["status"] == "pass", entry["reason"]
    curve = entry["loss_curve"]
    assert curve["batches"]["source"] == "dataset" and curve["batches"]["count"] == 6
    # Batch 5 wraps around to the first 8 samples again (20 samples, 8 per batch).
    assert curve["batches"]["digests"] == [b.digest() for b in _toy_batches(6)]
    assert curve["batches"]["digests"][5] == curve["batches"]["digests"][0]
    assert entry["input_source"] == "dataset data.toy:ToyDataset"
    assert entry["inputs"] == [{"shape": [8, 20], "dtype": "float32"}]
    assert curve["torch"][-1] < curve["torch"][0]  # it trained on the labels
    assert curve["max_relative_difference"] < 1e-3


def test_dataset_batches_differ_from_random_ones(reports):
    data, random = reports["dataset"]["loss_curve"], reports["random"]["loss_curve"]
    assert random["batches"]["source"] == "random"
    assert not set(data["batches"]["digests"]) & set(random["batches"]["digests"])
    assert data["torch"][0] != pytest.approx(random["torch"][0], rel=1e-3)


def test_wrong_learning_rate_fails_on_dataset_batches(reports):
    entry = reports["dataset_wrong_lr"]
    assert entry["status"] == "fail"
    assert entry["loss_curve"]["status"] == "fail" and entry["loss_curve"]["first_diverging_step"] == 1


def test_dict_samples_by_keys(reports):
    entry = reports["dict_samples"]
    assert entry["status"] == "pass", entry["reason"]
    assert entry["loss_curve"]["batches"]["source"] == "dataset"


@pytest.mark.parametrize("name, words", [
    ("ragged", "dataset data.toy:RaggedDataset: sample 2: input 0 has shape [19], sample 0 had [20]"),
    ("missing_class", "dataset data.toy:NoSuchDataset: class not found in the original tree"),
    ("labels_unfit", "labels of shape [8] do not fit the mse loss"),
])
def test_dataset_problems_are_entry_errors(reports, name, words):
    entry = reports[name]
    assert entry["status"] == "error" and words in entry["reason"]


def test_layer_off_by_a_little_fails_with_default_tolerance(reports):
    entry = reports["default"]
    assert entry["status"] == "fail" and entry["first_diverging_layer"] == "proj"
    proj = next(layer for layer in entry["layers"] if layer["path"] == "proj")
    assert proj["status"] == "fail" and proj["tolerance"] == {"atol": 1e-5, "rtol": 1e-4, "source": "default"}
    norm1 = next(layer for layer in entry["layers"] if layer["path"] == "norm1")
    assert norm1["status"] == "pass" and norm1["tolerance"]["source"] == "op-kind"


@pytest.mark.parametrize("name, pattern", [("override", "proj"), ("glob", "pro?")])
def test_layer_tolerance_override_lets_it_pass_and_is_reported(reports, name, pattern):
    entry = reports[name]
    assert entry["status"] == "pass", entry["reason"]
    proj = next(layer for layer in entry["layers"] if layer["path"] == "proj")
    assert proj["status"] == "pass" and proj["max_abs"] > 1e-4
    assert proj["tolerance"] == {"atol": 1e-3, "rtol": 1e-4, "source": "manifest", "pattern": pattern}
    for rows in (entry["layers_train"], entry["gradients"], entry["state_after_step"]):
        used = [r["tolerance"] for r in rows if r.get("layer", r.get("path")) == "proj"]
        assert used and all(t["source"] == "manifest" and t["pattern"] == pattern for t in used)
    head = next(layer for layer in entry["layers"] if layer["path"] == "head")
    assert head["tolerance"]["source"] == "default"


def test_layer_tolerance_glob_covers_children(reports):
    rows = {layer["path"]: layer["tolerance"] for layer in reports["override"]["layers"]}
    assert rows["ff.0"] == {"atol": 1e-5, "rtol": 1e-3, "source": "manifest", "pattern": "ff.*"}
    assert rows["ff"]["source"] == "default"  # "ff.*" names the children, not the container


@pytest.mark.parametrize("device, words", [("gpu", "PyTorch sees no CUDA device"),
                                            ("ascend", "MindSpore cannot use Ascend")])
def test_missing_device_is_an_entry_error_not_a_cpu_run(tmp_path, device, words):
    import torch

    if device == "gpu" and torch.cuda.is_available():
        pytest.skip("this worker has a GPU")
    manifest = manifest_for(tmp_path, "mlp", '[[entry]]\nclass = "models.mlp:MLP"\nloss_steps = 2\n')
    report = check_parity(TORCH_REPO, MS_REPO, manifest=manifest, device=device, timeout_s=120)
    (entry,) = report["entry_points"]
    assert entry["status"] == "error" and entry["device"] == device
    assert entry["reason"].startswith(f"device {device} not available on this worker: ")
    assert words in entry["reason"]
    assert entry["layers"] == [] and entry["loss_curve"] == {}  # nothing ran on the CPU instead
