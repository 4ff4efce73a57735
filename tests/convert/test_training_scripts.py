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


def test_loading_a_dict_of_things_converts_and_so_does_a_state_dict():
    # both frameworks run such checkpoints in tests/convert/test_checkpoints.py
    source = ("import torch\nckpt = torch.load(path, map_location='cpu')\nmodel.load_state_dict(ckpt['model'])\n"
              "step = ckpt['iter_num']\n")
    result = convert(source)
    assert not result.unconverted and "ckpt = load(path)\n" in result.text
    plain = convert("import torch\nstate = torch.load('m.ckpt')\nmodel.load_state_dict(state)\n")
    assert not plain.unconverted and "state = load('m.ckpt')" in plain.text


def test_saving_other_objects_pickles_them_under_their_name():
    result = convert("import torch\ntorch.save({'model': m.state_dict(), 'step': 3}, 'ckpt.pt')\n")
    assert not result.unconverted and "save({'model': state_dict_of(m), 'step': 3}, 'ckpt.pt')" in result.text


def test_module_dict_holding_a_module_list_becomes_a_local_cell():
    result = convert("import torch.nn as nn\nclass M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                     "        self.t = nn.ModuleDict(dict(wte=nn.Embedding(4, 2), h=nn.ModuleList([nn.Linear(2, 2)])))\n")
    assert not result.unconverted  # CellDict refuses the CellList: the file gets its own ModuleDict cell
    assert "self.t = ModuleDict(dict(wte=nn.Embedding(4, 2), h=nn.CellList([nn.Dense(2, 2)])))" in result.text
    assert "class ModuleDict(nn.Cell):" in result.text  # tests/convert/test_local_helpers.py runs it
