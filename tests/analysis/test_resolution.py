"""Name resolution through imports/aliases, tensor inference, positions and argument differences."""
from __future__ import annotations

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from analysis.convert import convert_source
from analysis.findings import UseStatus
from analysis.scan import analyze_source
from tests.analysis.rule_cases import CASES
from tests.conftest import SAMPLE_REPO


def apis(source: str, path: str = "m.py") -> list[str]:
    return [f.torch_api for f in analyze_source(source, path).findings if f.torch_api]


@pytest.mark.parametrize("source, expected", [
    ("import torch\nx = torch.nn.Conv2d(1, 2, 3)\n", "torch.nn.Conv2d"),
    ("import torch.nn as nn\nx = nn.Conv2d(1, 2, 3)\n", "torch.nn.Conv2d"),
    ("from torch import nn, optim\nx = nn.Conv2d(1, 2, 3)\n", "torch.nn.Conv2d"),
    ("import torch.nn.functional as F\ny = F.relu(1)\n", "torch.nn.functional.relu"),
    ("from torch.nn import Conv2d as C\nx = C(1, 2, 3)\n", "torch.nn.Conv2d"),
    ("from torch.utils.data import DataLoader\nd = DataLoader([1])\n", "torch.utils.data.DataLoader"),
    ("from torch.nn import *\nx = Conv2d(1, 2, 3)\n", "torch.nn.Conv2d"),
    ("def f():\n    import torch.nn as tnn\n    return tnn.Conv2d(1, 2, 3)\n", "torch.nn.Conv2d"),
    ("import torchvision.transforms as T\nt = T.Resize(32)\n", "torchvision.transforms.Resize"),
    ("import torchaudio\nw = torchaudio.transforms.Spectrogram()\n", "torchaudio.transforms.Spectrogram"),
    ("from torchtext import datasets\nd = datasets.AG_NEWS()\n", "torchtext.datasets.AG_NEWS"),
    # the implementation modules torch.nn re-exports its layers from
    ("from torch.nn.modules.activation import ReLU\nr = ReLU(True)\n", "torch.nn.ReLU"),
    ("import torch.nn as nn\nc = nn.modules.conv.Conv2d(1, 2, 3)\n", "torch.nn.Conv2d"),
    ("from torch.nn import modules\nm = modules.Linear(2, 3)\n", "torch.nn.Linear"),
])
def test_alias_resolution(source, expected):
    assert expected in apis(source)


def test_layers_named_through_their_implementation_module_convert_as_torch_nn_ones():
    source = ("import torch.nn as nn\nfrom torch.nn.modules.batchnorm import _BatchNorm\n"
              "r = nn.modules.activation.ReLU(True)\nc = nn.modules.conv.Conv2d(1, 2, 3, bias=False)\n"
              "class Norm(_BatchNorm):\n    pass\n")
    result = convert_source(source)
    assert "r = nn.ReLU()" in result.text and "c = Conv2d(1, 2, 3, has_bias=False" in result.text
    # a private base class keeps its own name (torch.nn does not export it) and is marked
    assert [u.torch_api for u in result.unconverted] == ["torch.nn.modules.batchnorm._BatchNorm"]


def test_function_local_import_does_not_leak():
    source = "def f():\n    import torch.nn as nn\n    return nn.ReLU()\nclass nn:\n    ReLU = int\ny = nn.ReLU()\n"
    assert apis(source).count("torch.nn.ReLU") == 1


def test_a_parameter_or_local_variable_hides_an_import_of_the_same_name():
    # collate_fn(data) sorts the list it is given, whatever `import torch.utils.data as data` says outside
    source = ("import torch\nimport torch.utils.data as data\nimport torch.nn.functional as F\n"
              "def collate_fn(data):\n    data.sort(key=len)\n    return data\n"
              "def load(path):\n    data = read(path)\n    return data.DataLoader\n"
              "def alias():\n    F = torch.nn.functional\n    return F.relu(1)\n"
              "def outer():\n    global data\n    return data.DataLoader([1])\n")
    found = apis(source)
    assert not any(a.startswith("torch.utils.data.") and a != "torch.utils.data.DataLoader" for a in found)
    assert found.count("torch.utils.data.DataLoader") == 1  # only where `global data` reaches the module
    assert "torch.nn.functional.relu" in found  # an alias rebound inside still resolves
    converted = convert_source(source)
    assert "data.sort(key=len)" in converted.text
    # nor is it a tensor's sort: key= is no keyword of PyTorch's (apis/tensor_keywords.py), so no marker either
    assert not [u for u in converted.unconverted if u.line == 5]
    assert [u.line for u in converted.unconverted if u.torch_api.startswith("torch.utils.data.")] == [15]


def test_unrelated_names_are_not_torch():
    assert apis("import numpy as np\nx = np.zeros(3).view()\nmy = {}.items()\n") == []


def test_tensor_methods_carry_confidence_and_unknown_is_unresolved():
    source = (
        "import torch\n"
        "def f(a: torch.Tensor, b):\n"
        "    c = torch.ones(2)\n"
        "    return a.permute(1, 0), b.permute(1, 0), c.permute(0)\n"
    )
    found = {(f.line, f.column): f for f in analyze_source(source, "m.py").findings if f.rule_id == "MS-API-MAPPED"}
    annotated, unknown, inferred = found[(4, 11)], found[(4, 28)], found[(4, 45)]
    assert annotated.torch_api == unknown.torch_api == "torch.Tensor.permute"
    assert annotated.confidence >= 0.9 and inferred.confidence >= 0.9
    assert unknown.confidence < 0.5 and unknown.status is UseStatus.UNRESOLVED
    assert annotated.status is UseStatus.CONVERTED


def test_forward_args_and_self_attributes_are_tensors():
    source = (
        "import torch\nimport torch.nn as nn\n"
        "class M(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.w = torch.zeros(3)\n"
        "    def forward(self, x):\n"
        "        return x.view(-1) + self.w.view(-1)\n"
    )
    views = [f for f in analyze_source(source, "m.py").findings if f.torch_api == "torch.Tensor.view"]
    assert len(views) == 2 and all(f.status is not UseStatus.UNRESOLVED for f in views)


def test_cpu_numpy_chain():
    found = analyze_source("import torch\ny = torch.ones(2).cpu().numpy()\n", "m.py").findings
    numpy = next(f for f in found if f.rule_id == "MS-TENSOR-NUMPY")
    assert numpy.mindspore_api == "mindspore.Tensor.asnumpy" and numpy.line == 2


def test_differing_arguments_are_listed():
    found = analyze_source("import torch.nn as nn\nc = nn.Conv2d(1, 2, 3, bias=False, groups=1)\n", "m.py").findings
    # the converter writes has_bias=/group=: the finding says converted and keeps the table's rows
    diff = next(f for f in found if f.torch_api == "torch.nn.Conv2d" and f.rule_id.startswith("MS-API"))
    assert diff.status == UseStatus.CONVERTED and "has_bias" in diff.message  # what was written
    args = {d["arg"]: d["mindspore"] for d in diff.extra["differing_args"]}
    assert args["bias"] == "has_bias" and args["groups"] == "group"
    assert diff.extra["renamed_args"]["groups"] == "group"
    assert diff.mindspore_api == "mindspore.nn.Conv2d" and diff.category == "diff"


def test_module_subclass_across_files(tmp_path):
    from analysis.scan import analyze_tree

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from .base import Base\n")
    (tmp_path / "pkg" / "base.py").write_text("import torch.nn as nn\nclass Base(nn.Module):\n    pass\n")
    (tmp_path / "net.py").write_text(
        "import numpy as np\nfrom pkg import Base\nclass Net(Base):\n    def forward(self, x):\n"
        "        return x.view(-1) * np.pi\n")
    reports = {r.path: r for r in analyze_tree(tmp_path, jobs=1)}
    ids = [f.rule_id for f in reports["net.py"].findings]
    assert "MS-CELL-SUBCLASS" in ids and "MS-CELL-FORWARD" in ids
    view = next(f for f in reports["net.py"].findings if f.torch_api == "torch.Tensor.view")
    assert view.confidence == 0.8  # forward argument


def _exact_spans(source: str) -> set[tuple[int, int]]:
    module = cst.parse_module(source)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return {(p.start.line, p.start.column) for p in positions.values()}


@pytest.mark.parametrize("name", ["train.py", "models/lenet.py", "models/mlp.py"])
def test_positions_match_libcst_positions(name):
    source = (SAMPLE_REPO / name).read_text()
    starts = _exact_spans(source)
    for finding in analyze_source(source, name).findings:
        assert (finding.line, finding.column) in starts, finding


def test_positions_on_rule_cases_match_libcst():
    for positive, _ in CASES.values():
        if "print '" in positive:
            continue
        starts = _exact_spans(positive)
        for finding in analyze_source(positive, "case.py").findings:
            assert (finding.line, finding.column) in starts, finding


def test_calls_on_self_are_not_tensor_methods():
    # self.relu is the object's own layer or method even though Tensor.relu exists.
    source = (
        "import torch\nimport torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.relu = nn.ReLU()\n"
        "    def forward(self, x):\n        return self.relu(x).relu()\n"
        "class Helper:\n    def relu(self, v):\n        return v\n    def go(self, v):\n        return self.relu(v)\n"
    )
    assert apis(source).count("torch.Tensor.relu") == 1


def test_curated_constant_rewrite_is_not_also_a_manual_jit_finding():
    source = "import torch\nif torch.jit.is_scripting():\n    pass\nnet = torch.jit.script(net)\n"
    found = {(f.line, f.rule_id, f.status) for f in analyze_source(source, "m.py").findings}
    assert (2, "MS-API-MAPPED", UseStatus.CONVERTED) in found
    assert not any(line == 2 and rule == "MS-JIT" for line, rule, _ in found)
    assert (4, "MS-JIT", UseStatus.MANUAL) in found  # scripting a module is still a person's job
    message = next(f.message for f in analyze_source(source, "m.py").findings if f.line == 2)
    assert "-> False" in message  # what the converter wrote
