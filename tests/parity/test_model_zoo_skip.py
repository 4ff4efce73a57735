"""A class that wraps a model-zoo model (`torchvision.models.resnet152(pretrained=True)`,
pytorch-tutorial's image-captioning encoder and style-transfer VGG) cannot be checked
from the automatic conversion: MindSpore has no model zoo, so the converted class
still holds the torchvision call. The skip says so, names the model and its MindSpore
counterpart, and the one thing a person adds (a MindSpore build in the converted tree),
not only that torchvision does not import here."""
from __future__ import annotations

import io
import json
import textwrap

import pytest

from analysis.cli.parity import run

pytestmark = pytest.mark.slow

MODEL = '''
    import torch
    import torch.nn as nn
    import torchvision.models as models

    class Encoder(nn.Module):
        def __init__(self, embed_size):
            super().__init__()
            resnet = models.resnet18(pretrained=True)
            self.body = nn.Sequential(*list(resnet.children())[:-1])
            self.fc = nn.Linear(resnet.fc.in_features, embed_size)

        def forward(self, images):
            return self.fc(self.body(images).flatten(1))

    class Features(nn.Module):
        def __init__(self):
            super().__init__()
            self.vgg = models.vgg19(pretrained=True).features

        def forward(self, x):
            return self.vgg(x)

    if __name__ == "__main__":
        encoder = Encoder(16)
        features = Features()
'''


def test_a_model_zoo_model_is_skipped_with_what_to_write(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "model.py").write_text(textwrap.dedent(MODEL).lstrip())
    out = io.StringIO()
    code = run({"original_dir": str(root), "loss_steps": 1, "timeout": 300, "format": "json"}, out)
    report = json.loads(out.getvalue())
    entries = {e["name"]: e for e in report["entry_points"]}
    assert code == 3 and set(entries) == {"Encoder", "Features"}, out.getvalue()[:2000]
    for name, model, twin in (("Encoder", "resnet18", "resnet18"), ("Features", "vgg19", "vgg19")):
        entry = entries[name]
        assert entry["status"] == "skipped", entry
        reason = entry["reason"]
        assert f"torchvision.models.{model}" in reason and f"mindcv.create_model('{twin}')" in reason, reason
        assert "--converted" in reason, reason
