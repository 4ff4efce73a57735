"""Issue #4 follow-ups: MindSpore import names that never shadow the file's own, TorchScript
decorators, tensors kept out of the layer map, device variables that are still read, and
loaders a loop rebuilds over one MindSpore dataset. Values are compared by the snippet
corpus (tests/convert/corpus/semantic/conv3_*.py); these tests hold the text."""
from __future__ import annotations

import ast

from analysis.convert import convert_source


def convert(source: str):
    result = convert_source(source)
    ast.parse(result.text)
    return result


def lines(result) -> list[str]:
    return result.text.splitlines()


# -- 1. import names -------------------------------------------------------------------------------
def test_a_user_variable_named_ds_keeps_its_meaning():
    result = convert(
        "from torch.utils.data import DataLoader\n"
        "def train(make):\n"
        "    ds = make()\n"
        "    loader = DataLoader(ds, batch_size=4)\n"
        "    for x, y in loader:\n"
        "        print(x)\n"
    )
    assert "import mindspore.dataset as ms_ds" in lines(result)
    assert "    loader = ms_ds.GeneratorDataset(ds, column_names=['data', 'label']).batch(4)" in lines(result)
    assert "import mindspore.dataset as ds" not in result.text


def test_the_users_own_ops_and_nn_modules_are_left_alone():
    result = convert(
        "import torch\n"
        "from torch import nn as tnn\n"
        "from mylib import ops\n"
        "import mylib.layers as nn\n"
        "class M(tnn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = tnn.Linear(2, 2)\n"
        "        self.own = nn.Thing()\n"
        "    def forward(self, x):\n"
        "        return ops.custom(torch.relu(self.fc(x)))\n"
    )
    text = lines(result)
    assert "from mindspore import ops as ms_ops" in text and "from mindspore import nn as ms_nn" in text
    assert "from mylib import ops" in text and "import mylib.layers as nn" in text
    assert "class M(ms_nn.Cell):" in text
    assert "        self.fc = ms_nn.Dense(2, 2)" in text and "        self.own = nn.Thing()" in text
    assert "        return ops.custom(ms_ops.relu(self.fc(x)))" in text
    # the layer map still names MindSpore's class, whatever the file calls its module
    assert [(r.attribute, r.mindspore_api) for r in result.layer_map] == [("fc", "mindspore.nn.Dense")]


def test_every_alias_steps_aside_consistently_and_numbers_when_needed():
    result = convert(
        "import torch\n"
        "def f(init, optim, ms_init, mindspore):\n"
        "    torch.nn.init.zeros_(init.weight)\n"
        "    return torch.optim.RMSprop(optim.parameters()), torch.float32\n"
    )
    text = lines(result)
    assert "from mindspore.common import initializer as ms_init_2" in text
    assert "from mindspore.experimental import optim as ms_optim" in text
    assert "import mindspore as ms" in text
    assert "    return ms_optim.RMSprop(optim.trainable_params()), ms.float32" in result.text
    assert "ms_init_2.initializer(ms_init_2.Zero()" in result.text


def test_torch_names_and_mindspore_imports_already_there_are_reused():
    # nn was torch's (the converter takes it over); a file half migrated by hand keeps its imports
    result = convert(
        "import torch\nimport torch.nn as nn\nimport mindspore\nfrom mindspore import ops\n"
        "layer = nn.Linear(2, 2)\ny = torch.relu(layer(x))\nz = ops.abs(y)\n"
    )
    text = lines(result)
    assert "from mindspore import nn" in text and "import mindspore" in text
    assert text.count("from mindspore import ops") == 1
    assert "layer = nn.Dense(2, 2)" in text and "y = ops.relu(layer(x))" in text


def test_a_name_read_without_a_binding_in_the_file_is_not_taken_over():
    # `ops` could come from the star import: the MindSpore module must not replace it
    result = convert("import torch\nfrom helpers import *\ny = ops.prepare(torch.abs(x))\n")
    assert "y = ops.prepare(kernel_dtypes(ms_ops.abs, " in result.text  # (the bridge: complex abs is real)


# -- 2. TorchScript decorators ---------------------------------------------------------------------
def test_torchscript_decorators_are_removed_and_torch_import_dropped():
    result = convert(
        "import torch\n"
        "import torch.nn as nn\n"
        "class M(nn.Module):\n"
        "    # kept comment\n"
        "    @torch.jit.ignore\n"
        "    def a(self):\n"
        "        return 1\n"
        "\n"
        "    @staticmethod\n"
        "    @torch.jit.unused\n"
        "    def b():\n"
        "        return 2\n"
        "\n"
        "    @torch.jit.ignore(drop=True)\n"
        "    @torch.jit.export\n"
        "    def forward(self, x):\n"
        "        return x\n"
    )
    assert "jit" not in result.text and "import torch" not in result.text
    text = lines(result)
    assert text[text.index("    # kept comment") + 1] == "    def a(self):"
    assert text[text.index("    @staticmethod") + 1] == "    def b():"
    assert "    def construct(self, x):" in text
    jit = [(c.line, c.torch_api) for c in result.changes if c.rule_id == "MS-JIT"]
    assert jit == [(5, "torch.jit.ignore"), (10, "torch.jit.unused"), (14, "torch.jit.ignore"), (15, "torch.jit.export")]
    assert not result.unconverted


def test_a_bare_no_grad_decorator_no_longer_keeps_torch_imported():
    result = convert("import torch\n\n\n# note\n@torch.no_grad\ndef f(x):\n    return x\n")
    assert result.text == "\n\n# note\ndef f(x):\n    return x\n"
    assert [c.rule_id for c in result.changes] == ["MS-NO-GRAD"]


# -- 3. layer map ----------------------------------------------------------------------------------
def test_parameters_are_not_layers():
    result = convert(
        "import torch\nimport torch.nn as nn\n"
        "class M(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.w = nn.Parameter(torch.zeros(3))\n"
        "        self.fc = nn.Linear(3, 3)\n"
    )
    assert "self.w = mindspore.Parameter(ops.zeros(3))" in result.text
    assert [r.attribute for r in result.layer_map] == ["fc"]


# -- 4. device variables ---------------------------------------------------------------------------
TIMM_DEVICE = (
    "import torch\n"
    "class Resampler:\n"
    "    def prewarm(self, sizes, device=None):\n"
    "        if device is not None:\n"
    "            device = torch.empty(0, device=torch.device(device)).device\n"
    "        else:\n"
    "            device = self.anchor.device\n"
    "        for size in sizes:\n"
    "            self.build(size, device)\n"
)


def test_a_device_variable_read_elsewhere_is_kept_and_marked():
    result = convert(TIMM_DEVICE)
    text = lines(result)
    kept = "            device = torch.empty(0, device=torch.device(device)).device"
    assert kept in text
    assert text[text.index(kept) - 1].startswith("            # MIGRATE(MS-DEVICE-TORCH-DEVICE): device is also read")
    assert [(u.line, u.rule_id) for u in result.unconverted] == [(5, "MS-DEVICE-TORCH-DEVICE")]
    assert "import torch" in text  # the kept line still needs it
    assert not any(c.rule_id == "MS-DEVICE-TORCH-DEVICE" for c in result.changes)


def test_a_device_variable_read_only_by_moves_goes_whatever_its_name():
    result = convert(
        "import torch\n"
        "d = torch.device('cuda:0')\n"
        "self_device = torch.empty(0, device=torch.device('cpu')).device\n"
        "y = torch.zeros(3, device=d).to(d)\n"
        "z = y.cuda(self_device)\n"
    )
    assert "d =" not in result.text and "self_device" not in result.text and "torch" not in result.text
    assert lines(result)[-2:] == ["y = ops.zeros(3)", "z = y"]
    assert not result.unconverted


def test_a_device_variable_passed_to_the_files_own_function_is_kept():
    result = convert(
        "import torch\n"
        "device = torch.device('cpu')\n"
        "x = torch.ones(2).to(device)\n"
        "run(x, device=device)\n"
    )
    assert "device = torch.device('cpu')" in result.text
    assert "x = ops.ones(2)" in result.text
    assert [u.rule_id for u in result.unconverted] == ["MS-DEVICE-TORCH-DEVICE"]


# -- 5. a loader rebuilt in a loop -----------------------------------------------------------------
LOOP = (
    "import torch\n"
    "from torch.utils.data import DataLoader, TensorDataset\n"
    "data = TensorDataset(torch.zeros(8, 2), torch.zeros(8))\n"
    "for epoch in range(3):\n"
    "    loader = DataLoader(data, batch_size=4)\n"
    "    for x, y in loader:\n"
    "        print(x)\n"
)


def test_a_loader_a_loop_rebuilds_over_one_dataset_is_marked():
    result = convert(LOOP)
    text = lines(result)
    assert "    loader = DataLoader(data, batch_size=4)" in text
    mark = text[text.index("    loader = DataLoader(data, batch_size=4)") - 1]
    assert mark.startswith("    # MIGRATE(MS-DATASET-CLASS): data: a MindSpore dataset object feeds one pipeline")
    assert "once before the loop" in mark
    assert [(u.line, u.rule_id) for u in result.unconverted] == [(5, "MS-DATASET-CLASS")]


def test_a_loader_built_once_or_over_a_dataset_made_in_the_loop_is_not_marked():
    result = convert(
        "import torch\n"
        "from torch.utils.data import DataLoader, TensorDataset\n"
        "data = TensorDataset(torch.zeros(8, 2), torch.zeros(8))\n"
        "other = TensorDataset(torch.zeros(8, 2), torch.zeros(8))\n"
        "for a, b in DataLoader(data, batch_size=4):\n"
        "    print(a)\n"
        "for epoch in range(2):\n"
        "    part = TensorDataset(torch.zeros(8, 2), torch.zeros(8))\n"
        "    for a, b in DataLoader(part, batch_size=4): print(a)\n"
        "else:\n"
        "    last = DataLoader(other, batch_size=2)\n"
    )
    assert "for a, b in data.batch(4):" in result.text and "part.batch(4)" in result.text
    assert "    last = other.batch(2)" in result.text  # a loop's else: runs once
    assert not result.unconverted


def test_a_torch_function_kept_as_a_value_under_a_name_mindspore_rebinds_is_marked():
    """pytorch-tcn keeps nn.init functions in a module-level dict: the file's `nn` became MindSpore's nn (for
    nn.Module -> nn.Cell), so a kept reference would silently name mindspore.nn.init and the tree fail to
    import. Those with a MindSpore form become it (test_init_references.py); one without (dirac_) is marked."""
    source = ("import torch.nn as nn\n"
              "inits = dict(dirac=nn.init.dirac_)\n"
              "class M(nn.Module):\n"
              "    def __init__(self):\n"
              "        super().__init__()\n"
              "        self.c = nn.Linear(2, 3)\n")
    lines = convert_source(source, path="tcn.py").text.splitlines()
    line = lines.index("inits = dict(dirac=nn.init.dirac_)")
    assert lines[line - 1].startswith("# MIGRATE(MS-API-UNMAPPED): torch.nn.init.dirac_ used as a value")
    assert "from mindspore import nn" in lines
