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

Data travels one way, child to parent, as frames on a pipe (`channel.py`),
read as a stream under hard limits; whatever the child sent before dying is
still returned. The child names no host path and moves no deadline: the
parent owns both. Files (checkpoints) come out the same way (`outbox.py`).
"""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import bwrap, channel, seccomp
from .outbox import Outbox, OutboxError
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
RECORDS_KEPT = 2000  # records kept in SandboxResult.records when no on_record consumer is given
CHUNK_BYTES = 1 << 20
CHUNKS_PER_POLL = 64  # the deadline and memory are looked at again after this many reads
HOME_SLACK_MB = 64  # /sandbox holds one output file (the size limit) and this much besides
# bwrap's own environment (and so the box's init's): nothing of the worker's.
BWRAP_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


@dataclass
class SandboxLimits:
    timeout_s: float = 300.0  # wall clock; with startup_s the one deadline, fixed by the parent
    startup_s: float = 120.0  # extra allowance for the framework imports, ended early by a "start" record
    memory_mb: int = 6144  # resident set of the whole box, enforced by the parent
    cpu_s: int | None = None  # RLIMIT_CPU per process; default: 4x the wall timeout
    address_space_mb: int | None = None  # RLIMIT_AS; default: memory_mb + overhead
    max_processes: int = 512  # RLIMIT_NPROC inside the box: processes and threads of the box's uid
    threads: int = 2  # OMP/MKL thread pools
    file_size_mb: int = 1024  # RLIMIT_FSIZE, and the cap on each output file
    channel_mb: int = 4096  # everything the child may send, in all


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
    channel_error: str = ""  # the child's stream broke a rule: the box was killed there
    records_dropped: int = 0  # records past RECORDS_KEPT (only counted)
    outputs: list[str] = field(default_factory=list)  # output slots received whole
    outputs_refused: dict[str, str] = field(default_factory=dict)  # slot -> why its file was dropped (budget)
    output_bytes: int = 0  # bytes of the output files kept
    reported_protections: dict | None = None  # what the child's first report said was in force

    @property
    def ok(self) -> bool:
        return (self.returncode == 0 and not self.timed_out and not self.memory_exceeded and not self.stopped
                and not self.refused and not self.channel_error)

    def failure_reason(self) -> str:
        if self.refused:
            return f"refused to run uploaded code: {self.refused}"
        if self.stopped:
            return "stopped on request (every process in the sandbox killed)"
        if self.timed_out:
            return "timed out (wall-clock limit reached, every process in the sandbox killed)"
        if self.memory_exceeded:
            return "memory limit exceeded (every process in the sandbox killed)"
        if self.channel_error:
            return f"the sandbox's data channel was refused ({self.channel_error}; every process in it killed)"
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


def _tail(fh) -> str:
    fh.seek(0, os.SEEK_END)
    size = fh.tell()
    fh.seek(max(0, size - STDERR_TAIL_CHARS))
    return fh.read().decode("utf-8", "replace")


def run_sandboxed(
    module: str,
    payload: dict,
    *,
    sys_path: Sequence[str | Path] = (),
    read_only: Sequence[str | Path] = (),
    outputs: Mapping[str, str | Path] | None = None,
    device: str = "cpu",
    limits: SandboxLimits | None = None,
    python: str = sys.executable,
    should_stop: Callable[[], bool] | None = None,
    on_record: Callable[[dict, dict], None] | None = None,
    output_budget_bytes: int | None = None,
) -> SandboxResult:
    """Run `module.main(payload_path, channel)` in the box, `channel` a
    `channel.Writer` on the one pipe the parent reads.

    `module` must be importable from the project (it is trusted code); user
    code is only imported by it. `read_only` are the directories the child may
    read (bound at the same path inside); `sys_path` entries are prepended to
    the child's path and should lie in them. The child's home (/sandbox) and
    /tmp are size-capped tmpfs mounts: nothing of the box is on the host's
    disk. `outputs` maps slot names to host files the child may send (see
    outbox.py); the child never names a path. `output_budget_bytes` is the
    disk space all output files together may take (the team's room): a file
    past it is dropped with the reason in `outputs_refused`, and the box's
    home is no bigger than it (plus a small slack). Each record the child sends
    goes to `on_record(record, arrays)`, or, without it, into `records` (the
    first RECORDS_KEPT). `device` ("gpu", "ascend") binds that accelerator's
    device nodes. Never raises for anything the child does; where the box
    cannot be built it runs nothing and returns a result whose `refused` says
    why. Whatever happens in the parent (an exception, a stop), every process
    of the box is killed before this returns or raises.
    """
    limits = limits or SandboxLimits()
    result = SandboxResult(returncode=None)
    problem = isolation_problem(python)
    if problem:
        result.refused = problem
        result.stderr_tail = f"sandbox: {problem}"
        result.protections = {"isolation": f"unavailable: {problem}", "user_code_ran": False}
        return result
    root_worker = os.geteuid() == 0
    home = bwrap.BOX_HOME
    config = {
        "module": module,
        "payload": f"{home}/payload.json",
        "channel_fd": None,
        "home": home,
        "uid": bwrap.BOX_UID,
        "gid": bwrap.BOX_GID,
        "sys_path": [str(p) for p in sys_path] + [str(PROJECT_ROOT)],
        "cpu_s": int(limits.cpu_s or max(30, limits.timeout_s * 4)),
        "address_space": (limits.address_space_mb or limits.memory_mb + ADDRESS_SPACE_OVERHEAD_MB) << 20,
        "nproc": limits.max_processes,
        "fsize": limits.file_size_mb << 20,
    }
    trusted = [PROJECT_ROOT / pkg for pkg in dict.fromkeys((*TRUSTED_PACKAGES, module.split(".")[0]))]
    fds: list[int] = []
    started = time.monotonic()
    plan, proc, outbox, read_fd = None, None, None, None
    # The box's stdout and stderr: unnamed files (O_TMPFILE), gone with their last descriptor, so nothing
    # of the box is left on the host's disk whatever ends this call (an exception, a kill of the worker).
    out = tempfile.TemporaryFile(prefix="sandbox-out-")
    err = tempfile.TemporaryFile(prefix="sandbox-err-")
    home_size = (limits.file_size_mb + HOME_SLACK_MB) << 20
    if output_budget_bytes is not None:
        home_size = min(home_size, max(0, output_budget_bytes) + (HOME_SLACK_MB << 20))
    try:
        outbox = Outbox(outputs or {}, limits.file_size_mb << 20, output_budget_bytes)
        read_fd, write_fd = os.pipe2(os.O_CLOEXEC)
        fds.append(write_fd)
        config["channel_fd"] = write_fd
        data_fds = {f"{home}/payload.json": _data_fd(json.dumps(payload).encode()),
                    f"{home}/sandbox.json": _data_fd(json.dumps(config).encode())}
        fds += data_fds.values()
        seccomp_fd = seccomp.program_fd()
        fds.append(seccomp_fd)
        userns_fd = bwrap.root_user_namespace() if root_worker else None
        if userns_fd is not None:
            fds.append(userns_fd)
        plan = bwrap.build(
            command=[python, "-I", "-c", _BOOTSTRAP, str(PROJECT_ROOT), f"{home}/sandbox.json"],
            env=child_environment(home, limits.threads), home_size=home_size,
            data_files=data_fds, read_only=[str(p) for p in (*trusted, *read_only) if Path(p).exists()],
            device=device, seccomp_fd=seccomp_fd, userns_fd=userns_fd, keep_fds=[write_fd],
        )
        # bwrap gets an environment of its own: the worker's (secrets included) never enters the box.
        proc = subprocess.Popen(plan.argv, cwd="/", stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                env=BWRAP_ENV, start_new_session=True, close_fds=True, pass_fds=plan.pass_fds)
        for fd in fds:
            os.close(fd)
        fds = []
        _watch(proc, result, read_fd, limits, should_stop, started, on_record, outbox)
    except (OSError, seccomp.SeccompUnavailable, subprocess.SubprocessError, OutboxError) as exc:
        if proc is None:  # the box could not be built
            result.refused = f"the sandbox could not be set up: {exc}"
            result.stderr_tail = f"sandbox: {result.refused}"
        else:
            result.channel_error = f"{type(exc).__name__}: {exc}"
    finally:
        if proc is not None and proc.returncode is None:
            _kill_box(proc)  # any exception, a stop, a shutdown: the box never outlives this call
            result.returncode = result.returncode if result.returncode is not None else proc.wait()
        for fd in fds + ([read_fd] if read_fd is not None else []):
            os.close(fd)
        result.outputs = outbox.close() if outbox is not None else []
        if outbox is not None:
            result.outputs_refused, result.output_bytes = dict(outbox.refused), outbox.kept_bytes
        result.wall_s = time.monotonic() - started
        result.stderr_tail = result.stderr_tail or _tail(err)
        result.stdout_tail = _tail(out)
        out.close()
        err.close()
        result.returncode = _signal_code(result.returncode)
        result.protections = _protections(result, plan, limits)
    return result


def _data_fd(data: bytes) -> int:
    """A file descriptor bwrap copies into the box as a read-only file."""
    fd = os.memfd_create("sandbox-data")
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _watch(proc: subprocess.Popen, result: SandboxResult, read_fd: int, limits: SandboxLimits,
           should_stop: Callable[[], bool] | None, started: float, on_record, outbox: Outbox) -> None:
    """Read the channel until the child ends, the one deadline passes (fixed
    here, from the limits: nothing the child sends moves it), memory runs
    over, or a stop is asked; then kill the box."""
    deadline = started + limits.startup_s + limits.timeout_s
    budget_end = [deadline]  # a list: deliver() may only ever bring it closer
    reader = channel.Reader(limits.channel_mb << 20)
    next_stop_poll = time.monotonic() + STOP_POLL_S
    next_memory_poll = time.monotonic()
    os.set_blocking(read_fd, False)
    eof = False

    def deliver(frames) -> None:
        for record, arrays in frames:
            if result.reported_protections is None and isinstance(record.get("protections"), dict):
                result.reported_protections = record["protections"]
            if record.get("event") == "start":
                # The child's imports are done: what is left of the startup allowance goes. A record
                # can only bring the deadline closer, never move it later.
                budget_end[0] = min(budget_end[0], time.monotonic() + limits.timeout_s)
            if record.get("event") == "file":
                outbox.write(record, arrays.get("data"))
            elif on_record is not None:
                on_record(record, arrays)
            elif len(result.records) < RECORDS_KEPT:
                result.records.append(record)
            else:
                result.records_dropped += 1

    def drain(until_eof: bool) -> bool:
        """Read what is there (all of it once the box is gone); True at end of stream."""
        budget = CHUNKS_PER_POLL
        while until_eof or budget:
            try:
                chunk = os.read(read_fd, CHUNK_BYTES)
            except BlockingIOError:
                return False
            if not chunk:
                return True
            deliver(reader.feed(chunk))
            budget -= 1
        return False

    try:
        while True:
            if not eof and select.select([read_fd], [], [], 0.2)[0]:
                eof = drain(False)
            elif eof:
                time.sleep(0.05)
            if proc.poll() is not None:
                # The box's init is gone, so is every process in it: the rest of the stream is finite.
                result.returncode = proc.returncode
                if not eof:
                    drain(True)
                break
            now = time.monotonic()
            if now > budget_end[0]:
                result.timed_out = True
            elif should_stop is not None and now >= next_stop_poll:
                # Works whatever the broker: a cancelled run is seen here within a second or so.
                next_stop_poll = now + STOP_POLL_S
                result.stopped = bool(should_stop())
            if now >= next_memory_poll:
                next_memory_poll = now + MEMORY_POLL_S
                if _rss_mb(_process_tree(proc.pid)) > limits.memory_mb:
                    result.memory_exceeded = True
            if result.timed_out or result.memory_exceeded or result.stopped:
                break
    except (channel.ChannelError, OutboxError) as exc:
        result.channel_error = str(exc)
    if reader.pending and not result.channel_error and result.returncode is not None:
        result.channel_error = f"the last frame was cut short ({reader.pending} bytes)"
    if proc.returncode is None:
        _kill_box(proc)
        result.returncode = proc.wait()


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
    reported = result.reported_protections
    protections = dict(reported or {})
    if "namespace_ids" in protections:
        protections["namespaces"] = _namespace_report(protections.pop("namespace_ids"))
    protections.pop("proc_pids_visible", None)
    protections.update(
        isolation=f"bubblewrap ({bwrap.version(bwrap.bwrap_path()) or bwrap.bwrap_path()})",
        host_uid=plan.host_uid if plan else None,
        filesystem="read-only: interpreter, libraries, frameworks, the analysis package and this run's trees; "
                   "writable: size-capped tmpfs home, /tmp and /dev/shm (nothing on the host's disk)",
        channel="one pipe, child to parent: size-capped frames of data; files only to slots the parent named",
        proc="own /proc (PID namespace); no host process visible",
        network="own network namespace: loopback only, no host socket mounted",
        seccomp_filter=seccomp.summary(),
        wall_clock_timeout_s=limits.timeout_s,
        resident_memory_mb=limits.memory_mb,
        environment="cleared; allow-list only (bwrap itself gets a fixed minimal environment)",
        process_tree="killed with the box (PID namespace)",
    )
    if reported is None:
        protections["child_report"] = "missing (child ended before reporting)"
    return protections
