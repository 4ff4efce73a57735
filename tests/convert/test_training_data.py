"""torchvision data -> mindspore.dataset (issue 16, pattern 6): datasets whose files on disk are the
same become MindSpore dataset classes with the transforms applied by .map; the others are marked.
The run test reads the same synthetic MNIST files (tests/convert/realworld/make_data.py) through the
converted pipeline with real MindSpore and compares the batches with the PyTorch reference side (real
torch DataLoader over the test-only torchvision stand-in in tests/convert/realworld/reference_shim)."""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from analysis.convert import convert_source
from tests.convert.realworld import make_data

SHIM = Path(__file__).parent / "realworld" / "reference_shim"
SOURCE = """import numpy as np
import torch
import torchvision
import torchvision.transforms as transforms
transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize(mean=(0.5,), std=(0.5,))])
train = torchvision.datasets.MNIST(root=ROOT, train=True, transform=transform, download=True)
loader = torch.utils.data.DataLoader(dataset=train, batch_size=50, shuffle=False)
images, labels = [], []
for x, y in loader:
    images.append(x.numpy())
    labels.append(y.numpy())
"""


def test_mnist_becomes_mnist_dataset_with_mapped_transforms():
    result = convert_source(SOURCE.replace("ROOT", "'../../data/'"))
    text = result.text
    ast.parse(text)
    assert "ds.MnistDataset('../../data/MNIST/raw', usage='train', shuffle=False)" in text
    assert ".map(operations=transform, input_columns='image')" in text
    assert "ds.vision.Normalize(mean=(0.5,), std=(0.5,), is_hwc=False)" in text
    assert "torchvision" not in text and not result.unconverted
    assert "loader = train.batch(50)" in text


def test_root_from_a_variable_and_train_flag_from_a_variable():
    text = convert_source("import torchvision\nd = torchvision.datasets.MNIST(path, train=is_train)\n").text
    assert "ds.MnistDataset(f\"{path}/MNIST/raw\", usage='train' if is_train else 'test', shuffle=False)" in text


def test_cifar_files_differ_and_stay_marked():
    result = convert_source("import torchvision\nd = torchvision.datasets.CIFAR10(root='data', train=True)\n")
    [item] = result.unconverted
    assert "binary release" in item.action and "cifar-10-batches-bin" in item.action


def _run(code: str, cwd: Path, env: dict) -> dict:
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, env={**os.environ, **env, "GLOG_v": "3"},
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_converted_pipeline_gives_pytorch_batches(tmp_path):
    make_data.mnist(tmp_path / "data")
    source = SOURCE.replace("ROOT", "'data'")
    dump = "\nimport json\nprint(json.dumps({'images': np.concatenate(images).tolist(), 'labels': np.concatenate(labels).tolist()}))\n"
    converted = convert_source(source).text
    reference = _run(source + dump, tmp_path, {"PYTHONPATH": str(SHIM)})
    ours = _run(converted + dump, tmp_path, {"PYTHONPATH": ""})
    a, b = np.array(reference["images"], dtype=np.float32), np.array(ours["images"], dtype=np.float32)
    assert a.shape == b.shape == (make_data.MNIST_TRAIN, 1, 28, 28)
    assert np.allclose(a, b, atol=1e-6)
    assert reference["labels"] == ours["labels"]
