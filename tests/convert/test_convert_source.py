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
    assert 'a = Conv2d(3, 8, 3, pad_mode="pad", padding=1, has_bias=True)' in text
    assert 'b = Conv2d(3, 8, 3, 1, pad_mode="valid", has_bias=False)' in text
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
    assert "def forward_fn(x, y):" in text and "return loss, out" in text
    assert "grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)" in text
    assert "(loss, out), grads = grad_fn(x, y)" in text
    assert "        loss, out = train_step(x, y, (model.training,))\n        print(out.sum(), loss.item())" in text
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
    # save_checkpoint would write m.pth.ckpt: a state dict under another name is pickled (test_checkpoints.py)
    assert "save(state_dict_of(model), 'm.pth')" in text
    assert "load_state_dict_into(model, load('m.pth'))" in text


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


def test_layernorm_over_several_axes_is_the_local_class():
    # MindSpore's LayerNorm takes the first normalised axis from the front: the local class finds it from the
    # input's rank when it runs (convert/modules/nn_forms.py)
    from analysis.convert import convert_source

    result = convert_source("import torch.nn as nn\nnorm = nn.LayerNorm([3, 6])\n")
    assert "norm = LayerNorm(normalized_shape=(3, 6), epsilon=1e-05)" in result.text
    assert "class LayerNorm(nn.LayerNorm):" in result.text and not result.unconverted


TRAIN_FN = (
    "import torch\n"
    "def fit(model, loader, loss_fn):\n"
    "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "{mode}"
    "    # epochs\n"
    "    for epoch in range(2):\n"
    "        for x, y in loader:\n"
    "            optimizer.zero_grad()\n"
    "            loss = loss_fn(model(x), y)\n"
    "            loss.backward()\n"
    "            optimizer.step()\n"
)


def test_set_train_added_once_before_the_outer_training_loop():
    result = convert(TRAIN_FN.format(mode="").replace("zero_grad()", "zero_grad(set_to_none=True)"))
    assert "zero_grad" not in result.text and not result.unconverted
    lines = result.text.splitlines()
    at = lines.index("    model.set_train(True)")
    assert lines[at - 1] == "    # epochs" and lines[at + 1] == "    for epoch in range(2):"
    assert result.text.count("set_train") == 1
    [added] = [c for c in result.changes if c.rule_id == "MS-CELL-TRAIN-MODE"]
    assert added.line == 5 and "model.set_train(True)" in added.description


def test_set_train_not_added_when_the_scope_already_sets_the_mode():
    for mode, expected in (("    model.train()\n", "model.set_train(True)"), ("    model.eval()\n", "model.set_train(False)")):
        text = convert(TRAIN_FN.format(mode=mode)).text
        assert text.count("set_train") == 1 and expected in text
    inner = convert(TRAIN_FN.format(mode="").replace(
        "    for epoch in range(2):\n", "    for epoch in range(2):\n        model.train()\n")).text
    assert inner.count("set_train") == 1 and "        model.set_train(True)\n        for x, y in loader" in inner
    # a mode set only after the loop has not run yet when the loop starts
    after = convert(TRAIN_FN.format(mode="") + "    model.eval()\n").text
    assert after.count("    model.set_train(True)\n    for epoch") == 1 and "model.set_train(False)" in after
    # a training loop whose optimizer comes from elsewhere: the network is unknown, so a person is asked
    source = TRAIN_FN.replace("    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n", "").replace(
        "loss_fn):", "loss_fn, optimizer):")
    result = convert(source.format(mode=""))
    assert "set_train" not in result.text.replace("# MIGRATE(MS-CELL-TRAIN-MODE): a Cell starts in inference mode: "
                                                  "call set_train(True)", "")
    assert result.text.splitlines()[result.text.splitlines().index("    for epoch in range(2):") - 1].startswith(
        "    # MIGRATE(MS-CELL-TRAIN-MODE):")
    assert [u.rule_id for u in result.unconverted] == ["MS-CELL-TRAIN-MODE"]


CLIP_STEP = (
    "import torch\nimport torch.nn as nn\n"
    "model = nn.Linear(2, 2)\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "model.train()\n"
    "for x in data:\n"
    "    opt.zero_grad()\n"
    "    loss = model(x).sum()\n"
    "    loss.backward()\n"
    "    {clip}\n"
    "    opt.step()\n"
)


def test_gradient_clipping_between_backward_and_step_acts_on_the_grads():
    norm = convert(CLIP_STEP.format(clip="torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)"))
    # inside the step function defined before the loop, which takes the batch
    assert "    loss, grads = grad_fn(x)\n    grads = ops.clip_by_norm(grads, 0.5)\n    opt(grads)\n" in norm.text
    assert "clip_grad" not in norm.text and "torch" not in norm.text and not norm.unconverted
    value = convert(CLIP_STEP.format(clip="nn.utils.clip_grad_value_(model.parameters(), 0.25)"))
    assert "    grads = ops.clip_by_value(grads, -0.25, 0.25)\n    opt(grads)\n" in value.text
    assert "grads = ops.clip_by_value(grads, -limit, limit)" in convert(
        CLIP_STEP.format(clip="nn.utils.clip_grad_value_(model.parameters(), clip_value=limit)")).text


def test_gradient_clipping_that_cannot_be_moved_safely_is_marked():
    cases = {
        "torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5, norm_type=1)": "2-norm only",
        "norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)": "MindSpore does not keep",
        "torch.nn.utils.clip_grad_norm_(model.fc.parameters(), 0.5)": "not the parameters opt updates",
    }
    for clip, reason in cases.items():
        result = convert(CLIP_STEP.format(clip=clip))
        left = clip.replace("parameters()", "trainable_params()")  # left as it was, but for its arguments
        [item] = result.unconverted
        assert item.rule_id == "MS-GRAD-CLIP" and reason in item.action and item.line == 10
        assert f"    # MIGRATE(MS-GRAD-CLIP): {item.action}\n    {left}\n    opt(grads)\n" in result.text
    outside = convert("import torch\ndef clip(m):\n    torch.nn.utils.clip_grad_value_(m.parameters(), 1.0)\n")
    assert [u.rule_id for u in outside.unconverted] == ["MS-GRAD-CLIP"]


def test_backward_and_step_outside_a_convertible_step_are_marked():
    result = convert(
        "import torch\n"
        "opt = torch.optim.Adam(net.parameters())\n"
        "loss = net(x).sum()\n"
        "loss.backward(retain_graph=True)\n"
        "for i, (x, y) in enumerate(batches):\n"
        "    loss = net(x).sum() / 4\n"
        "    loss.backward()\n"
        "    if (i + 1) % 4 == 0:\n"
        "        opt.step()\n"
        "        opt.zero_grad()\n"
        "scheduler.step()\n"
    )
    marked = [(u.line, u.torch_api) for u in result.unconverted]
    assert marked == [(4, "torch.Tensor.backward"), (7, "torch.Tensor.backward"), (9, "torch.optim.Optimizer.step")]
    assert all(u.rule_id == "MS-TRAIN-LOOP" for u in result.unconverted)
    assert result.text.count("# MIGRATE(MS-TRAIN-LOOP):") == 3
    assert "zero_grad" not in result.text  # nothing stored to clear: dropped wherever it stands
    assert "scheduler.step()" in result.text and "set_train" not in result.text
    # the same step written at module level, without a loop, is rewritten
    straight = convert(
        "import torch\nopt = torch.optim.SGD(net.parameters(), lr=0.1)\n"
        "opt.zero_grad()\nloss = net(x).sum()\nloss.backward()\nopt.step()\n"
    )
    assert not straight.unconverted
    assert "def forward_fn():\n    loss = net(x).sum()\n    return loss\n" in straight.text
    assert straight.text.endswith("loss, grads = grad_fn()\nopt(grads)\n")
    assert [c.line for c in straight.changes if c.rule_id == "MS-TRAIN-LOOP"] == [3, 5]  # zero_grad dropped, step


def test_ordered_dict_star_list_and_add_module_containers_keep_the_layer_map():
    result = convert(
        "from collections import OrderedDict\nimport torch.nn as nn\n"
        "class M(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.body = nn.Sequential(OrderedDict([('fc1', nn.Linear(2, 3)), ('act', nn.ReLU())]))\n"
        "        layers = [nn.Linear(3, 3), nn.Tanh()]\n"
        "        self.tail = nn.Sequential(*layers)\n"
        "        self.heads = nn.ModuleDict({'a': nn.Linear(3, 1)})\n"
        "        self.add_module('extra', nn.Linear(3, 2))\n"
    )
    assert "self.body = nn.SequentialCell(OrderedDict([('fc1', nn.Dense(2, 3)), ('act', nn.ReLU())]))" in result.text
    assert "self.tail = nn.SequentialCell(*layers)" in result.text
    assert "self.heads = nn.CellDict({'a': nn.Dense(3, 1)})" in result.text
    assert "setattr(self, 'extra', nn.Dense(3, 2))" in result.text
    paths = {r.attribute: r.mindspore_api for r in result.layer_map}
    assert paths == {"body": "mindspore.nn.SequentialCell", "body.fc1": "mindspore.nn.Dense",
                     "body.act": "mindspore.nn.ReLU", "tail": "mindspore.nn.SequentialCell",
                     "tail.0": "mindspore.nn.Dense", "tail.1": "Tanh",
                     "heads": "mindspore.nn.CellDict", "heads.a": "mindspore.nn.Dense", "extra": "mindspore.nn.Dense"}


# -- layout: added and rewritten arguments follow the call's own formatting ------------------------

def test_padding_stays_on_its_line_in_a_multi_line_conv():
    text = convert(
        "import torch.nn as nn\n"
        "conv = nn.Conv2d(\n"
        "    inplanes,\n"
        "    planes,\n"
        "    kernel_size=3,\n"
        "    padding=first_dilation,  # keeps the size\n"
        "    groups=cardinality,\n"
        "    bias=False,\n"
        ")\n"
    ).text
    assert text.endswith(
        "conv = Conv2d(\n"
        "    inplanes,\n"
        "    planes,\n"
        "    kernel_size=3,\n"
        '    pad_mode="pad", padding=first_dilation,  # keeps the size\n'
        "    group=cardinality,\n"
        "    has_bias=False,\n"
        ")\n"
    )


def test_keywords_added_to_a_multi_line_call_get_lines_of_their_own():
    text = convert(
        "import torch.nn as nn\n"
        "a = nn.Conv2d(\n"
        "    in_channels,\n"
        "    out_channels,\n"
        "    kernel_size,\n"
        "    bias=False,\n"
        "    dilation=dd,\n"
        ")\n"
        "b = nn.Conv2d(\n"
        "    in_channels,\n"
        "    out_channels,  # wide\n"
        "    kernel_size  # square\n"
        ")\n"
        "c = nn.Conv2d(in_channels, out_channels,\n"
        "              kernel_size, padding_mode='zeros')\n"
    ).text
    assert (
        "a = Conv2d(\n"
        "    in_channels,\n"
        "    out_channels,\n"
        "    kernel_size,\n"
        "    has_bias=False,\n"
        "    dilation=dd,\n"
        '    pad_mode="valid",\n'
        ")\n"
    ) in text
    assert (
        "b = Conv2d(\n"
        "    in_channels,\n"
        "    out_channels,  # wide\n"
        "    kernel_size,  # square\n"
        "    has_bias=True,\n"
        '    pad_mode="valid"\n'
        ")\n"
    ) in text
    assert (
        "c = Conv2d(in_channels, out_channels,\n"
        "              kernel_size,\n"
        "              has_bias=True,\n"
        '              pad_mode="valid")\n'
    ) in text


def test_single_line_calls_get_keywords_in_place_and_no_stray_commas():
    text = convert(
        "import torch.nn as nn\n"
        "a = nn.Conv2d(3, 8, 1, stride=1, padding=0, bias=False, dilation=dd)\n"
        "b = nn.MaxPool2d(kernel_size=3, stride=1, padding=1)\n"
        "c = nn.BatchNorm2d(8, momentum=0.1, affine=True)\n"
        "d = nn.Dropout(0.2, inplace=True)\n"
        "e = nn.LayerNorm(16, eps=1e-6, elementwise_affine=True)\n"
    ).text
    assert 'a = Conv2d(3, 8, 1, stride=1, pad_mode="valid", has_bias=False, dilation=dd)\n' in text
    assert 'b = nn.MaxPool2d(kernel_size=3, stride=1, pad_mode="pad", padding=1)\n' in text
    assert "c = nn.BatchNorm2d(8, momentum=0.9, affine=True)\n" in text
    assert "d = nn.Dropout(p=0.2)\n" in text
    assert "e = nn.LayerNorm(normalized_shape=(16,), epsilon=1e-6)\n" in text


def test_keywords_spread_from_a_dict_are_marked_where_mindspore_names_them_otherwise():
    # the dict's keys are PyTorch's names (bias=, device=...), read when the call runs: passed on, MindSpore's
    # Conv2d would raise or read them otherwise; a layer whose parameters all keep their names passes them on
    # (dd from a call: its keys are unknown; a dict of device and dtype only goes through factory_spread.py)
    result = convert_source("import torch.nn as nn\ndd = make_options()\n"
                            "a = nn.Conv2d(3, 8, 1, bias=False, **dd)\nb = nn.Flatten(**dd)\n")
    [mark] = [u for u in result.unconverted if u.line == 3]
    assert "**dd keep PyTorch's names" in mark.action and "groups= -> group=" in mark.action
    assert "bias=" not in mark.action.split("otherwise")[1]  # given in the call: not the dict's
    assert "a = nn.Conv2d(3, 8, 1, bias=False, **dd)" in result.text
    assert not [u for u in result.unconverted if u.line == 4]


def test_arguments_spread_from_a_tuple_are_marked_where_they_may_reach_another_parameter():
    # the tuple's items fill parameters by position when the call runs: BatchNorm's third is momentum (written
    # 1 - m, and given as a keyword too), Linear's third is bias where Dense takes weight_init; sum, cat and
    # sizes one by one keep their places
    result = convert_source("import torch\nargs = (5, 1e-05, 0.2)\n"
                            "a = torch.nn.BatchNorm2d(*args)\nb = torch.nn.Linear(3, *args)\n"
                            "c = torch.sum(*args)\nd = torch.cat(*args)\ne = torch.zeros(*args)\n"
                            "f = torch.nn.Linear(*args, bias=False)\n")
    marks = {u.line: u.action for u in result.unconverted}
    assert "*args fill PyTorch's parameters by position" in marks[3] and "momentum" in marks[3]
    assert "a = torch.nn.BatchNorm2d(*args)" in result.text  # no momentum= added beside the tuple
    assert "bias" in marks[4] and "out_features" not in marks[4]  # a rename keeps its place
    assert not {5, 6, 7, 8} & set(marks)
    assert "f = nn.Dense(*args, has_bias=False)" in result.text


def test_other_rewrites_keep_multi_line_layout():
    text = convert(
        "import torch\n"
        "import torch.nn as nn\n"
        "bn = nn.BatchNorm2d(\n"
        "    8,\n"
        "    momentum=0.1,\n"
        "    track_running_stats=True,\n"
        ")\n"
        "opt = torch.optim.Adam(\n"
        "    model.parameters(),  # all of them\n"
        "    lr=0.1,\n"
        "    betas=(0.9, 0.99),\n"
        ")\n"
        "act = nn.ReLU(\n"
        "    inplace=True,\n"
        ")\n"
        "torch.save(\n"
        "    model.state_dict(),\n"
        "    'm.ckpt',\n"
        ")\n"
    ).text
    assert "bn = nn.BatchNorm2d(\n    8,\n    momentum=0.9,\n)\n" in text
    assert (
        "opt = nn.Adam(\n"
        "    model.trainable_params(),  # all of them\n"
        "    learning_rate=0.1,\n"
        "    beta1=0.9, beta2=0.99,\n"
        ")\n"
    ) in text
    assert "act = nn.ReLU()\n" in text
    assert "mindspore.save_checkpoint(\n    model,\n    'm.ckpt',\n)\n" in text


# -- optimizers and the training step -------------------------------------------------------------

def test_optimizers_go_where_the_update_rule_matches_pytorch():
    result = convert(
        "import torch\n"
        "a = torch.optim.AdamW(model.parameters(), lr=0.01)\n"
        "b = torch.optim.Adagrad(model.parameters(), lr=0.1)\n"
        "c = torch.optim.Adadelta(model.parameters(), eps=1e-3)\n"
        "d = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)\n"
        "e = torch.optim.Adam(model.parameters(), lr=0.01, eps=1e-3)\n"
    )
    text = result.text
    # AdamW: the support module's subclass of optim.AdamW, its CPU update fused (test_speed_rewrites.py)
    assert "a = AdamW(model.trainable_params(), lr=0.01)" in text
    assert "b = optim.Adagrad(model.trainable_params(), lr=0.1)" in text
    assert "c = optim.Adadelta(model.trainable_params(), eps=1e-3)" in text
    assert "from mindspore.experimental import optim" in text
    assert "d = nn.SGD(model.trainable_params(), learning_rate=0.1, momentum=0.9)" in text
    assert "e = nn.Adam(model.trainable_params(), learning_rate=0.01, eps=1e-3)" in text
    adam = next(c for c in result.changes if c.torch_api == "torch.optim.Adam")
    assert "review" in adam.description and "eps" in adam.description


def test_optimizer_implementation_switches_are_dropped_and_other_torch_only_options_marked():
    result = convert(
        "import torch\n"
        "a = torch.optim.AdamW(\n    model.parameters(),\n    lr=1e-3,\n    foreach=True,\n)\n"
        "b = torch.optim.Adagrad(model.parameters(), lr=0.1, fused=None, foreach=False)\n"
        "c = torch.optim.NAdam(model.parameters(), maximize=True)\n"
        "d = torch.optim.AdamW(model.parameters(), foreach=True)\n"
    )
    assert "a = AdamW(\n    model.trainable_params(),\n    lr=1e-3,\n)\n" in result.text
    assert "b = optim.Adagrad(model.trainable_params(), lr=0.1)\n" in result.text
    assert "c = torch.optim.NAdam(" in result.text
    assert "d = AdamW(model.trainable_params())\n" in result.text  # once crashed the whole file
    adamw = [c.description for c in result.changes if c.torch_api == "torch.optim.AdamW"]
    assert any("dropped foreach=" in d and "lr=" not in d for d in adamw)
    [item] = result.unconverted
    assert item.line == 8 and "maximize=True" in item.action


def test_scheduler_stepped_before_the_optimizer_is_not_taken_for_it():
    for clear in ("    opt.zero_grad()\n", ""):
        text = convert(
            "import torch\n"
            "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
            "sched = torch.optim.lr_scheduler.StepLR(opt, 2)\n"
            "for x, y in data:\n"
            f"{clear}"
            "    loss = loss_fn(model(x), y)\n"
            "    loss.backward()\n"
            "    sched.step()\n"
            "    opt.step()\n"
        ).text
        assert "value_and_grad(forward_fn, None, opt.parameters)" in text
        assert "    sched.step()\n    opt(grads)\n" in text
        assert "sched(grads)" not in text and "MIGRATE" not in text


def test_step_receiver_falls_back_to_what_zero_grad_clears():
    text = convert(
        "import torch\n"
        "def train(model, opt, sched, data):\n"
        "    for x, y in data:\n"
        "        opt.zero_grad()\n"
        "        loss = model(x).sum()\n"
        "        loss.backward()\n"
        "        sched.step()\n"
        "        opt.step()\n",
    ).text
    assert "value_and_grad(forward_fn, None, opt.parameters)" in text and "opt(grads)" in text


def test_clip_rewrite_leaves_no_record_for_code_it_replaced():
    result = convert(
        "import torch\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, y in data:\n"
        "    opt.zero_grad()\n"
        "    loss = loss_fn(model(x), y)\n"
        "    loss.backward()\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    opt.step()\n"
    )
    assert "grads = ops.clip_by_norm(grads, 1.0)" in result.text
    params = [c.line for c in result.changes if c.torch_api == "torch.nn.Module.parameters"]
    assert params == [2]  # the optimizer's line only; line 7 became the clip on grads


# -- datasets from tensors ----------------------------------------------------------------------

def test_tensor_dataset_and_random_split_become_mindspore_datasets():
    result = convert(
        "import torch\n"
        "from torch.utils.data import DataLoader, TensorDataset, random_split\n"
        "data = TensorDataset(x, y + 1)\n"
        "train, test = random_split(data, [8, 2], generator=g)\n"
        "train_loader = DataLoader(train, batch_size=4, shuffle=True, drop_last=True)\n"
        "test_loader = DataLoader(test, batch_size=4)\n"
        "inline = DataLoader(TensorDataset(x), batch_size=2, shuffle=True)\n"
        "for a, b in test_loader:\n"
        "    pass\n"
    )
    text = result.text
    assert "data = ds.NumpySlicesDataset((x.asnumpy(), (y + 1).asnumpy()), column_names=['data', 'label'], " \
           "shuffle=False)" in text
    assert "train, test = data.split([8, 2], randomize=True)" in text
    assert "train_loader = train.shuffle(train.get_dataset_size()).batch(4, drop_remainder=True)" in text
    assert "test_loader = test.batch(4)" in text
    assert "inline = ds.NumpySlicesDataset((x.asnumpy(),), column_names=['data'], shuffle=True).batch(2)" in text
    assert "for a, b in test_loader.create_tuple_iterator():" in text
    assert not result.unconverted and "torch" not in text


def test_second_pipeline_on_one_dataset_and_split_of_a_dataset_class_are_marked():
    result = convert(
        "import torch\n"
        "from torch.utils.data import DataLoader, TensorDataset, random_split\n"
        "data = TensorDataset(x, y)\n"
        "a = DataLoader(data, batch_size=4)\n"
        "b = DataLoader(data, batch_size=8)\n"
        "parts = random_split(MyDataset(), [5, 5])\n"
    )
    assert "a = data.batch(4)" in result.text
    marked = {(u.line, u.rule_id) for u in result.unconverted}
    assert marked == {(5, "MS-DATASET-CLASS"), (6, "MS-DATASET-CLASS")}
    assert "# MIGRATE(MS-DATASET-CLASS): data: a MindSpore dataset object feeds one pipeline" in result.text
    assert "call .split(lengths, randomize=True)" in result.text


def test_dropped_last_argument_leaves_the_call_closed_as_it_was():
    text = convert(
        "import torch\n"
        "a = torch.zeros(\n"
        "    (2, 3),\n"
        "    dtype=torch.float32,\n"
        "    device=dev\n"
        ")\n"
        "b = torch.ones(\n"
        "    (2, 3),\n"
        "    dtype=torch.float32,  # explicit\n"
        "    device=dev,\n"
        ")\n"
    ).text
    assert "a = ops.zeros(\n    (2, 3),\n    dtype=mindspore.float32\n)\n" in text
    assert "b = ops.ones(\n    (2, 3),\n    dtype=mindspore.float32,  # explicit\n)\n" in text
