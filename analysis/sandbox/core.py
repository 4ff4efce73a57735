"""Run untrusted Python (a user's model code) in a contained child process.

The wall is bubblewrap (`bwrap.py`): namespaces, a read-only minimal
filesystem, no capabilities, no_new_privs and a seccomp filter
(`seccomp.py`). Where the host cannot build that box, nothing runs: the
result says why (`SandboxResult.refused`), and parity reports it per entry.
Inside, the child's bootstrap (`child.py`) applies resource limits before the
trusted module is imported; the runner calls `lockdown()` once its trusted
imports are done, which adds an audit hook refusing process creation and
sockets (a second layer, not the wall). The parent enforces a wall-clock
deadline and a resident-memory ceiling over the whole process tree and kills
it; the PID namespace takes every process in the box with it.

Results travel as JSON lines on a file in the private work directory, so
whatever the child managed to report before dying is still returned.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import bwrap, seccomp
from .support import isolation_problem

PROJECT_ROOT = Path(__file__).resolve().parents[2]
TRUSTED_PACKAGES = ("analysis",)  # bound read-only: the runner and what it imports

# MindSpore and torch reserve far more address space than they touch (thread
# stacks, allocator arenas): a bare import of both peaks near 2.8 GiB virtual
# for ~0.8 GiB resident. RLIMIT_AS therefore gets this much headroom on top of
# the resident budget, which the parent polices separately.
ADDRESS_SPACE_OVERHEAD_MB = 8192

# Environment variables a child may inherit; everything else (database URLs,
# secret keys, cloud tokens) is dropped (bwrap --clearenv, then these).
ENV_ALLOW = ("LANG", "LC_ALL", "LC_CTYPE", "TZ", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES")
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

STDERR_TAIL_CHARS = 4000
STOP_POLL_S = 1.0  # how often should_stop() is asked
MEMORY_POLL_S = 0.5  # how often the box's resident memory is summed (a /proc scan: ~7 ms of CPU)
OUTPUT_FILE_LIMIT = 64  # files copied back out of each writable directory


@dataclass
class SandboxLimits:
    timeout_s: float = 300.0  # wall clock, restarted by records with "reset_timeout"
    startup_s: float = 120.0  # extra allowance before the first reset (framework imports)
    memory_mb: int = 6144  # resident set of the whole box, enforced by the parent
    cpu_s: int | None = None  # RLIMIT_CPU per process; default: 4x the wall timeout
    address_space_mb: int | None = None  # RLIMIT_AS; default: memory_mb + overhead
    max_processes: int = 512  # RLIMIT_NPROC inside the box: processes and threads of the box's uid
    threads: int = 2  # OMP/MKL thread pools
    file_size_mb: int = 1024  # RLIMIT_FSIZE


@dataclass
class SandboxResult:
    returncode: int | None
    records: list[dict] = field(default_factory=list)
    timed_out: bool = False
    memory_exceeded: bool = False
    stopped: bool = False  # the caller's should_stop() said so (a cancelled run)
    refused: str = ""  # the box could not be built here: nothing ran, this says why
    stderr_tail: str = ""
    stdout_tail: str = ""
    wall_s: float = 0.0
    protections: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return (self.returncode == 0 and not self.timed_out and not self.memory_exceeded and not self.stopped
                and not self.refused)

    def failure_reason(self) -> str:
        if self.refused:
            return f"refused to run uploaded code: {self.refused}"
        if self.stopped:
            return "stopped on request (every process in the sandbox killed)"
        if self.timed_out:
            return "timed out (wall-clock limit reached, every process in the sandbox killed)"
        if self.memory_exceeded:
            return "memory limit exceeded (every process in the sandbox killed)"
        if self.returncode is not None and self.returncode < 0:
            name = signal.Signals(-self.returncode).name if -self.returncode in signal.Signals._value2member_map_ else ""
            hint = " (CPU-time limit)" if name == "SIGXCPU" else ""
            return f"killed by signal {name or -self.returncode}{hint}"
        if self.returncode and not self.records and "bwrap:" in self.stderr_tail:
            return "the sandbox could not start: " + self.stderr_tail.strip().splitlines()[-1]
        if self.returncode:
            return f"exited with status {self.returncode}"
        return ""


_BOOTSTRAP = "import sys; sys.path[:0] = [sys.argv[1]]; from analysis.sandbox.child import main; main(sys.argv[2])"


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


def child_environment(home: str, threads: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in ENV_ALLOW or k.startswith(ENV_ALLOW_PREFIXES)}
    env.update(
        PATH="/nonexistent",  # no shell or tools are mounted; say so rather than point at the host's
        HOME=home,
        TMPDIR=home,
        USER="sandbox",
        LOGNAME="sandbox",
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
    them asked for the deadline to restart. The file lives in the box's writable
    directory: a link planted there is not followed."""
    reset = False
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except (FileNotFoundError, OSError):
        return offset, False
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return offset, False
        fh.seek(offset)
        data = fh.read()
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
        if isinstance(record, dict):
            records.append(record)
            reset = reset or bool(record.get("reset_timeout"))
    return offset + end + 1, reset


def _process_tree(root: int) -> list[int]:
    """`root` and all its descendants, from the host's /proc (everything in the box
    descends from bwrap: orphans are re-parented to the box's own init)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(name))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, ()))
    return tree


def _rss_mb(pids: list[int]) -> float:
    total = 0
    page = os.sysconf("SC_PAGE_SIZE")
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm") as fh:
                total += int(fh.read().split()[1]) * page
        except (OSError, ValueError, IndexError):
            pass
    return total / (1 << 20)


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
    sys_path: Sequence[str | Path] = (),
    read_only: Sequence[str | Path] = (),
    writable: Sequence[str | Path] = (),
    device: str = "cpu",
    limits: SandboxLimits | None = None,
    python: str = sys.executable,
    keep_workdir: bool = False,
    should_stop: Callable[[], bool] | None = None,
) -> SandboxResult:
    """Run `module.main(payload_path, records_path)` in the box.

    `module` must be importable from the project (it is trusted code); user
    code is only imported by it. `read_only` are the directories the child may
    read (bound at the same path inside); `sys_path` entries are prepended to
    the child's path and should lie in them. Each `writable` directory appears
    empty and writable inside; the regular files the child leaves at its top
    level are copied to the real directory afterwards. `device` ("gpu",
    "ascend") binds that accelerator's device nodes. Never raises for
    anything the child does; where the box cannot be built it runs nothing and
    returns a result whose `refused` says why.
    """
    limits = limits or SandboxLimits()
    result = SandboxResult(returncode=None)
    problem = isolation_problem(python)
    if problem:
        result.refused = problem
        result.stderr_tail = f"sandbox: {problem}"
        result.protections = {"isolation": f"unavailable: {problem}", "user_code_ran": False}
        return result
    workdir = Path(tempfile.mkdtemp(prefix="sandbox-"))
    box_dir = workdir / "box"  # the child's home; the rest of workdir is the parent's
    box_dir.mkdir()
    root_worker = os.geteuid() == 0
    staging = {}
    for index, target in enumerate(dict.fromkeys(str(Path(p).resolve()) for p in writable)):
        staging[target] = box_dir / f".out{index}"
        staging[target].mkdir()
    if root_worker:
        for path in [box_dir, *staging.values()]:
            os.chown(path, bwrap.BOX_UID, bwrap.BOX_GID)
    home = bwrap.BOX_HOME
    config = {
        "module": module,
        "payload": f"{home}/payload.json",
        "records": f"{home}/records.jsonl",
        "home": home,
        "uid": bwrap.BOX_UID,
        "gid": bwrap.BOX_GID,
        "sys_path": [str(p) for p in sys_path] + [str(PROJECT_ROOT)],
        "cpu_s": int(limits.cpu_s or max(30, limits.timeout_s * 4)),
        "address_space": (limits.address_space_mb or limits.memory_mb + ADDRESS_SPACE_OVERHEAD_MB) << 20,
        "nproc": limits.max_processes,
        "fsize": limits.file_size_mb << 20,
    }
    (box_dir / "payload.json").write_text(json.dumps(payload))
    (box_dir / "sandbox.json").write_text(json.dumps(config))
    records_path = box_dir / "records.jsonl"
    stdout_path, stderr_path = workdir / "stdout.txt", workdir / "stderr.txt"
    trusted = [PROJECT_ROOT / pkg for pkg in dict.fromkeys((*TRUSTED_PACKAGES, module.split(".")[0]))]
    fds: list[int] = []
    started = time.monotonic()
    plan = None
    try:
        fds.append(seccomp.program_fd())
        if root_worker:
            fds.append(bwrap.root_user_namespace())
        plan = bwrap.build(
            command=[python, "-I", "-c", _BOOTSTRAP, str(PROJECT_ROOT), f"{home}/sandbox.json"],
            env=child_environment(home, limits.threads), box_host_dir=box_dir,
            read_only=[str(p) for p in (*trusted, *read_only) if Path(p).exists()],
            writable={target: str(path) for target, path in staging.items()},
            device=device, seccomp_fd=fds[0], userns_fd=fds[1] if root_worker else None,
        )
        with stdout_path.open("wb") as out, stderr_path.open("wb") as err:
            proc = subprocess.Popen(plan.argv, cwd=workdir, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                    start_new_session=True, close_fds=True, pass_fds=plan.pass_fds)
        for fd in fds:
            os.close(fd)
        fds = []
        _watch(proc, result, records_path, limits, should_stop)
    except (OSError, seccomp.SeccompUnavailable, subprocess.SubprocessError) as exc:  # the box could not be built
        result.refused = f"the sandbox could not be set up: {exc}"
        result.stderr_tail = f"sandbox: {result.refused}"
    finally:
        for fd in fds:
            os.close(fd)
        result.wall_s = time.monotonic() - started
        result.stderr_tail = result.stderr_tail or _tail(stderr_path)
        result.stdout_tail = _tail(stdout_path)
        result.returncode = _signal_code(result.returncode)
        result.protections = _protections(result, plan, limits)
        for target, path in staging.items():
            _copy_out(path, Path(target), limits.file_size_mb << 20)
        if not keep_workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    return result


def _watch(proc: subprocess.Popen, result: SandboxResult, records_path: Path, limits: SandboxLimits,
           should_stop: Callable[[], bool] | None) -> None:
    offset, deadline = 0, time.monotonic() + limits.startup_s + limits.timeout_s
    next_stop_poll = time.monotonic() + STOP_POLL_S
    next_memory_poll = time.monotonic()
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
        elif time.monotonic() >= next_memory_poll and _rss_mb(_process_tree(proc.pid)) > limits.memory_mb:
            result.memory_exceeded = True
        elif should_stop is not None and time.monotonic() >= next_stop_poll:
            # Works whatever the broker: a cancelled run is seen here within a second or so.
            next_stop_poll = time.monotonic() + STOP_POLL_S
            result.stopped = bool(should_stop())
        if time.monotonic() >= next_memory_poll:
            next_memory_poll = time.monotonic() + MEMORY_POLL_S
        if result.timed_out or result.memory_exceeded or result.stopped:
            _kill_box(proc)
            result.returncode = proc.wait()
            offset, _ = _read_records(records_path, offset, result.records)
            break


def _kill_box(proc: subprocess.Popen) -> None:
    """SIGKILL bwrap and everything under it. Killing the box's init alone would
    do (the PID namespace dies with it); the rest is belt and braces."""
    for pid in reversed(_process_tree(proc.pid)):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _signal_code(code: int | None) -> int | None:
    """bwrap reports a child killed by signal N as exit status 128+N; give it back
    as subprocess does (-N)."""
    if code is not None and 128 < code < 128 + signal.NSIG:
        return -(code - 128)
    return code


def _copy_out(staging: Path, target: Path, max_bytes: int) -> None:
    """Regular files from a writable directory of the box to their real place;
    links and anything else the child planted are ignored, and so is whatever
    goes past OUTPUT_FILE_LIMIT files or 2x the file-size limit in all."""
    try:
        names = sorted(os.listdir(staging))[:OUTPUT_FILE_LIMIT]
    except OSError:
        return
    budget = 2 * max_bytes
    for name in names:
        try:
            fd = os.open(staging / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        with os.fdopen(fd, "rb") as src:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > min(max_bytes, budget):
                continue
            budget -= info.st_size
            target.mkdir(parents=True, exist_ok=True)
            with open(target / name, "wb") as dst:
                shutil.copyfileobj(src, dst)


def _namespace_report(reported: dict) -> dict:
    """Which namespaces differ from the worker's own, as the kernel says."""
    out = {}
    for name, ident in sorted(reported.items()):
        try:
            mine = os.readlink(f"/proc/self/ns/{name}")
        except OSError:
            continue
        out[name] = "new" if ident != mine else "shared with the worker"
    return out


def _protections(result: SandboxResult, plan: bwrap.BoxPlan | None, limits: SandboxLimits) -> dict:
    """What the child confirmed was in force, plus what the parent applied."""
    if result.refused:
        return {"isolation": f"unavailable: {result.refused}", "user_code_ran": False}
    reported = next((r["protections"] for r in result.records if isinstance(r.get("protections"), dict)), None)
    protections = dict(reported or {})
    if "namespace_ids" in protections:
        protections["namespaces"] = _namespace_report(protections.pop("namespace_ids"))
    protections.pop("proc_pids_visible", None)
    protections.update(
        isolation=f"bubblewrap ({bwrap.version(bwrap.bwrap_path()) or bwrap.bwrap_path()})",
        host_uid=plan.host_uid if plan else None,
        filesystem="read-only: interpreter, libraries, frameworks, the analysis package and this run's trees; "
                   "writable: a private work directory and a small /tmp",
        proc="own /proc (PID namespace); no host process visible",
        network="own network namespace: loopback only, no host socket mounted",
        seccomp_filter=seccomp.summary(),
        wall_clock_timeout_s=limits.timeout_s,
        resident_memory_mb=limits.memory_mb,
        environment="cleared; allow-list only",
        process_tree="killed with the box (PID namespace)",
    )
    if reported is None:
        protections["child_report"] = "missing (child ended before reporting)"
    return protections
