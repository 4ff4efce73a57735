"""The trusted side of the parity box (issue 25), through the command line,
as root and as an unprivileged user: a forged record or a monkeypatched check
gives `error`, never `pass`; a wrong conversion still fails; the box's init
(/proc/1) and the worker's environment hold nothing to read; no canary
secret reaches the report, stdout or stderr.

Each hostile class attacks both the old transport (a JSON-lines records
file named in /sandbox/sandbox.json) and the new one (frames on the
channel fd), so the same test fails on the code before the split.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.parity.conftest import MS_REPO, TORCH_REPO

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]
CANARIES = {"DJANGO_SECRET_KEY": "sk-canary-5d0c2a", "DATABASE_URL": "postgres://porting:pw-canary-91@db/porting",
            "CLOUD_TOKEN": "tok-canary-77e1"}

TORCH_SIDE = '''
import json, os, struct, sys

from torch import nn


def _payload_key(name):
    payload = json.load(open("/sandbox/payload.json"))
    jobs = payload.get("jobs") or [payload.get("job")]
    return next(j["key"] for j in jobs if j["class"] == name)


def _forge(record):
    cfg = json.load(open("/sandbox/sandbox.json"))
    if cfg.get("records"):  # the old transport: a file the child could append to
        with open(cfg["records"], "a") as fh:
            fh.write(json.dumps(record) + "\\n")
    if cfg.get("channel_fd") is not None:  # the channel: a frame of the right form
        header = json.dumps({"record": record, "arrays": []}).encode()
        os.write(cfg["channel_fd"], b"PF" + struct.pack(">IQ", len(header), 0) + header)


PASSING = {"status": "pass", "reason": "", "metrics": {"status": "pass"}, "first_diverging_layer": None,
           "inputs": [], "layers": [], "outputs": [{"index": 0, "status": "pass"}],
           "weights": {"unmatched_torch": []}, "config_mismatches": []}


class Forged(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        _forge({"event": "result", "key": _payload_key("Forged"), "result": dict(PASSING)})
        os._exit(0)


class Patched(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        sys.modules["analysis.parity.checks"].run_entry = lambda *a, **k: dict(PASSING)

    def forward(self, x):
        return self.fc(x)


class Doubled(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


class Snoop(nn.Module):
    def __init__(self):
        super().__init__()
        seen = {}
        for path in ("/proc/1/environ", "/proc/1/cmdline", "/proc/self/environ"):
            try:
                seen[path] = open(path, "rb").read().decode("latin-1")
            except OSError as exc:
                seen[path] = f"error {exc.errno}"
        seen["env"] = dict(os.environ)
        raise RuntimeError("SNOOP " + json.dumps(seen))
'''

MS_SIDE = '''
from mindspore import nn


class _Twice(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        return self.fc(x) * 2  # the conversion bug: twice the output


Forged = Patched = Doubled = Snoop = _Twice
'''
ENTRIES = ("Forged", "Patched", "Doubled", "Snoop")


@pytest.fixture(scope="module")
def trees():
    """Original and converted trees with the hostile module, readable by any user."""
    base = Path(tempfile.mkdtemp(prefix="trusted-side-"))
    os.chmod(base, 0o755)
    original, converted = base / "original", base / "converted"
    shutil.copytree(TORCH_REPO, original)
    shutil.copytree(MS_REPO, converted)
    (original / "models" / "hostile.py").write_text(TORCH_SIDE)
    (converted / "models" / "hostile.py").write_text(MS_SIDE)
    (base / "porting.toml").write_text("".join(
        f'[[entry]]\nclass = "models.hostile:{name}"\ninputs = [{{shape = [2, 4]}}]\nloss_steps = 2\n'
        for name in ENTRIES))
    subprocess.run(["chmod", "-R", "a+rX", str(base)], check=True)
    yield base
    shutil.rmtree(base, ignore_errors=True)


def unprivileged_python(base: Path) -> str:
    """An interpreter an unprivileged user can run with this environment's packages: the
    test's own may live under /root (pyenv). A venv over the system python3 of the same
    minor version whose site-packages points at ours (.pth)."""
    system = f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}"
    if not os.path.exists(system):
        pytest.skip(f"needs {system} for the unprivileged user")
    venv = base / "venv"
    subprocess.run([system, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)), None)
    packages = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    (packages / "test-packages.pth").write_text(site + "\n")
    # redis-py imports the async_timeout backport below Python 3.11.3 (Debian 12 ships 3.11.2);
    # the standard library's asyncio.timeout is the same context manager.
    (packages / "async_timeout.py").write_text("from asyncio import timeout  # noqa: F401\n")
    subprocess.run(["chmod", "-R", "a+rX", str(venv)], check=True)
    return str(venv / "bin" / "python")


def as_user(user: str, argv: list[str]) -> list[str]:
    return ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups"] + argv


def _cli(base: Path, user: str | None) -> tuple[dict, str]:
    scratch = Path(tempfile.mkdtemp(prefix="trusted-cli-"))
    os.chmod(scratch, 0o777)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO_ROOT), "HOME": str(scratch), **CANARIES}
    python = unprivileged_python(base) if user else sys.executable
    argv = [python, "-m", "analysis.cli.parity", str(base / "original"), "--converted",
            str(base / "converted"), "--manifest", str(base / "porting.toml"), "--format", "json", "--timeout", "120"]
    if user:
        argv = as_user(user, argv)
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=900, cwd=scratch, env=env)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    assert done.stdout.strip(), done.stderr[-3000:]
    return json.loads(done.stdout), done.stdout + done.stderr


@pytest.mark.parametrize("user", [None, "65534"], ids=["root", "nobody"])
def test_forged_and_patched_verdicts_are_errors_and_secrets_stay_out(trees, user):
    if user and (os.geteuid() != 0 or not shutil.which("setpriv")):
        pytest.skip("needs root to become another user, and setpriv")
    report, text = _cli(trees, user)
    entries = {e["class"]: e for e in report["entry_points"]}
    assert set(ENTRIES) <= set(entries), sorted(entries)
    # A forged "pass" record and a monkeypatched check: errors, never a pass.
    assert entries["Forged"]["status"] == "error", entries["Forged"]
    assert entries["Patched"]["status"] == "error", entries["Patched"]
    assert "schema" in entries["Patched"]["reason"]
    # The same wrong conversion, honestly measured, fails at the root's own forward.
    assert entries["Doubled"]["status"] == "fail" and entries["Doubled"]["first_diverging_layer"] == "(root)"
    # The box's init is not readable and holds nothing; no canary anywhere.
    snoop = entries["Snoop"]["reason"]
    seen = json.loads(snoop[snoop.index("SNOOP ") + 6:].split("\n")[0].rsplit("}", 1)[0] + "}")
    assert seen["/proc/1/environ"].startswith("error") and seen["/proc/1/cmdline"].startswith("error"), seen
    leaked = [name for name, value in CANARIES.items() if value in text]
    assert leaked == []
