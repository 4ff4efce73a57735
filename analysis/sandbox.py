"""Run untrusted Python (a user's model code) in a contained child process.

The parent starts `python -I` (no user site, no PYTHONPATH, no cwd on the path)
in a fresh session with an allow-listed environment and a private temporary
working directory. The child's bootstrap applies resource limits and leaves the
network namespace before any user code is imported; the runner calls
`lockdown()` once its trusted imports are done, which installs an audit hook
refusing process creation and sockets. The parent enforces a wall-clock
deadline and a resident-memory ceiling and kills the whole process group.

Results travel as JSON lines on a file in the working directory, so whatever
the child managed to report before dying is still returned.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]

# MindSpore and torch reserve far more address space than they touch (thread
# stacks, allocator arenas): a bare import of both peaks near 2.8 GiB virtual
# for ~0.8 GiB resident. RLIMIT_AS therefore gets this much headroom on top of
# the resident budget, which the parent polices separately.
ADDRESS_SPACE_OVERHEAD_MB = 8192

# Environment variables a child may inherit; everything else (database URLs,
# secret keys, cloud tokens) is dropped.
ENV_ALLOW = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES")
ENV_ALLOW_PREFIXES = ("ASCEND_", "ASCEND", "NVIDIA_")

# Audit events refused after lockdown: new processes and network sockets.
BLOCKED_AUDIT_EVENTS = frozenset(
    {
        "os.system",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.fork",
        "os.forkpty",
        "os.kill",
        "os.killpg",
        "subprocess.Popen",
        "pty.spawn",
        "socket.connect",
        "socket.bind",
        "socket.sendto",
        "socket.sendmsg",
        "socket.getaddrinfo",
        "socket.gethostbyname",
        "urllib.Request",
    }
)

CLONE_NEWNET = 0x40000000
STDERR_TAIL_CHARS = 4000
STOP_POLL_S = 1.0  # how often should_stop() is asked


@dataclass
class SandboxLimits:
    timeout_s: float = 300.0  # wall clock, restarted by records with "reset_timeout"
    startup_s: float = 120.0  # extra allowance before the first reset (framework imports)
    memory_mb: int = 6144  # resident set ceiling enforced by the parent
    cpu_s: int | None = None  # RLIMIT_CPU; default: 4x the wall timeout
    address_space_mb: int | None = None  # RLIMIT_AS; default: memory_mb + overhead
    max_processes: int = 4096  # RLIMIT_NPROC: per user, threads count; root is exempt
    threads: int = 2  # OMP/MKL thread pools
    isolate_network: bool = True
    file_size_mb: int = 1024  # RLIMIT_FSIZE


@dataclass
class SandboxResult:
    returncode: int | None
    records: list[dict] = field(default_factory=list)
    timed_out: bool = False
    memory_exceeded: bool = False
    stopped: bool = False  # the caller's should_stop() said so (a cancelled run)
    stderr_tail: str = ""
    stdout_tail: str = ""
    wall_s: float = 0.0
    protections: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.memory_exceeded and not self.stopped

    def failure_reason(self) -> str:
        if self.stopped:
            return "stopped on request (process group killed)"
        if self.timed_out:
            return "timed out (wall-clock limit reached, process group killed)"
        if self.memory_exceeded:
            return "memory limit exceeded (process group killed)"
        if self.returncode is not None and self.returncode < 0:
            name = signal.Signals(-self.returncode).name if -self.returncode in signal.Signals._value2member_map_ else ""
            hint = " (CPU-time limit)" if name == "SIGXCPU" else ""
            return f"killed by signal {name or -self.returncode}{hint}"
        if self.returncode:
            return f"exited with status {self.returncode}"
        return ""


_BOOTSTRAP = r"""
import json, os, resource, sys
cfg = json.load(open(sys.argv[1]))
prot = {}
def _limit(name, value, grace=0):
    if value is None:
        return
    try:
        resource.setrlimit(getattr(resource, name), (value, value + grace))
        prot[name] = value
    except (ValueError, OSError) as exc:
        prot[name] = "not set: %s" % exc
_limit("RLIMIT_CPU", cfg["cpu_s"], 2)  # SIGXCPU first, SIGKILL 2 s later
_limit("RLIMIT_AS", cfg["address_space"])
_limit("RLIMIT_NPROC", cfg["nproc"])
_limit("RLIMIT_FSIZE", cfg["fsize"])
_limit("RLIMIT_CORE", 0)
# Die with the worker process even when it is SIGKILLed (OOM killer, kill -9): nothing
# in the parent runs then, and an orphaned child would keep running user code.
try:
    import ctypes, signal
    if ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL) != 0:  # PR_SET_PDEATHSIG
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    if os.getppid() != cfg["parent_pid"]:  # the parent died before prctl took effect
        os._exit(137)
    prot["dies_with_parent"] = True
except OSError as exc:
    prot["dies_with_parent"] = "not set: %s" % exc
if cfg["isolate_network"]:
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(cfg["clone_newnet"]) != 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        prot["network"] = "isolated (new network namespace)"
    except Exception as exc:
        prot["network"] = "not isolated: %s" % exc
else:
    prot["network"] = "not isolated (disabled)"
prot["root_exempt_from_nproc"] = os.geteuid() == 0
sys.path[:0] = cfg["sys_path"]
os.environ["SANDBOX_PROTECTIONS"] = json.dumps(prot)
import importlib
importlib.import_module(cfg["module"]).main(cfg["payload"], cfg["records"])
"""


def lockdown() -> dict:
    """Refuse process creation and sockets from here on (called by the runner
    after its trusted imports). Audit hooks cannot be removed once added."""

    def _hook(event: str, args: tuple) -> None:
        if event in BLOCKED_AUDIT_EVENTS:
            raise PermissionError(f"sandbox: {event} is not allowed in model code")

    sys.addaudithook(_hook)
    protections = json.loads(os.environ.get("SANDBOX_PROTECTIONS", "{}"))
    protections["audit_hook"] = "processes and sockets refused"
    return protections


def child_environment(workdir: Path, threads: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in ENV_ALLOW or k.startswith(ENV_ALLOW_PREFIXES)}
    env.setdefault("PATH", "/usr/bin:/bin")
    env.update(
        HOME=str(workdir),
        TMPDIR=str(workdir),
        PYTHONHASHSEED="0",
        PYTHONDONTWRITEBYTECODE="1",
        OMP_NUM_THREADS=str(threads),
        MKL_NUM_THREADS=str(threads),
        OPENBLAS_NUM_THREADS=str(threads),
        CUBLAS_WORKSPACE_CONFIG=":4096:8",  # lets torch's deterministic mode run cuBLAS on GPU
        GLOG_v="3",  # MindSpore: errors only
        GLOG_logtostderr="1",
    )
    return env


def _read_records(path: Path, offset: int, records: list[dict]) -> tuple[int, bool]:
    """Append complete JSON lines written since `offset`; report whether any of
    them asked for the deadline to restart."""
    reset = False
    try:
        with path.open("rb") as fh:
            fh.seek(offset)
            data = fh.read()
    except FileNotFoundError:
        return offset, False
    end = data.rfind(b"\n")
    if end < 0:
        return offset, False
    for line in data[: end + 1].splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        records.append(record)
        reset = reset or bool(record.get("reset_timeout"))
    return offset + end + 1, reset


def _rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except (FileNotFoundError, ProcessLookupError, ValueError):
        pass
    return 0.0


def _tail(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - STDERR_TAIL_CHARS))
            return fh.read().decode("utf-8", "replace")
    except FileNotFoundError:
        return ""


def run_sandboxed(
    module: str,
    payload: dict,
    *,
    sys_path: list[str | Path] = (),
    limits: SandboxLimits | None = None,
    python: str = sys.executable,
    keep_workdir: bool = False,
    should_stop: Callable[[], bool] | None = None,
) -> SandboxResult:
    """Run `module.main(payload_path, records_path)` in a contained child.

    `module` must be importable from the project (it is trusted code); user
    code is only imported by it. `sys_path` entries are prepended to the
    child's path (the project root always is). Never raises for anything the
    child does.
    """
    limits = limits or SandboxLimits()
    workdir = Path(tempfile.mkdtemp(prefix="sandbox-"))
    payload_path = workdir / "payload.json"
    records_path = workdir / "records.jsonl"
    payload_path.write_text(json.dumps(payload))
    config = {
        "module": module,
        "payload": str(payload_path),
        "records": str(records_path),
        "sys_path": [str(p) for p in sys_path] + [str(PROJECT_ROOT)],
        "cpu_s": int(limits.cpu_s or max(30, limits.timeout_s * 4)),
        "address_space": (limits.address_space_mb or limits.memory_mb + ADDRESS_SPACE_OVERHEAD_MB) << 20,
        "nproc": limits.max_processes,
        "fsize": limits.file_size_mb << 20,
        "isolate_network": limits.isolate_network,
        "clone_newnet": CLONE_NEWNET,
        "parent_pid": os.getpid(),
    }
    config_path = workdir / "sandbox.json"
    config_path.write_text(json.dumps(config))
    stdout_path, stderr_path = workdir / "stdout.txt", workdir / "stderr.txt"
    result = SandboxResult(returncode=None)
    started = time.monotonic()
    try:
        with stdout_path.open("wb") as out, stderr_path.open("wb") as err:
            proc = subprocess.Popen(
                [python, "-I", "-c", _BOOTSTRAP, str(config_path)],
                cwd=workdir,
                env=child_environment(workdir, limits.threads),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,  # its own process group, killed as one
                close_fds=True,
            )
            offset, deadline = 0, time.monotonic() + limits.startup_s + limits.timeout_s
            next_stop_poll = time.monotonic() + STOP_POLL_S
            while True:
                try:
                    result.returncode = proc.wait(timeout=0.2)
                except subprocess.TimeoutExpired:
                    pass
                offset, reset = _read_records(records_path, offset, result.records)
                if reset:
                    deadline = time.monotonic() + limits.timeout_s
                if result.returncode is not None:
                    break
                if time.monotonic() > deadline:
                    result.timed_out = True
                elif _rss_mb(proc.pid) > limits.memory_mb:
                    result.memory_exceeded = True
                elif should_stop is not None and time.monotonic() >= next_stop_poll:
                    # Works whatever the broker: a cancelled run is seen here within a second or so.
                    next_stop_poll = time.monotonic() + STOP_POLL_S
                    result.stopped = bool(should_stop())
                if result.timed_out or result.memory_exceeded or result.stopped:
                    _kill_group(proc)
                    result.returncode = proc.wait()
                    offset, _ = _read_records(records_path, offset, result.records)
                    break
    except OSError as exc:  # could not even start the interpreter
        result.stderr_tail = f"sandbox: could not start child: {exc}"
        return result
    finally:
        result.wall_s = time.monotonic() - started
        result.stderr_tail = result.stderr_tail or _tail(stderr_path)
        result.stdout_tail = _tail(stdout_path)
        result.protections = _protections(result.records, config, limits)
        if not keep_workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    return result


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _protections(records: list[dict], config: dict, limits: SandboxLimits) -> dict:
    """What the child confirmed it applied, plus what the parent enforces."""
    reported = next((r["protections"] for r in records if "protections" in r), None)
    protections = dict(reported or {})
    protections.update(
        wall_clock_timeout_s=limits.timeout_s,
        resident_memory_mb=limits.memory_mb,
        environment="allow-list only",
        working_directory="private temporary directory",
    )
    if reported is None:
        protections["child_report"] = "missing (child ended before reporting)"
    return protections
