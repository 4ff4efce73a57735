"""The analyzer advises the optimizer and dataset classes the converter writes: the knowledge
base lists mindspore.experimental.optim first where the classic class computes other steps
(checked by the snippets tests/convert/corpus/optimizers.py generates), and maps TensorDataset/random_split."""
from __future__ import annotations

import pytest

from analysis.convert import convert_source
from analysis.knowledge import load_mapping
from analysis.scan import analyze_source

HEAD = "import torch\nimport torch.nn as nn\nmodel = nn.Linear(3, 2)\n"
OPTIMIZERS = ["SGD", "Adam", "AdamW", "Adagrad", "Adadelta", "Rprop", "ASGD", "RMSprop", "Adamax", "NAdam", "RAdam"]


def findings(source: str, line: int) -> dict[str, object]:
    return {f.rule_id: f for f in analyze_source(source, "m.py").findings if f.line == line}


def test_adamw_is_reported_as_the_experimental_class():
    found = findings(HEAD + "opt = torch.optim.AdamW(model.parameters(), lr=1e-3)\n", 4)
    mapped = found["MS-API-MAPPED"]
    assert mapped.torch_api == "torch.optim.AdamW"
    assert mapped.mindspore_api == "mindspore.experimental.optim.AdamW"
    assert "mindspore.experimental.optim.AdamW" in mapped.message
    assert "MS-API-DIFF" not in found  # lr keeps its name and nothing else differs
    assert "MS-OPTIM-LR" not in found  # the experimental class takes lr, not learning_rate


def test_classic_optimizer_still_reports_learning_rate():
    found = findings(HEAD + "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n", 4)
    assert found["MS-API-MAPPED"].mindspore_api == "mindspore.nn.SGD"
    assert "MS-OPTIM-LR" in found


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_analyzer_and_converter_name_the_same_optimizer(name):
    source = HEAD + f"opt = torch.optim.{name}(model.parameters(), lr=0.01)\n"
    written = [c.mindspore_api for c in convert_source(source).changes if c.torch_api == f"torch.optim.{name}"]
    reported = [f.mindspore_api for f in analyze_source(source, "m.py").findings
                if f.rule_id.startswith("MS-API") and f.torch_api == f"torch.optim.{name}"]
    assert written == reported == [load_mapping("classic").get(f"torch.optim.{name}").primary]


def test_a_dropped_torch_only_switch_leaves_one_finding():
    found = findings(HEAD + "opt = torch.optim.Adagrad(model.parameters(), lr=0.1, foreach=True)\n", 4)
    # the converter drops the performance switch and MS-OPTIM-PARAMS speaks for the use: no generic DIFF
    assert "MS-API-DIFF" not in found and "MS-OPTIM-PARAMS" in found


def test_nadam_is_supported_and_lbfgs_is_not():
    source = HEAD + "a = torch.optim.NAdam(model.parameters())\nb = torch.optim.LBFGS(model.parameters())\n"
    assert "MS-OPTIM-UNSUPPORTED" not in findings(source, 4)
    assert findings(source, 4)["MS-API-MAPPED"].mindspore_api == "mindspore.experimental.optim.NAdam"
    assert "MS-OPTIM-UNSUPPORTED" in findings(source, 5)


def test_tensor_dataset_and_random_split_are_mapped():
    source = ("import torch\nfrom torch.utils.data import TensorDataset, random_split\n"
              "data = TensorDataset(torch.ones(4, 2), torch.zeros(4))\n"
              "train, test = random_split(data, [3, 1], generator=torch.Generator())\n")
    rows = {f.torch_api: f for f in analyze_source(source, "m.py").findings if f.rule_id.startswith("MS-API")}
    assert rows["torch.utils.data.TensorDataset"].mindspore_api == "mindspore.dataset.NumpySlicesDataset"
    split = rows["torch.utils.data.random_split"]
    assert split.rule_id == "MS-API-DIFF" and split.mindspore_api == "mindspore.dataset.Dataset.split"
    assert [d["arg"] for d in split.extra["differing_args"]] == ["generator"]
    assert not any(f.rule_id == "MS-API-UNMAPPED" for f in rows.values())
