"""API-mapping findings say what differs for this call, and take their status from verification
by execution (issue #15: converted only when verified; issue #19: name the argument or default
that differs for this call; no false positives on allow-lists, torch.tensor, train() elsewhere)."""
from __future__ import annotations

import pytest

from analysis.findings import UseStatus
from analysis.scan import analyze_source
from analysis.verify import verdicts

H = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def mapping(source: str, api: str | None = None) -> list:
    return [f for f in analyze_source(H + source, "m.py").findings
            if f.rule_id.startswith("MS-API") and (api is None or f.torch_api == api)]


def _data(**apis):
    return {"apis": apis}


@pytest.fixture
def stored(monkeypatch):
    """Verdicts chosen by the test instead of the generated ones."""
    def use(**apis):
        monkeypatch.setattr(verdicts, "load_verdicts", lambda path=None: {"apis": apis})
    return use


def test_a_call_using_no_difference_is_converted_when_verified(stored):
    stored(**{"torch.nn.ReLU": {"status": "verified", "calls": 3}})
    [relu] = mapping("a = nn.ReLU()\n")
    assert (relu.rule_id, relu.status) == ("MS-API-MAPPED", UseStatus.CONVERTED)


def test_a_relied_on_default_that_differs_is_named(stored):
    stored(**{"torch.nn.MaxPool2d": {"status": "untested", "calls": 0, "note": "not verified by execution"}})
    [pool] = mapping("p = nn.MaxPool2d(2)\n")
    assert pool.rule_id == "MS-API-DIFF" and pool.status == UseStatus.REVIEW
    assert "default of stride (None in PyTorch, 1 in MindSpore)" in pool.message
    [explicit] = mapping("p = nn.MaxPool2d(2, stride=2)\n")
    assert "default of stride" not in explicit.message  # given explicitly: the default does not matter


def test_a_default_the_converter_spells_out_and_the_run_verifies_is_converted(stored):
    stored(**{"torch.nn.MaxPool2d": {"status": "verified", "calls": 4, "positional": ["kernel_size", "stride"],
                                     "params": {"kernel_size": {"status": "verified"}}}})
    [pool] = mapping("p = nn.MaxPool2d(2)\n")
    assert (pool.rule_id, pool.status) == ("MS-API-MAPPED", UseStatus.CONVERTED)
    assert pool.extra["handled"] == ["default of stride (None in PyTorch, 1 in MindSpore)"]


def test_an_argument_not_verified_keeps_the_use_in_review(stored):
    stored(**{"torch.abs": {"status": "verified", "calls": 2, "positional": ["input"],
                            "params": {"input": {"status": "verified"}}}})
    [plain] = mapping("y = torch.abs(torch.ones(2))\n", "torch.abs")
    assert plain.status == UseStatus.CONVERTED
    [keyword] = mapping("y = torch.abs(torch.ones(2), out=None)\n", "torch.abs")
    # out=None converts as if absent, but these verdicts never ran an out= call: the use stays in review
    assert keyword.status == UseStatus.REVIEW and "argument out= not verified" in keyword.message


def test_a_measured_difference_is_named(stored):
    stored(**{"torch.max": {"status": "differs", "calls": 4, "positional": ["input"],
                            "note": "torch.max(x): a sequence of 2 where PyTorch returns a tensor"}})
    [found] = mapping("m = torch.max(torch.ones(2, 3))\n", "torch.max")
    assert found.rule_id == "MS-API-DIFF" and found.status == UseStatus.REVIEW
    assert "running both differs: torch.max(x): a sequence of 2 where PyTorch returns a tensor" in found.message


def test_a_call_known_to_fail_is_manual(stored):
    stored(**{"torch.roll": {"status": "no_cpu_kernel", "calls": 3, "positional": ["input", "shifts"],
                             "note": "torch.roll(x, 1): RuntimeError: The kernel Roll unregistered."}})
    [found] = mapping("y = torch.roll(torch.ones(4), 1)\n", "torch.roll")
    assert (found.rule_id, found.status) == ("MS-API-BROKEN", UseStatus.MANUAL)
    assert "The kernel Roll unregistered" in found.message


def test_apis_outside_verification_keep_the_tables_word(stored):
    stored()  # optimizers are not generated: a call that uses no difference stays converted
    [sgd] = [f for f in mapping("net = nn.Linear(2, 2)\nopt = torch.optim.SGD(net.parameters(), 0.1)\n")
             if f.torch_api == "torch.optim.SGD"]
    assert sgd.status == UseStatus.CONVERTED


def test_safe_globals_lists_are_no_uses():
    source = ("with torch.serialization.safe_globals([torch.nn.modules.linear.Linear, torch.torch_version.TorchVersion]):\n"
              "    state = torch.load('m.pt')\n"
              "torch.serialization.add_safe_globals([torch.optim.sgd.SGD, torch.nn.modules.conv.Conv2d])\n")
    apis = [f.torch_api for f in analyze_source(H + source, "m.py").findings if f.rule_id == "MS-API-UNMAPPED"]
    assert apis == ["torch.serialization.safe_globals", "torch.serialization.add_safe_globals"]


def test_torch_tensor_has_a_counterpart():
    found = [f for f in analyze_source(H + "t = torch.tensor([1.0, 2.0])\nu = torch.as_tensor([1])\n", "m.py").findings]
    assert not [f for f in found if f.rule_id == "MS-API-UNMAPPED"]
    assert {f.mindspore_api for f in found if f.torch_api in ("torch.tensor", "torch.as_tensor")} == {"mindspore.tensor"}


def test_train_called_in_another_function_counts():
    source = ("def fit(model, opt, data):\n    model.train()\n    for x, y in data:\n"
              "        loss = ((model(x) - y) ** 2).sum()\n        loss.backward()\n        opt.step()\n\n"
              "def main():\n    model = nn.Linear(2, 2)\n    fit(model, torch.optim.SGD(model.parameters(), 0.1), [])\n")
    assert "MS-CELL-TRAIN-MODE" not in {f.rule_id for f in analyze_source(H + source, "m.py").findings}
    without = source.replace("    model.train()\n", "")
    assert "MS-CELL-TRAIN-MODE" in {f.rule_id for f in analyze_source(H + without, "m.py").findings}


def test_stored_failures_are_manual_in_the_analyzer():
    """The analyzer and the verdicts agree: each function call the run saw fail is `manual` when
    a user writes it (the stored note starts with the call that failed)."""
    checked = 0
    for api, entry in verdicts.load_verdicts()["apis"].items():
        if entry["status"] not in ("fails", "no_cpu_kernel") or not entry.get("note", "").startswith(("torch.", "F.")):
            continue
        call = entry["note"].split(": ", 1)[0]
        inputs = "x = torch.ones(3, 4)\ny = torch.ones(3, 4)\np = torch.ones(3, 4)\nimg = torch.ones(2, 3, 8, 8)\n"
        found = [f for f in analyze_source(H + inputs + f"out = {call}\n", "m.py").findings if f.torch_api == api]
        assert found and found[0].status == UseStatus.MANUAL, (api, call, [(f.rule_id, f.status) for f in found])
        checked += 1
    assert checked >= 1  # fewer as conversions get fixed (2 left in session 9); none would check nothing
