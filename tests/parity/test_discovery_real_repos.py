"""The parts of issue 18 that need no framework run: discovery on code shaped
like real repositories, the loader's stubs and trimmed import, the noise band
in the metrics, the manifest's new keys, and the noise band in the charts."""
from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest

from analysis.parity import discover
from analysis.parity.compare import Capture, metrics, noise_of
from analysis.parity.manifest import ManifestError, load_manifest


def _tree(tmp_path, files: dict[str, str]):
    for name, body in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(body).lstrip())
    return tmp_path


SCRIPT = '''
    import argparse
    import torch
    import torch.nn as nn
    import torchvision.transforms as transforms
    import not_installed_anywhere as helper

    parser = argparse.ArgumentParser()
    parser.add_argument("--hidden", type=int, required=True)
    args = parser.parse_args()
    input_size = 784
    num_classes = 10
    data = helper.load("mnist")

    class Net(nn.Module):
        def __init__(self, input_size, hidden_size, num_classes):
            super().__init__()
            self.fc = nn.Linear(input_size, hidden_size)
            self.out = nn.Linear(hidden_size, num_classes)

        def forward(self, x):
            return self.out(self.fc(x).relu())

    class Seq2Seq(nn.Transformer):
        pass

    model = Net(input_size, 500, num_classes)
    for epoch in range(10 ** 9):
        raise SystemExit("the training loop must not run at import")
'''


def test_call_sites_factories_configs_and_library_subclasses(tmp_path):
    root = _tree(tmp_path, {
        "tutorial/main.py": SCRIPT,
        "gpt.py": '''
            from dataclasses import dataclass
            import torch.nn as nn

            @dataclass
            class GPTConfig:
                n_layer: int = 2
                n_embd: int = 32

            class GPT(nn.Module):
                def __init__(self, config):
                    super().__init__()
                    self.config = config
        ''',
        "resnet.py": '''
            from torch import nn
            from torch.nn import Module

            class Block(Module):
                def __init__(self, cin, cout, stride=1):
                    super().__init__()

            class ResNet(nn.Module):
                def __init__(self, block, layers, num_classes=10):
                    super().__init__()

            def ResNet18():
                return ResNet(Block, [2, 2, 2, 2])
        ''',
    })
    found = {(e["module"], e["name"]): e for e in discover.candidates(root)}
    net = found[("tutorial.main", "Net")]
    assert net["args"] == [784, 500, 10] and net["arguments_from"] == "tutorial/main.py:26"
    assert ("tutorial.main", "Seq2Seq") in found  # a subclass of nn.Transformer is a module too
    gpt = found[("gpt", "GPT")]
    assert gpt["kwargs"] == {"config": {"call": "gpt:GPTConfig"}}
    factory = found[("resnet", "ResNet18()")]
    assert (factory["factory"], factory["class"]) == ("ResNet18", "ResNet")
    assert "args" not in found[("resnet", "Block")]  # no literal call site: the reason will say what to add


def test_loader_skips_script_work_stubs_missing_modules_and_neutralises_argv(tmp_path):
    from analysis.parity.loader import load

    root = _tree(tmp_path, {"tutorial/main.py": SCRIPT})
    argv = list(sys.argv)
    try:
        net, notes = load(str(root), "tutorial.main", "Net")
        args, _ = load(str(root), "tutorial.main", "args")
    finally:
        for name in [n for n in sys.modules if n.startswith("tutorial")]:
            del sys.modules[name]
    assert sys.argv == argv
    assert "not_installed_anywhere" in notes["stubbed_modules"]
    assert args.hidden is None  # import-time argparse: defaults, no SystemExit
    import torch

    assert issubclass(net, torch.nn.Module) and net(784, 8, 10)(torch.zeros(2, 784)).shape == (2, 10)


def test_the_noise_band_widens_the_floor_but_not_for_drift():
    reference = np.full(100, 10.0, np.float32)
    off = reference + np.float32(5e-3)
    floor = dict(atol=1e-5, rtol=1e-4)  # allows 1e-3 here
    assert metrics(Capture(reference), Capture(off), **floor)["status"] == "fail"
    noisy = metrics(Capture(reference), Capture(off), **floor, noise=2e-3)
    assert (noisy["status"], noisy["label"]) == ("pass", "float32 noise") and noisy["noise_band"] == pytest.approx(8e-3)
    drift = metrics(Capture(reference), Capture(reference + 1.0), **floor, noise=2e-3)
    assert drift["status"] == "fail" and drift["label"] == "drift"
    exact64 = reference.astype(np.float64) + 1e-6
    assert noise_of(Capture(reference), Capture(exact64)) == pytest.approx(1e-6)


def test_manifest_factories_nested_arguments_inputs_and_timeouts(tmp_path):
    path = tmp_path / "porting.toml"
    path.write_text(textwrap.dedent('''
        [[entry]]
        factory = "models.resnet:ResNet18"
        class = "ResNet"
        timeout = 90
        inputs = [{ tuple = [{ shape = [2, 3] }, { shape = [2, 3], dtype = "float64" }] },
                  { name = "mask", shape = [2, 3], dtype = "bool" }]

        [[entry]]
        class = "model:GPT"
        kwargs = { config = { call = "model:GPTConfig", kwargs = { n_layer = 2 } }, block = { class = "model:Block" } }
    '''))
    first, second = load_manifest(path)
    assert (first["factory"], first["class"], first["name"], first["timeout"]) == ("ResNet18", "ResNet",
                                                                                   "ResNet18()", 90)
    assert second["kwargs"]["config"] == {"call": "model:GPTConfig", "kwargs": {"n_layer": 2}}
    path.write_text('[[entry]]\nclass = "m:C"\ntimeout = -1\n')
    with pytest.raises(ManifestError, match="timeout"):
        load_manifest(path)
    path.write_text('[[entry]]\nclass = "m:C"\ninputs = [{ shape = [1], dtype = "complex64" }]\n')
    with pytest.raises(ManifestError, match="dtype"):
        load_manifest(path)


def test_charts_draw_the_noise_band():
    from porting_site.projects.charts import layer_errors, loss_curves

    rows = [{"path": "fc", "status": "pass", "label": "float32 noise", "max_abs": 5e-3, "atol": 1e-5, "rtol": 1e-4,
             "noise_max_abs": 2e-3, "noise_band": 8e-3, "stats_torch": {"min": 0, "max": 10}},
            {"path": "", "root": True, "status": "pass", "max_abs": 1e-7, "atol": 1e-5, "rtol": 1e-4,
             "noise_max_abs": 1e-8, "noise_band": 4e-8}]
    chart = layer_errors(rows)
    names = [trace["name"] for trace in chart["data"]]
    assert "PyTorch float32 noise (vs float64)" in names
    assert chart["data"][1]["y"][0] == pytest.approx(8e-3)  # the tolerance line follows the band where it is wider
    curve = loss_curves([1.0, 0.9], [1.0, 0.91], rtol=1e-3, band=[1e-3, 2e-2])
    band = next(trace for trace in curve["data"] if trace["name"] == "allowed (noise band)")
    assert band["y"] == [1e-3, 2e-2]
