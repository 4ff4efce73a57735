"""MS-TORCH-BOUND-IMPORT: the analyzer reports exactly the imports the converter marks
(knowledge/data/torch_bound.json, read by both); the upload's own `*_pytorch` package is neither."""
from __future__ import annotations

from analysis.convert import convert_tree
from analysis.scan import analyze_tree

FILES = {
    "my_pytorch/__init__.py": "from my_pytorch.layers import Block\n",
    "my_pytorch/layers.py": "import torch.nn as nn\nfrom einops.layers.torch import Rearrange\nimport timm\n\n\n"
                            "class Block(nn.Module):\n    pass\n",
    "train.py": "import torch\nfrom my_pytorch import Block\nfrom vit_pytorch import ViT\nfrom accelerate import Accelerator\n",
}


def test_findings_are_the_markers(tmp_path):
    src = tmp_path / "src"
    for rel, text in FILES.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text)
    found = {(r.path, f.line, f.torch_api) for r in analyze_tree(src, jobs=1) for f in r.findings
             if f.rule_id == "MS-TORCH-BOUND-IMPORT"}
    assert found == {("my_pytorch/layers.py", 3, "timm"), ("train.py", 3, "vit_pytorch"), ("train.py", 4, "accelerate")}
    converted = convert_tree(src, tmp_path / "out", jobs=1)
    marked = {(f.path, u.line, u.torch_api) for f in converted.files for u in f.unconverted
              if u.rule_id == "MS-TORCH-BOUND-IMPORT"}
    assert marked == found
