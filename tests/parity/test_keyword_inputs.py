"""An input passed by keyword (`model(seq, mask=mask)`) must not tie the float64
reference to the float32 original: the wrapper was a closure over the original's
bound forward, so the deep-copied reference called the original again, its backward
doubled every PyTorch gradient, and perceiver-pytorch's PerceiverLM failed with
MindSpore's gradients at exactly 0.5 times PyTorch's (and a zero noise band)."""
from __future__ import annotations

import copy

import pytest
import torch

from analysis.parity import frameworks as fw


class Masked(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)

    def forward(self, x, mask=None):
        return self.fc(x) * mask.unsqueeze(-1)


def test_a_deep_copy_of_a_keyword_wrapped_module_runs_itself():
    torch.manual_seed(0)
    model = Masked()
    fw.keyword_inputs(model, [None, "mask"], "forward")
    twin = copy.deepcopy(model).double()
    x, mask = torch.randn(4, 3), torch.ones(4, dtype=torch.bool)
    out = twin(x.double(), mask)
    assert out.dtype == torch.float64  # it ran the float64 copy, not the float32 original
    out.sum().backward()
    assert model.fc.weight.grad is None and twin.fc.weight.grad is not None
    model(x, mask).sum().backward()
    torch.testing.assert_close(model.fc.weight.grad.double(), twin.fc.weight.grad)  # once each, not twice


@pytest.mark.slow
def test_a_model_fed_by_keyword_passes_end_to_end(tmp_path):
    import io
    import json
    import textwrap

    from analysis.cli.parity import run

    root = tmp_path / "repo"
    root.mkdir()
    (root / "net.py").write_text(textwrap.dedent('''
        import torch
        import torch.nn as nn

        class Masked(nn.Module):  # ids and a mask: no float input, so the float32 original
            def __init__(self):     # could run in the reference's place without a dtype error
                super().__init__()
                self.emb = nn.Embedding(10, 3)
                self.fc = nn.Linear(3, 2)

            def forward(self, ids, mask=None):
                return self.fc(self.emb(ids)) * mask.unsqueeze(-1)

        if __name__ == "__main__":
            model = Masked()
            out = model(torch.randint(0, 10, (4, 5)), mask=torch.ones(4, 5).bool())
    ''').lstrip())
    out = io.StringIO()
    code = run({"original_dir": str(root), "loss_steps": 2, "timeout": 300, "format": "json"}, out)
    entry = next(e for e in json.loads(out.getvalue())["entry_points"] if e["name"] == "Masked")
    assert [i.get("name") for i in entry["inputs"]] == [None, "mask"], entry["inputs"]
    ratios = {g["name"]: g["stats_mindspore"]["norm"] / g["stats_torch"]["norm"] for g in entry["gradients"]}
    assert all(abs(r - 1) < 1e-4 for r in ratios.values()), ratios  # was exactly 0.5
    assert code == 0 and entry["status"] == "pass", entry.get("reason")
