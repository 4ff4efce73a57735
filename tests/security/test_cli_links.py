"""`manage.py convert|analyze|parity` on a checkout holding symbolic links
(issue 25): a link is skipped with a message and never read, whatever it
points at (a root-only file, a Python module outside the checkout, a folder)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.parity.conftest import TORCH_REPO

REPO_ROOT = Path(__file__).resolve().parents[2]
CANARY = "canary-link-target-4be1"
OUTSIDE_MODULE = f'''
from torch import nn

TOKEN = "{CANARY}"


class Leaked(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)
'''


@pytest.fixture
def checkout(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"root-only {CANARY}\n")
    os.chmod(outside / "secret.txt", 0o600)
    (outside / "module.py").write_text(OUTSIDE_MODULE)
    (outside / "pkg").mkdir()
    (outside / "pkg" / "inner.py").write_text(f"X = '{CANARY}'\n")
    tree = tmp_path / "checkout"
    (tree / "models").mkdir(parents=True)
    (tree / "models" / "__init__.py").write_text("")
    (tree / "models" / "mlp.py").write_text((TORCH_REPO / "models" / "mlp.py").read_text())
    (tree / "models" / "leak.py").symlink_to(outside / "module.py")
    (tree / "notes.txt").symlink_to(outside / "secret.txt")
    (tree / "vendored").symlink_to(outside / "pkg", target_is_directory=True)
    return tree


def _manage(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    return subprocess.run([sys.executable, str(REPO_ROOT / "manage.py"), *args], capture_output=True, text=True,
                          timeout=900, cwd=cwd, env=env)


def test_convert_skips_links_and_copies_nothing_they_point_at(checkout, tmp_path):
    out = tmp_path / "converted"
    done = _manage("convert", str(checkout), "--out", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "skipped 3 symbolic link(s), never read" in done.stdout and "models/leak.py" in done.stdout
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert "models/leak.py" not in written and "notes.txt" not in written
    assert not any(p.startswith("vendored") for p in written)
    assert all(CANARY not in p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())


def test_analyze_skips_links(checkout, tmp_path):
    done = _manage("analyze", str(checkout), "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert CANARY not in done.stdout and "leak.py" not in done.stdout and "vendored" not in done.stdout
    assert report and "skipped 3 symbolic link(s)" in done.stderr
    link = checkout / "models" / "leak.py"
    refused = _manage("analyze", str(link), cwd=tmp_path)
    assert refused.returncode == 2 and "symbolic link" in refused.stdout and CANARY not in refused.stdout


@pytest.mark.slow
def test_parity_discovers_and_converts_no_linked_module(checkout, tmp_path):
    done = _manage("parity", str(checkout), "--format", "json", "--loss-steps", "2", "--timeout", "120",
                   cwd=tmp_path)
    report = json.loads(done.stdout)
    classes = {e["class"] for e in report["entry_points"]}
    assert "MLP" in classes and "Leaked" not in classes, classes
    assert CANARY not in done.stdout and "skipped 3 symbolic link(s)" in done.stderr
