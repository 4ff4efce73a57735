"""Each escape a hostile upload used against the old sandbox (issue 17), tried
against the bubblewrap box. Most run with the audit hook off (`lockdown=False`)
so they test the wall itself, not the hook; the ctypes ones also run with it on.
The same escapes go through the real parity engine in tests/parity/test_hostile.py
and through a real worker in tests/security/test_sandbox_worker.py.
"""
from __future__ import annotations

import errno
import os
import socket
import time
from pathlib import Path

import pytest

from analysis.sandbox import SandboxLimits, run_sandboxed
from analysis.sandbox.bwrap import BWRAP_ENV

PROBE = "tests.parity.sandbox_probe"
SECRETS = {"DJANGO_SECRET_KEY": "sk-escape-test-1f2e3d", "DATABASE_URL": "postgres://porting:pw-escape@db/porting",
           "REDIS_URL": "redis://:redispw-escape@127.0.0.1:6379/0"}


def _run(code: str, *, lockdown: bool = False, read_only=(), outputs=None, **limits):
    limits.setdefault("timeout_s", 20)
    limits.setdefault("startup_s", 0)
    return run_sandboxed(PROBE, {"code": code, "lockdown": lockdown}, limits=SandboxLimits(**limits),
                         read_only=read_only, outputs=outputs)


def _last(result, key):
    return next((r[key] for r in reversed(result.records) if key in r), None)


@pytest.fixture
def secrets_in_env(monkeypatch):
    for key, value in SECRETS.items():
        monkeypatch.setenv(key, value)
    return SECRETS


def _leaks(result) -> list[str]:
    text = repr(result.records) + result.stderr_tail + result.stdout_tail + repr(result.protections)
    return [key for key, value in SECRETS.items() if value in text]


def test_parent_environ_is_not_reachable(secrets_in_env):
    # The old sandbox: /proc/<parent pid>/environ of the worker held every secret.
    code = r"""
import os
seen = {}
for pid in [os.getppid(), 1] + [int(p) for p in os.listdir('/proc') if p.isdigit()]:
    try:
        seen[pid] = open(f'/proc/{pid}/environ', 'rb').read().decode('latin-1')
    except OSError as exc:
        seen[pid] = f'error {exc.errno}'
result = {'pids': sorted(int(p) for p in os.listdir('/proc') if p.isdigit()), 'environ': seen}
"""
    result = _run(code)
    found = _last(result, "result")
    assert found["pids"] == [1, 2]  # the box's init (bwrap) and the child itself: no host process
    assert _leaks(result) == []
    assert all(SECRETS["DATABASE_URL"] not in text for text in found["environ"].values())


@pytest.mark.parametrize("lockdown", [False, True], ids=["wall", "wall+hook"])
def test_ctypes_system_cannot_run_a_shell_or_touch_the_host(tmp_path, lockdown):
    # CDLL(None).system() is invisible to audit hooks; inside the box there is no shell to run.
    marker = tmp_path / "pwned"
    code = (f"import ctypes\nlibc = ctypes.CDLL(None)\nrc = libc.system(b'echo pwned > {marker}; touch /tmp/x')\n"
            f"import os\nresult = [rc, os.path.exists({str(marker)!r}), os.path.exists('/bin/sh')]")
    result = _run(code, lockdown=lockdown)
    rc, exists_inside, has_shell = _last(result, "result")
    assert rc != 0 and not exists_inside and not has_shell
    assert not marker.exists()


def test_writing_outside_the_box_does_not_reach_the_host(tmp_path):
    marker = tmp_path / "pwned"
    code = (f"import os\nerrors = []\nfor path in [{str(marker)!r}, '/etc/pwned', '/usr/lib/pwned', "
            f"{str(Path(os.__file__).parent / 'pwned.py')!r}]:\n"
            "    try:\n        open(path, 'w').write('x')\n        errors.append('written')\n"
            "    except OSError as exc:\n        errors.append(exc.errno)\nresult = errors")
    result = _run(code)
    assert "written" not in _last(result, "result")
    assert not marker.exists() and not Path("/etc/pwned").exists() and not Path("/usr/lib/pwned").exists()
    assert not (Path(os.__file__).parent / "pwned.py").exists()


def _postgres_socket() -> Path | None:
    for path in (Path("/var/run/postgresql/.s.PGSQL.5432"), Path("/run/postgresql/.s.PGSQL.5432")):
        if path.exists():
            return path
    return None


@pytest.mark.parametrize("lockdown", [False, True], ids=["wall", "wall+hook"])
def test_host_sockets_are_unreachable(lockdown):
    # PostgreSQL's Unix socket and TCP to the database and Redis: reachable from the worker, not the box.
    pg_socket = _postgres_socket()
    reachable_outside = []
    for port in (5432, 6379):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
            reachable_outside.append(port)
        except OSError:
            pass
    code = r"""
import ctypes, os, socket
libc = ctypes.CDLL(None, use_errno=True)
out = {}
for port in (5432, 6379):
    # straight through libc: no audit hook sees this
    fd = libc.socket(2, 1, 0)
    out[f'tcp{port}'] = 'socket refused %d' % ctypes.get_errno() if fd < 0 else 'socket created'
for path in ('/var/run/postgresql/.s.PGSQL.5432', '/run/postgresql/.s.PGSQL.5432', '/var/run/redis/redis.sock'):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path)
        out[path] = 'connected'
    except OSError as exc:
        out[path] = exc.errno
    except Exception as exc:
        out[path] = repr(exc)
out['rc'] = libc.system(b'psql -h 127.0.0.1 -c "select 1"')
result = out
"""
    result = _run(code, lockdown=lockdown)
    out = _last(result, "result")
    assert reachable_outside or pg_socket, "nothing to reach on this host: the test would prove nothing"
    assert out["tcp5432"] == out["tcp6379"] == f"socket refused {errno.EPERM}"
    for path in ("/var/run/postgresql/.s.PGSQL.5432", "/run/postgresql/.s.PGSQL.5432", "/var/run/redis/redis.sock"):
        assert out[path] != "connected"
    assert out["rc"] != 0


def test_run_trees_are_read_only_and_other_runs_invisible(tmp_path):
    # Two teams' runs side by side; the box gets run 1's source and converted trees only.
    runs = tmp_path / "runs"
    for run in ("1", "2"):
        for tree in ("source", "converted"):
            (runs / run / tree).mkdir(parents=True)
            (runs / run / tree / "model.py").write_text(f"# run {run} {tree}: private\n")
    mine = [runs / "1" / "source", runs / "1" / "converted"]
    code = f"""
import os
out = {{}}
for path in [{str(runs / '2' / 'source' / 'model.py')!r}, {str(runs / '2' / 'converted' / 'model.py')!r}]:
    try:
        out[path] = open(path).read()
    except OSError as exc:
        out[path] = exc.errno
out['listing'] = sorted(os.listdir({str(runs)!r}))
for path in [{str(runs / '1' / 'converted' / 'evil.py')!r}, {str(runs / '1' / 'source' / 'model.py')!r},
             {str(runs / '2' / 'converted' / 'evil.py')!r}]:
    try:
        open(path, 'a').write('import os  # planted')
        out['write ' + path] = 'written'
    except OSError as exc:
        out['write ' + path] = exc.errno
result = out
"""
    result = _run(code, read_only=mine)
    out = _last(result, "result")
    assert out[str(runs / "2" / "source" / "model.py")] == errno.ENOENT
    assert out[str(runs / "2" / "converted" / "model.py")] == errno.ENOENT
    assert out["listing"] == ["1"]
    assert out[f"write {runs / '1' / 'converted' / 'evil.py'}"] == errno.EROFS
    assert out[f"write {runs / '1' / 'source' / 'model.py'}"] in (errno.EROFS, errno.EACCES)
    assert out[f"write {runs / '2' / 'converted' / 'evil.py'}"] != "written"
    assert not (runs / "1" / "converted" / "evil.py").exists() and not (runs / "2" / "converted" / "evil.py").exists()
    assert (runs / "1" / "source" / "model.py").read_text() == "# run 1 source: private\n"


def _processes_in_namespace(pid_ns: str) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.readlink(f"/proc/{name}/ns/pid") == pid_ns:
                    found.append(int(name))
            except OSError:
                pass
    return found


@pytest.mark.parametrize("how", ["os", "ctypes"])
def test_a_detached_grandchild_does_not_outlive_the_check(how):
    # fork() + setsid(): the old sandbox killed its process group and left this one running.
    if how == "os":
        spawn = "pid = os.fork()\nif pid == 0:\n    os.setsid()\n"
    else:  # through libc, which the audit hook does not see
        spawn = "pid = libc.fork()\nif pid == 0:\n    libc.setsid()\n"
    code = ("import ctypes, os, time\nlibc = ctypes.CDLL(None)\n" + spawn +
            "    time.sleep(300)\n    os._exit(0)\nresult = pid")
    result = _run(code, lockdown=how == "ctypes")
    assert isinstance(_last(result, "result"), int) and _last(result, "result") > 0  # the fork happened
    pid_ns = result.records[0]["protections"]["namespace_ids"]["pid"]
    deadline = time.monotonic() + 5
    while _processes_in_namespace(pid_ns):
        assert time.monotonic() < deadline, "a process of the box outlived it"
        time.sleep(0.1)


def test_a_fork_bomb_stays_bounded():
    code = r"""
import os, time
children = 0
try:
    for _ in range(5000):
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        children += 1
except OSError as exc:
    result = [children, exc.errno]
"""
    started = time.monotonic()
    result = _run(code, max_processes=64, timeout_s=30)
    children, err = _last(result, "result")
    assert err == errno.EAGAIN and children < 64
    assert time.monotonic() - started < 30
    pid_ns = result.records[0]["protections"]["namespace_ids"]["pid"]
    deadline = time.monotonic() + 5
    while _processes_in_namespace(pid_ns):
        assert time.monotonic() < deadline, "fork bomb processes outlived the box"
        time.sleep(0.1)


def test_an_endless_fork_bomb_is_killed_with_every_process():
    code = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    result = _run(code, max_processes=64, timeout_s=3)
    assert result.timed_out
    pid_ns = result.records[0]["protections"]["namespace_ids"]["pid"]
    deadline = time.monotonic() + 5
    while _processes_in_namespace(pid_ns):
        assert time.monotonic() < deadline, "fork bomb processes outlived the box"
        time.sleep(0.1)


SECCOMP_PROBES = {
    # name: (libc call, arguments)
    "ptrace": "libc.ptrace(0, 0, None, None)",  # PTRACE_TRACEME
    "unshare(CLONE_NEWUSER)": "libc.unshare(0x10000000)",
    "unshare(CLONE_NEWNS)": "libc.unshare(0x00020000)",
    "mount": "libc.mount(b'none', b'/tmp', b'tmpfs', 0, None)",
    "keyctl": "libc.syscall(250, 0, 0, 0, 0, 0)",
    "add_key": "libc.syscall(248, b'user', b'k', b'v', 1, -2)",
    "bpf": "libc.syscall(321, 0, None, 0)",
    "perf_event_open": "libc.syscall(298, None, 0, -1, -1, 0)",
    "process_vm_readv": "libc.syscall(310, 1, None, 0, None, 0, 0)",
    "personality(ADDR_NO_RANDOMIZE)": "libc.personality(0x0040000)",
    "setns": "libc.setns(0, 0)",
    "io_uring_setup": "libc.syscall(425, 1, None)",
    "init_module": "libc.syscall(175, None, 0, b'')",
}


def test_seccomp_refuses_the_kernel_interfaces_used_to_escape():
    lines = ["import ctypes", "libc = ctypes.CDLL(None, use_errno=True)", "result = {}"]
    for name, call in SECCOMP_PROBES.items():
        lines.append(f"ctypes.set_errno(0); rc = {call}; result[{name!r}] = [rc, ctypes.get_errno()]")
    result = _run("\n".join(lines))
    out = _last(result, "result")
    assert out, result.stderr_tail
    for name in SECCOMP_PROBES:
        assert out[name] == [-1, errno.EPERM], (name, out[name])


def test_refuses_to_run_where_the_box_cannot_be_built(tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    code = f"open({str(marker)!r}, 'w').write('user code ran')"
    cases = {str(tmp_path / "no-such-bwrap"): "bubblewrap is not installed",
             "/bin/false": "bubblewrap could not build the sandbox here"}  # present, but fails like a refused userns
    for bwrap, why in cases.items():
        monkeypatch.setenv(BWRAP_ENV, bwrap)
        result = _run(code)
        assert result.refused.startswith(why) and not result.ok and result.records == []
        assert "refused to run uploaded code" in result.failure_reason()
        assert result.protections == {"isolation": f"unavailable: {result.refused}", "user_code_ran": False}
        assert not marker.exists()


def test_manage_py_check_says_when_the_box_cannot_be_built(monkeypatch):
    from django.core import checks

    assert [m for m in checks.run_checks() if m.id == "projects.W001"] == []
    monkeypatch.setenv(BWRAP_ENV, "/nonexistent/bwrap")
    warnings = [m for m in checks.run_checks() if m.id == "projects.W001"]
    assert len(warnings) == 1 and "bubblewrap is not installed at /nonexistent/bwrap" in warnings[0].msg
    assert "refuse to run uploaded code" in warnings[0].hint


def test_a_worker_that_is_not_root_gets_the_same_box():
    """The deployed worker runs as an ordinary user (Dockerfile: USER porting), where bwrap
    makes the user namespace itself. Here: the Debian interpreter as uid 65534, parent and child."""
    import shutil
    import subprocess
    import tempfile

    import pyseccomp

    system_python = "/usr/bin/python3"
    if os.geteuid() != 0 or not shutil.which("setpriv") or not os.path.exists(system_python):
        pytest.skip("needs root (to become another user), setpriv and the system python3")
    scratch = Path(tempfile.mkdtemp(prefix="sandbox-nonroot-"))
    try:
        os.chmod(scratch, 0o755)
        shutil.copy(pyseccomp.__file__, scratch / "pyseccomp.py")
        code = ("import os, time\nchildren = 0\ntry:\n    for _ in range(3000):\n        if os.fork() == 0:\n"
                "            time.sleep(30)\n            os._exit(0)\n        children += 1\nexcept OSError as exc:\n"
                "    result = [os.getuid(), children, exc.errno]\n")
        parent = (f"import json, sys\nsys.path[:0] = [{str(scratch)!r}, {str(Path(__file__).resolve().parents[2])!r}]\n"
                  "from analysis.sandbox import SandboxLimits, run_sandboxed\n"
                  f"r = run_sandboxed({PROBE!r}, {{'code': {code!r}, 'lockdown': False}}, python={system_python!r},\n"
                  "                  limits=SandboxLimits(timeout_s=30, startup_s=0, max_processes=64))\n"
                  "print(json.dumps([r.records[-1], r.protections, r.failure_reason(), r.stderr_tail]))\n")
        done = subprocess.run(["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", system_python,
                               "-c", parent], capture_output=True, text=True, timeout=120, cwd=scratch, env={
                                   "PATH": "/usr/bin:/bin", "DJANGO_SECRET_KEY": SECRETS["DJANGO_SECRET_KEY"]})
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    assert done.returncode == 0, done.stderr[-2000:]
    import json

    last, prot, reason, stderr = json.loads(done.stdout.strip().splitlines()[-1])
    uid, children, err = last["result"]
    assert (uid, err) == (65534, errno.EAGAIN) and children < 64, (last, reason, stderr)
    assert prot["host_uid"] == 65534 and set(prot["namespaces"].values()) == {"new"}
    assert prot["capabilities"] == "none" and prot["no_new_privs"] is True and prot["seccomp"] == "filter"
    assert SECRETS["DJANGO_SECRET_KEY"] not in done.stdout
