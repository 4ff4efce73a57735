"""An entry that hangs in its train step, under its own manifest timeout:
the eval forward it finished is kept and shown, with the phase that timed out;
the next entry in the same run still runs."""
from __future__ import annotations

import textwrap

import pytest

from analysis.parity import check_parity

pytestmark = pytest.mark.slow

MODEL = textwrap.dedent('''
    import time

    import torch.nn as nn


    class Sleepy(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6, 3)

        def forward(self, x):
            if self.training:
                time.sleep(3600)
            return self.fc(x)


    class Quick(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6, 3)

        def forward(self, x):
            return self.fc(x)
''').lstrip()


def test_a_timeout_keeps_what_was_finished_and_names_the_phase(tmp_path):
    tmp_path.chmod(0o755)  # the sandboxed child runs as an unprivileged user
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "nets.py").write_text(MODEL)
    manifest = tmp_path / "porting.toml"
    manifest.write_text('[[entry]]\nclass = "nets:Sleepy"\ntimeout = 20\nloss_steps = 2\n'
                        '[[entry]]\nclass = "nets:Quick"\nloss_steps = 2\n')
    report = check_parity(tmp_path / "src", manifest=manifest, timeout_s=240)
    sleepy, quick = report["entry_points"]
    assert sleepy["status"] == "error"
    assert "timed out" in sleepy["reason"] and "during the train step" in sleepy["reason"], sleepy["reason"]
    assert sleepy["cut_short"]["phase"] == "train_step"
    assert "forward_eval" in sleepy["cut_short"]["completed"]
    assert sleepy["layers"] and all(row["status"] == "pass" for row in sleepy["layers"])  # kept from before
    assert sleepy["metrics"]["status"] == "pass" and sleepy["timeout"] == 20
    assert quick["status"] == "pass", quick["reason"]
