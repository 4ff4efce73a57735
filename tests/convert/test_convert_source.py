"""Before/after behaviour of convert_source on small sources (text only, fast)."""
from __future__ import annotations

import ast

from analysis.convert import convert_source


def convert(source: str, **kwargs):
    result = convert_source(source, **kwargs)
    ast.parse(result.text)  # the output always parses
    return result


def test_module_becomes_cell_and_forward_becomes_construct():
    result = convert(
        "import torch.nn as nn\n\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(4, 2, bias=False)  # head\n\n"
        "    def forward(self, x):\n"
        "        return self.fc(x)\n"
    )
    assert "class Net(nn.Cell):" in result.text
    assert "def construct(self, x):" in result.text
    assert "self.fc = nn.Dense(4, 2, has_bias=False)  # head" in result.text
    assert "from mindspore import nn" in result.text
    assert "torch" not in result.text
    assert result.diff.startswith("--- a/<string>\n+++ b/<string>\n")


def test_conv_padding_bias_and_pool_stride_made_explicit():
    text = convert(
        "from torch import nn\n"
        "a = nn.Conv2d(3, 8, 3, padding=1)\n"
        "b = nn.Conv2d(3, 8, 3, 1, 0, bias=False)\n"
        "c = nn.Conv2d(3, 8, (3, 5), padding=(1, 2))\n"
        "d = nn.Conv2d(3, 8, 4, padding='same')\n"
        "p = nn.MaxPool2d(2)\n"
    ).text
    assert 'a = nn.Conv2d(3, 8, 3, has_bias=True, pad_mode="pad", padding=1)' in text
    assert 'b = nn.Conv2d(3, 8, 3, 1, has_bias=False, pad_mode="valid")' in text
    assert 'padding=(1, 1, 2, 2)' in text
    assert 'pad_mode="same"' in text
    assert "p = nn.MaxPool2d(kernel_size=2, stride=2)" in text


def test_batchnorm_momentum_and_dropout_probability_per_version():
    source = "import torch.nn as nn\nbn = nn.BatchNorm2d(8, momentum=0.01)\nbn2 = nn.BatchNorm1d(4)\ndrop = nn.Dropout(0.2)\n"
    text = convert(source).text
    assert "nn.BatchNorm2d(8, momentum=0.99)" in text
    assert "nn.BatchNorm1d(4, momentum=0.9)" in text
    assert "nn.Dropout(p=0.2)" in text
    old = convert(source, ms_version="1.10").text
    assert "nn.Dropout(keep_prob=0.8)" in old


def test_containers_and_layer_map_paths():
    result = convert(
        "import torch.nn as nn\n"
        "class M(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.body = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 1)))\n"
        "        self.heads = nn.ModuleList([nn.Linear(1, 1)])\n"
    )
    assert "nn.SequentialCell(" in result.text and "nn.CellList([" in result.text
    paths = {r.attribute: r for r in result.layer_map}
    assert set(paths) == {"body", "body.0", "body.1", "body.2", "body.2.0", "heads", "heads.0"}
    assert paths["body.0"].mindspore_api == "mindspore.nn.Dense"
    assert paths["body.0"].kwargs == {"in_channels": "2", "out_channels": "3"}
    assert paths["body.0"].class_name == "M"


def test_tensor_methods_and_device_code():
    text = convert(
        "import torch\n"
        "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "def f(x, model):\n"
        "    x = x.to(device)\n"
        "    model.to(device)\n"
        "    n = x.size(0)\n"
        "    y = x.view(n, -1).transpose(0, 1)\n"
        "    z = x.float().to(torch.float16)\n"
        "    with torch.no_grad():\n"
        "        out = model(y)\n"
        "    model.eval()\n"
        "    return out.detach().cpu().numpy(), x.size()\n"
    ).text
    assert "device" not in text
    assert "n = x.shape[0]" in text
    assert "y = x.reshape(n, -1).swapaxes(0, 1)" in text
    assert "z = x.float().astype(mindspore.float16)" in text
    assert "with" not in text and "    out = model(y)" in text
    assert "model.set_train(False)" in text
    assert "return out.asnumpy(), x.shape" in text
    assert "import torch" not in text


def test_unconvertible_call_is_marked_and_torch_import_kept_with_reason():
    result = convert("import torch\nx = torch.frobnicate(1)\ny = torch.cat([x, x])\n")
    assert "# MIGRATE(MS-API-UNMAPPED):" in result.text.splitlines()[-3]
    assert result.text.splitlines()[-2] == "x = torch.frobnicate(1)"
    assert "y = ops.cat([x, x])" in result.text
    assert [u.rule_id for u in result.unconverted] == ["MS-API-UNMAPPED"]
    assert result.unconverted[0].line == 2
    assert "# MIGRATE(MS-TORCH-IMPORT): PyTorch is still imported for torch" in result.text


def test_training_step_becomes_value_and_grad():
    text = convert(
        "import torch\n"
        "def train(model, loader, loss_fn):\n"
        "    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, betas=(0.8, 0.9))\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        out = model(x)\n"
        "        loss = loss_fn(out, y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        print(out.sum(), loss.item())\n"
    ).text
    assert "nn.Adam(model.trainable_params(), learning_rate=0.01, beta1=0.8, beta2=0.9)" in text
    assert "def forward_fn():" in text and "return loss, out" in text
    assert "grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)" in text
    assert "(loss, out), grads = grad_fn()" in text
    assert "optimizer(grads)" in text
    assert "backward" not in text and "zero_grad" not in text


def test_seed_init_and_checkpoints():
    text = convert(
        "import torch\nimport torch.nn as nn\n"
        "torch.manual_seed(1)\n"
        "def setup(model, layer):\n"
        "    nn.init.normal_(layer.weight, std=0.02)\n"
        "    nn.init.zeros_(layer.bias)\n"
        "    torch.save(model.state_dict(), 'm.pth')\n"
        "    model.load_state_dict(torch.load('m.pth'))\n"
    ).text
    assert "mindspore.set_seed(1)" in text
    assert "layer.weight.set_data(init.initializer(init.Normal(mean=0.0, sigma=0.02), layer.weight.shape, layer.weight.dtype).init_data())" in text
    assert "init.Zero()" in text
    assert "mindspore.save_checkpoint(model, 'm.pth')" in text
    assert "mindspore.load_param_into_net(model, mindspore.load_checkpoint('m.pth'))" in text


def test_dataloader_becomes_generator_dataset_and_loop_iterates_tuples():
    text = convert(
        "from torch.utils.data import DataLoader, Dataset\n"
        "class Pairs(Dataset):\n"
        "    def __len__(self):\n        return 4\n"
        "    def __getitem__(self, i):\n        return i, i * 2, i * 3\n"
        "loader = DataLoader(Pairs(), batch_size=2, shuffle=False, num_workers=0, drop_last=True, pin_memory=True)\n"
        "for a, b, c in loader:\n    pass\n"
    ).text
    assert "class Pairs:" in text
    assert ("loader = ds.GeneratorDataset(Pairs(), column_names=['column_0', 'column_1', 'column_2'], "
            "shuffle=False).batch(2, drop_remainder=True)") in text
    assert "for a, b, c in loader.create_tuple_iterator():" in text
    assert "i = int(i)" in text


def test_files_without_torch_and_broken_files_come_back_unchanged():
    plain = "import numpy as np\nprint(np.ones(2))\n"
    assert convert(plain).text == plain and convert(plain).diff == ""
    broken = "def f(:\n    pass\n"
    result = convert_source(broken, path="bad.py")
    assert result.text == broken
    assert len(result.unconverted) == 1 and "does not parse" in result.unconverted[0].action
    assert result.to_dict()["parse_error"]


def test_mint_target_keeps_pytorch_semantics_where_mint_maps():
    text = convert("import torch.nn as nn\nc = nn.Conv2d(1, 2, 3, padding=1)\nd = nn.Dropout(0.3)\n", target="mint").text
    assert "mint.nn.Conv2d(1, 2, 3, padding=1)" in text
    assert "from mindspore import mint" in text


def test_layernorm_over_several_axes_is_left_for_a_person():
    from analysis.convert import convert_source

    result = convert_source("import torch.nn as nn\nnorm = nn.LayerNorm([3, 6])\n")
    assert "# MIGRATE(MS-API-DIFF): LayerNorm over the last 2 axes" in result.text
    assert "nn.LayerNorm([3, 6])" in result.text
    assert [u.torch_api for u in result.unconverted] == ["torch.nn.LayerNorm"]
