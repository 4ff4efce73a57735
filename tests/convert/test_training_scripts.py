"""Modern-script pieces (issue 16, patterns 4, 7 and 9): what converts is converted, what a person must
edit carries a marker saying what to do, nothing is left silently wrong."""
from __future__ import annotations

import ast

from analysis.convert import convert_source


def convert(source: str):
    result = convert_source(source)
    ast.parse(result.text)
    return result


def test_backends_switches_are_removed_with_a_note():
    result = convert("import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\ntorch.backends.cudnn.benchmark = True\n"
                     "x = torch.ones(2)\n")
    assert "backends" not in result.text and "import torch" not in result.text
    assert [c.line for c in result.changes if "torch.backends switch removed" in c.description] == [2, 3]


def test_loading_a_dict_of_things_is_marked_and_a_state_dict_is_not():
    source = ("import torch\nckpt = torch.load(path, map_location='cpu')\nmodel.load_state_dict(ckpt['model'])\n"
              "step = ckpt['iter_num']\n")
    [item] = convert(source).unconverted
    assert item.line == 2 and "pickle" in item.action and "ckpt[...]" in item.action
    plain = convert("import torch\nstate = torch.load('m.ckpt')\nmodel.load_state_dict(state)\n")
    assert not plain.unconverted and "mindspore.load_checkpoint('m.ckpt')" in plain.text


def test_saving_other_objects_says_how():
    [item] = convert("import torch\ntorch.save({'model': m.state_dict(), 'step': 3}, 'ckpt.pt')\n").unconverted
    assert "pickle" in item.action and ".ckpt" in item.action


def test_module_dict_holding_a_module_list_becomes_a_local_cell():
    result = convert("import torch.nn as nn\nclass M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                     "        self.t = nn.ModuleDict(dict(wte=nn.Embedding(4, 2), h=nn.ModuleList([nn.Linear(2, 2)])))\n")
    assert not result.unconverted  # CellDict refuses the CellList: the file gets its own ModuleDict cell
    assert "self.t = ModuleDict(dict(wte=nn.Embedding(4, 2), h=nn.CellList([nn.Dense(2, 2)])))" in result.text
    assert "class ModuleDict(nn.Cell):" in result.text  # tests/convert/test_local_helpers.py runs it
