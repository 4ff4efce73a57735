"""The parity command as CI uses it (issue 26): a non-zero exit status when
nothing was checked, skip hints printed as porting.toml blocks that parse
and, once filled in, make the entry run; a PyTorch forward that fails in the
original repository is its own status, not a conversion error."""
from __future__ import annotations

import io
import textwrap
import tomllib

import pytest

from analysis.cli.parity import run
from analysis.parity.manifest import ManifestError, load_manifest

pytestmark = pytest.mark.slow

MODEL = '''
    import torch
    import torch.nn as nn

    class Lonely(nn.Module):  # built nowhere: only a person knows its width
        def __init__(self, width):
            super().__init__()
            self.fc = nn.Linear(width, 2)

        def forward(self, x):
            return self.fc(x)

    class Broken(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.fc = nn.Linear(n, 2)

        def forward(self, x):
            return self.fc(x)

    if __name__ == "__main__":
        model = Broken(4)
        print(model(torch.randn(2, 5)))  # the repository's own example fails in PyTorch
'''


def _cli(root, **options) -> tuple[int, str]:
    out = io.StringIO()
    code = run({"original_dir": str(root), "loss_steps": 2, "timeout": 300, **options}, out)
    return code, out.getvalue()


def test_nothing_checked_exits_non_zero_and_prints_pasteable_blocks(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "net.py").write_text(textwrap.dedent(MODEL).lstrip())
    code, text = _cli(root)
    assert code == 3, text
    assert "2 entry points, 0 checked: 1 skipped, 1 whose original PyTorch code fails" in text
    assert "torch_fail" not in text  # the machine word stays in the JSON
    assert "the original PyTorch forward fails on these inputs" in text
    blocks = text.split("(replace each FILL_IN):\n", 1)[1].split("\ndevice:")[0].rsplit("\n2 entry points", 1)[0]
    parsed = tomllib.loads(blocks)  # valid TOML as printed
    assert parsed["entry"] == [{"class": "net:Lonely", "kwargs": {"width": "FILL_IN"},
                                "inputs": [{"shape": "FILL_IN", "dtype": "float32"}]}]
    manifest = root / "porting.toml"
    manifest.write_text(blocks)
    with pytest.raises(ManifestError, match="replace FILL_IN in kwargs.width, inputs\\[0\\].shape"):
        load_manifest(manifest)
    manifest.write_text(blocks.replace('width = "FILL_IN"', "width = 3").replace('shape = "FILL_IN"', "shape = [4, 3]"))
    code, text = _cli(root)
    assert code == 0, text
    assert "1 entry points, 1 checked: 1 pass" in text


def test_a_failing_original_beside_a_pass_exits_4_in_words(tmp_path):
    """One entry passes, the other's own PyTorch forward fails: the conversion of the
    second is unknown, so a CI step must not read the run as all green (it exited 0)."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "net.py").write_text(textwrap.dedent(MODEL).lstrip() + textwrap.dedent('''
        class Fine(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 2)

            def forward(self, x):
                return self.fc(x)

        def build():
            return Fine()(torch.randn(2, 3))
    '''))
    code, text = _cli(root)
    assert code == 4, text
    assert "3 entry points, 1 checked: 1 pass, 1 skipped, 1 whose original PyTorch code fails" in text
    table = text.split("\n\n", 1)[0]
    broken = next(line for line in table.splitlines() if line.startswith("net.Broken "))
    assert broken.split()[1:5] == ["original", "PyTorch", "code", "fails"] and "torch_fail" not in table
    assert "Broken: the original PyTorch forward fails on these inputs" in text
