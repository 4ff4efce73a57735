"""Hostile model code goes through the whole parity engine: each entry point
ends as an error with its reason, and the others in the same run still pass."""
from __future__ import annotations

import shutil
import time

import pytest

from analysis.parity import check_parity

from .conftest import MS_REPO, TORCH_REPO

pytestmark = pytest.mark.slow

HOSTILE = '''
import os
import socket

import torch
from torch import nn


class Spin(nn.Module):
    def __init__(self):
        super().__init__()
        while True:
            pass


class Hog(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = [b"x" * (256 << 20) for _ in range(64)]


class Shell(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        os.system("touch {marker}")
        return self.fc(x)


class Phone(nn.Module):
    def __init__(self):
        super().__init__()
        socket.create_connection(("example.com", 80), timeout=2)


class Snoop(nn.Module):
    def __init__(self):
        super().__init__()
        raise RuntimeError("secret=" + repr(os.environ.get("SECRET_KEY")))
'''

BROKEN_IMPORT = "import torch\nraise ImportError('this module cannot be imported')\n"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    original = tmp / "original"
    shutil.copytree(TORCH_REPO, original)
    marker = tmp / "pwned"
    (original / "models" / "hostile.py").write_text(HOSTILE.replace("{marker}", str(marker)))
    (original / "models" / "broken.py").write_text(BROKEN_IMPORT)
    entries = ["hostile:Spin", "hostile:Hog", "hostile:Shell", "hostile:Phone", "hostile:Snoop", "broken:Anything",
               "mlp:MLP"]
    manifest = tmp / "porting.toml"
    # Shell gets no input spec: inferring one runs its forward. MLP, checked in a fresh box whose
    # framework warm-up is behind it, asks for more than the run's 10 s (allowed up to max_timeout_s).
    manifest.write_text("".join(f'[[entry]]\nclass = "models.{e}"\nloss_steps = 2\n'
                                + ("" if "Shell" in e else f'inputs = [{{shape = [4, {20 if "MLP" in e else 4}]}}]\n')
                                + ("timeout = 90\n" if "MLP" in e else "")
                                for e in entries))
    mp = pytest.MonkeyPatch()
    mp.setenv("SECRET_KEY", "do-not-leak")
    try:
        result = check_parity(original, MS_REPO, manifest=manifest, timeout_s=10, memory_mb=2500,
                              max_timeout_s=90)
    finally:
        mp.undo()
    result["marker"] = marker
    return result


def _entry(report, name):
    return next(e for e in report["entry_points"] if e["name"] == name)


def test_infinite_loop_times_out(report):
    entry = _entry(report, "Spin")
    assert entry["status"] == "error" and "timed out" in entry["reason"]


def test_memory_hog_is_killed(report):
    entry = _entry(report, "Hog")
    assert entry["status"] == "error"
    assert "memory limit" in entry["reason"] or "MemoryError" in entry["reason"]


def test_shell_command_is_refused(report):
    entry = _entry(report, "Shell")
    assert entry["status"] == "error" and "os.system is not allowed" in entry["reason"]
    assert not report["marker"].exists()


def test_socket_is_refused(report):
    entry = _entry(report, "Phone")
    assert entry["status"] == "error" and "PermissionError" in entry["reason"]


def test_server_secrets_are_not_visible(report):
    entry = _entry(report, "Snoop")
    assert "secret=None" in entry["reason"] and "do-not-leak" not in str(entry)


def test_import_error_is_reported(report):
    entry = _entry(report, "Anything")
    # Since the loader stubs modules that fail to import (85f8628), the reason may name the missing
    # class of the stubbed module rather than repeat the ImportError.
    assert entry["status"] == "error"
    assert "cannot be imported" in entry["reason"] or "models.broken has no Anything" in entry["reason"]


def test_the_rest_of_the_run_still_passes(report):
    assert _entry(report, "MLP")["status"] == "pass"
    prot = report["protections"]
    assert prot["audit_hook"] == "processes and sockets refused"
    assert prot["isolation"].startswith("bubblewrap") and set(prot["namespaces"].values()) == {"new"}
    assert prot["capabilities"] == "none" and prot["seccomp"] == "filter" and prot["host_uid"] != 0


def test_without_isolation_nothing_runs_and_every_entry_says_why(tmp_path, monkeypatch):
    original = tmp_path / "original"
    shutil.copytree(TORCH_REPO, original)
    marker = tmp_path / "ran"
    mlp = original / "models" / "mlp.py"
    mlp.write_text(f"open({str(marker)!r}, 'w').write('ran')\n" + mlp.read_text())
    monkeypatch.setenv("PORTING_SANDBOX_BWRAP", str(tmp_path / "missing-bwrap"))
    report = check_parity(original, MS_REPO, timeout_s=30)
    assert report["entry_points"] and not marker.exists()
    for entry in report["entry_points"]:
        assert entry["status"] == "error" and "refused to run uploaded code" in entry["reason"]
        assert "bubblewrap is not installed" in entry["reason"]
    assert report["protections"]["user_code_ran"] is False


def test_a_stop_request_ends_the_check_and_skips_what_is_left(tmp_path):
    # How a cancelled run stops its parity stage whatever the Celery broker.
    original = tmp_path / "original"
    shutil.copytree(TORCH_REPO, original)
    (original / "models" / "sleeper.py").write_text(
        "import time\nfrom torch import nn\n\n\nclass Sleeper(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        time.sleep(600)\n")
    manifest = tmp_path / "porting.toml"
    manifest.write_text("".join(f'[[entry]]\nclass = "models.{e}"\ninputs = [{{shape = [4, 20]}}]\n'
                                for e in ("sleeper:Sleeper", "mlp:MLP")))
    started = time.monotonic()
    report = check_parity(original, MS_REPO, manifest=manifest, timeout_s=300,
                          should_stop=lambda: time.monotonic() - started > 20)
    assert time.monotonic() - started < 60
    assert [(e["name"], e["status"]) for e in report["entry_points"]] == [("Sleeper", "skipped"), ("MLP", "skipped")]
    assert "stopped" in report["entry_points"][0]["reason"]
