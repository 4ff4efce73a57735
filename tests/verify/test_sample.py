"""CI: a fixed sample of APIs generated, converted and run in both frameworks again; the stored
verdicts must still hold (a converter change that breaks or fixes one of them shows up here:
regenerate with `python -m analysis.verify` and commit the data)."""
from __future__ import annotations

import pytest

from analysis.verify import verdicts
from analysis.verify.run import regenerate

# one of each kind: verified, differs, no CPU kernel, marked, and a layer
SAMPLE = ["torch.abs", "torch.logdet", "torch.Tensor.addcdiv", "torch.nn.functional.avg_pool2d", "torch.Tensor.resize_",
          "torch.Tensor.floor_divide", "torch.nn.Linear", "torch.nn.InstanceNorm2d"]


@pytest.fixture(scope="module")
def fresh():
    return regenerate(SAMPLE, workers=1, out=None, log=lambda *_: None)["apis"]


@pytest.mark.parametrize("api", SAMPLE)
def test_stored_verdict_still_holds(fresh, api):
    stored = verdicts.load_verdicts()["apis"][api]
    now = fresh[api]
    assert now["status"] == stored["status"], (api, now.get("note"), stored.get("note"))
    assert {k: v["status"] for k, v in now.get("dtypes", {}).items()} == \
        {k: v["status"] for k, v in stored.get("dtypes", {}).items()}
    assert {k: v["status"] for k, v in now.get("params", {}).items()} == \
        {k: v["status"] for k, v in stored.get("params", {}).items()}


def test_the_sample_spans_the_verdict_kinds():
    kinds = {verdicts.load_verdicts()["apis"][api]["status"] for api in SAMPLE}
    assert {"verified", "differs", "no_cpu_kernel", "marked"} <= kinds
