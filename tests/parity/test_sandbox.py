"""The sandbox contains what user code might do; the parent keeps working.
These run a tiny trusted runner (no torch), so they are fast. The escapes a
hostile upload tried are in tests/security/test_sandbox_escapes.py."""
from __future__ import annotations

import errno
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from analysis.sandbox import SandboxLimits, run_sandboxed

PROBE = "tests.parity.sandbox_probe"


def _run(code: str, lockdown: bool = True, read_only=(), outputs=None, **limits):
    limits.setdefault("timeout_s", 20)
    limits.setdefault("startup_s", 0)
    return run_sandboxed(PROBE, {"code": code, "lockdown": lockdown}, limits=SandboxLimits(**limits),
                         read_only=read_only, outputs=outputs)


def _last(result, key):
    return next((r[key] for r in reversed(result.records) if key in r), None)


def test_plain_code_runs_and_reports_what_was_applied():
    result = _run("result = 6 * 7")
    assert result.ok and _last(result, "result") == 42
    prot = result.protections
    assert prot["audit_hook"] == "processes and sockets refused"
    assert prot["RLIMIT_CPU"] > 0 and prot["RLIMIT_AS"] > 0 and prot["RLIMIT_NPROC"] > 0
    # What the kernel says, read back inside the box, and compared with the worker's own namespaces.
    assert prot["namespaces"] == {n: "new" for n in ("cgroup", "ipc", "mnt", "net", "pid", "user", "uts")}
    assert prot["uid"] == 65534 and prot["host_uid"] != 0
    assert prot["capabilities"] == "none" and prot["no_new_privs"] is True and prot["seccomp"] == "filter"
    assert prot["isolation"].startswith("bubblewrap")


def test_environment_is_stripped_of_secrets(monkeypatch):
    monkeypatch.setenv("SECRET_KEY", "do-not-leak")
    monkeypatch.setenv("DATABASE_URL", "postgres://user:pw@db/prod")
    result = _run("import os\nresult = dict(os.environ)")
    env = _last(result, "result")
    assert "SECRET_KEY" not in env and "DATABASE_URL" not in env
    assert env["HOME"] == env["TMPDIR"] == "/sandbox" and "do-not-leak" not in str(result.records)


def test_infinite_loop_is_killed_at_the_deadline():
    result = _run("while True:\n    pass", timeout_s=2)
    assert result.timed_out and not result.ok
    assert result.wall_s < 10
    assert "timed out" in result.failure_reason()


def test_resident_memory_ceiling_kills_the_box():
    result = _run("import time\nblocks = [b'x' * (64 << 20) for _ in range(12)]\ntime.sleep(30)", memory_mb=300)
    assert result.memory_exceeded and "memory limit" in result.failure_reason()


def test_memory_spread_over_processes_counts_as_a_whole():
    # Four forked children of 100 MiB each: none alone is over 300 MiB, the box is.
    code = ("import os, time\nfor _ in range(4):\n    if os.fork() == 0:\n        b = b'x' * (100 << 20)\n"
            "        time.sleep(30)\n        os._exit(0)\ntime.sleep(30)")
    result = _run(code, lockdown=False, memory_mb=300)
    assert result.memory_exceeded and result.wall_s < 25


def test_huge_allocation_hits_the_address_space_limit():
    result = _run("result = len(bytearray(1 << 40))")
    assert "MemoryError" in _last(result, "error")


def test_cpu_time_limit():
    result = _run("while True:\n    pass", cpu_s=1, timeout_s=30)
    assert not result.ok and "SIGXCPU" in result.failure_reason()


def test_processes_and_sockets_are_refused_by_the_audit_hook(tmp_path):
    for code in ("import os\nos.system('true')", "import subprocess\nsubprocess.run(['true'])",
                 "import os\nos.fork()", "import socket\nsocket.create_connection(('127.0.0.1', 9), timeout=1)"):
        result = _run(code)
        assert "PermissionError: sandbox:" in _last(result, "error"), code


def test_network_family_sockets_are_refused_by_seccomp():
    # Without the audit hook: the wall itself. AF_INET, AF_INET6, AF_NETLINK, AF_PACKET all refused.
    code = ("import socket\nresult = {}\nfor fam in (2, 10, 16, 17):\n    try:\n        socket.socket(fam, 2)\n"
            "        result[fam] = 'created'\n    except OSError as exc:\n        result[fam] = exc.errno\n"
            "socket.socket(socket.AF_UNIX).close()")
    result = _run(code, lockdown=False)
    assert _last(result, "result") == {str(f): errno.EPERM for f in (2, 10, 16, 17)}


def test_child_crash_is_reported_with_stderr():
    result = _run("import os, sys\nsys.stderr.write('about to die\\n')\nsys.stderr.flush()\nos.abort()", lockdown=False)
    assert not result.ok and "SIGABRT" in result.failure_reason()
    assert "about to die" in result.stderr_tail


def test_working_directory_is_private_writable_and_removed(tmp_path):
    host_only = Path(tempfile.mkstemp(prefix="host-only-", dir="/tmp")[1])
    code = ("import os, tempfile\nopen('note.txt', 'w').write('x')\n"
            "result = [os.getcwd(), sorted(os.listdir('.')), tempfile.gettempdir(), os.listdir('/tmp')]")
    try:
        result = run_sandboxed(PROBE, {"code": code}, limits=SandboxLimits(timeout_s=20, startup_s=0))
    finally:
        host_only.unlink()
    cwd, listing, tmp, tmp_listing = _last(result, "result")
    assert cwd == tmp == "/sandbox" and "note.txt" in listing
    # The host's /tmp is not there: the box's own /tmp holds at most the folders leading to what
    # it binds read-only (a checkout or a venv that lives under /tmp, as in CI's clone).
    bound = (Path(__file__).resolve().parents[2], Path(sys.prefix), Path(sys.base_prefix))
    leading = {p.parts[2] for p in bound if p.parts[:2] == ("/", "tmp") and len(p.parts) > 2}
    assert host_only.name not in tmp_listing and set(tmp_listing) <= leading, tmp_listing


def test_read_only_trees_are_readable_not_writable(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "model.py").write_text("X = 1\n")
    code = (f"import os\ntext = open({str(tree / 'model.py')!r}).read()\ntry:\n"
            f"    open({str(tree / 'new.py')!r}, 'w')\n    result = [text, 'written']\n"
            "except OSError as exc:\n    result = [text, exc.errno]")
    result = _run(code, read_only=[tree])
    assert _last(result, "result") == ["X = 1\n", errno.EROFS]
    assert sorted(os.listdir(tree)) == ["model.py"]


def test_files_come_out_only_through_declared_slots(tmp_path):
    # The child writes its file in its own home and sends it; the parent alone names the target.
    out = tmp_path / "checkpoints"
    out.mkdir()
    code = ("open('a.ckpt', 'wb').write(b'weights')\n"
            "import numpy as np\n"
            "channel.send({'event': 'file', 'slot': 'w', 'last': True}, {'data': np.frombuffer(b'weights', np.uint8)})\n"
            "result = 'sent'")
    result = _run(code, outputs={"w": out / "Net.ckpt"})
    assert _last(result, "result") == "sent" and result.outputs == ["w"]
    assert sorted(os.listdir(out)) == ["Net.ckpt"] and (out / "Net.ckpt").read_bytes() == b"weights"
    assert (out / "Net.ckpt").stat().st_mode & 0o777 == 0o640


def test_child_dies_when_its_worker_is_killed():
    # A worker killed outright (OOM killer, kill -9) runs no cleanup; the box must still go.
    code = "import time\ntime.sleep(120)"
    parent = subprocess.Popen([sys.executable, "-c", (
        "import sys; from tests.parity.test_sandbox import _run; _run(sys.argv[1], timeout_s=120)"
    ), code], cwd=Path(__file__).resolve().parents[2])
    deadline = time.monotonic() + 60
    while len(_descendants(parent.pid)) < 3:  # bwrap, the box's init, the child
        assert time.monotonic() < deadline and parent.poll() is None, "the sandboxed child never started"
        time.sleep(0.1)
    box = _descendants(parent.pid)
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in box):
        assert time.monotonic() < deadline, "the sandboxed child outlived its killed parent"
        time.sleep(0.1)


def _descendants(root: int) -> list[int]:
    from analysis.sandbox.core import _process_tree

    return [pid for pid in _process_tree(root) if pid != root]


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
