"""The sandbox contains what user code might do; the parent keeps working.
These run a tiny trusted runner (no torch), so they are fast."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analysis.sandbox import SandboxLimits, run_sandboxed

PROBE = "tests.parity.sandbox_probe"


def _run(code: str, lockdown: bool = True, **limits):
    limits.setdefault("timeout_s", 20)
    limits.setdefault("startup_s", 0)
    return run_sandboxed(PROBE, {"code": code, "lockdown": lockdown}, limits=SandboxLimits(**limits))


def _last(result, key):
    return next((r[key] for r in reversed(result.records) if key in r), None)


def test_plain_code_runs_and_reports():
    result = _run("result = 6 * 7")
    assert result.ok and _last(result, "result") == 42
    assert result.protections["audit_hook"] == "processes and sockets refused"
    assert result.protections["RLIMIT_CPU"] > 0 and result.protections["RLIMIT_AS"] > 0


def test_environment_is_stripped_of_secrets(monkeypatch):
    monkeypatch.setenv("SECRET_KEY", "do-not-leak")
    monkeypatch.setenv("DATABASE_URL", "postgres://user:pw@db/prod")
    result = _run("import os\nresult = dict(os.environ)")
    env = _last(result, "result")
    assert "SECRET_KEY" not in env and "DATABASE_URL" not in env
    assert env["HOME"] == env["TMPDIR"] and env["HOME"] != os.environ.get("HOME")


def test_infinite_loop_is_killed_at_the_deadline():
    result = _run("while True:\n    pass", timeout_s=2)
    assert result.timed_out and not result.ok
    assert result.wall_s < 10
    assert "timed out" in result.failure_reason()


def test_resident_memory_ceiling_kills_the_group():
    result = _run("import time\nblocks = [b'x' * (64 << 20) for _ in range(12)]\ntime.sleep(30)", memory_mb=300)
    assert result.memory_exceeded and "memory limit" in result.failure_reason()


def test_huge_allocation_hits_the_address_space_limit():
    result = _run("result = len(bytearray(1 << 40))")
    assert "MemoryError" in _last(result, "error")


def test_cpu_time_limit():
    result = _run("while True:\n    pass", cpu_s=1, timeout_s=30)
    assert not result.ok and "SIGXCPU" in result.failure_reason()


@pytest.mark.parametrize("code", [
    "import os\nos.system('touch {marker}')",
    "import subprocess\nsubprocess.run(['touch', '{marker}'])",
    "import os\nos.fork()",
    "import socket\nsocket.create_connection(('127.0.0.1', 9), timeout=1)",
])
def test_processes_and_sockets_are_refused(code, tmp_path):
    marker = tmp_path / "pwned"
    result = _run(code.format(marker=marker))
    assert "PermissionError: sandbox:" in _last(result, "error")
    assert not marker.exists()


def test_network_namespace_has_no_route_out():
    result = _run("import socket\ns = socket.socket()\ns.settimeout(2)\n"
                  "try:\n    s.connect(('10.255.255.1', 80))\n    result = 'connected'\n"
                  "except OSError as exc:\n    result = exc.errno", lockdown=False)
    if not str(result.protections.get("network", "")).startswith("isolated"):
        pytest.skip(f"network namespaces not permitted here: {result.protections.get('network')}")
    import errno

    assert _last(result, "result") in (errno.ENETUNREACH, errno.EHOSTUNREACH)


def test_child_crash_is_reported_with_stderr():
    result = _run("import os, sys\nsys.stderr.write('about to die\\n')\nsys.stderr.flush()\nos.abort()", lockdown=False)
    assert not result.ok and "SIGABRT" in result.failure_reason()
    assert "about to die" in result.stderr_tail


def test_working_directory_is_private_and_removed():
    result = _run("import os\nresult = os.getcwd()")
    workdir = Path(_last(result, "result"))
    assert workdir != Path.cwd() and not workdir.exists()


def test_child_dies_when_its_worker_is_killed(tmp_path):
    # A worker killed outright (OOM killer, kill -9) runs no cleanup; the child must still go.
    pid_file = tmp_path / "child.pid"
    code = f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(120)"
    parent = subprocess.Popen([sys.executable, "-c", (
        "import sys; from tests.parity.test_sandbox import _run; _run(sys.argv[1], timeout_s=120)"
    ), code], cwd=Path(__file__).resolve().parents[2])
    deadline = time.monotonic() + 60
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline and parent.poll() is None, "the sandboxed child never started"
        time.sleep(0.1)
    child_pid = int(pid_file.read_text())
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 10
    while _alive(child_pid):
        assert time.monotonic() < deadline, "the sandboxed child outlived its killed parent"
        time.sleep(0.1)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[-1][0] != "Z"  # a zombie waiting for init has already died
    except FileNotFoundError:
        return False


def test_should_stop_kills_the_child_promptly():
    started = time.monotonic()
    result = run_sandboxed(PROBE, {"code": "import time\ntime.sleep(60)"},
                           limits=SandboxLimits(timeout_s=60, startup_s=0),
                           should_stop=lambda: time.monotonic() - started > 1)
    assert result.stopped and not result.ok and "stopped on request" in result.failure_reason()
    assert time.monotonic() - started < 10
