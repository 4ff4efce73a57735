"""torchvision.models constructors stay marked with MindSpore's nearest option (issue 16, pattern 6)."""
from __future__ import annotations

from analysis.convert import convert_source


def test_torchvision_models_are_marked_with_the_mindcv_model_of_the_same_architecture():
    result = convert_source("import torchvision\nfrom torchvision import models\n"
                            "m = models.resnet18(pretrained=True)\n"
                            "f = torchvision.models.vgg19(pretrained=True).features\n"
                            "n = models.mobilenet_v2(num_classes=10)\n")
    actions = {u.line: u.action for u in result.unconverted if u.torch_api.startswith("torchvision.models.")}
    assert "mindcv.create_model('resnet18'" in actions[3] and "fc -> classifier" in actions[3]
    assert "mindcv.create_model('vgg19'" in actions[4] and "classifier" not in actions[4]
    assert "mindcv.create_model('mobilenet_v2_100'" in actions[5]
    assert "models.resnet18(pretrained=True)" in result.text  # the call itself stays as it was
