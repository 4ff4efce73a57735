"""The bubblewrap command line that builds the box around a sandboxed child.

The box: new user, PID, mount, IPC, UTS, network (and, where possible, cgroup)
namespaces; a tmpfs root holding only read-only binds of the interpreter, the
frameworks' site-packages, the shared libraries, the trusted project package
and the trees this run may read, plus one private writable work directory;
its own /proc and a minimal /dev; no environment but an allow-list; no
capabilities, no_new_privs, and the seccomp filter of `seccomp.py`.

User ids. Inside, the child runs as BOX_UID (65534, "nobody"). RLIMIT_NPROC
only binds a process whose uid *on the host* is not 0, so the host uid
matters too:
- a worker that is not root runs bwrap as itself (`--unshare-user --uid`):
  the box maps to the worker's own uid;
- a worker running as root prepares the user namespace itself (`--userns`)
  with BOX_UID mapped to the host's 65534 and root mapped only so bwrap can
  build the mounts; bwrap keeps CAP_SETUID/CAP_SETGID alone and the child's
  bootstrap drops to BOX_UID before any user code runs (bwrap cannot switch
  uid itself in that mode). The child then holds no capability, and the
  process-count limit binds.
"""
from __future__ import annotations

import ctypes
import functools
import glob
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from . import pyinfo

BWRAP_ENV = "PORTING_SANDBOX_BWRAP"
DEFAULT_BWRAP = "/usr/bin/bwrap"
BOX_UID = BOX_GID = 65534
BOX_HOME = "/sandbox"  # the private work directory, as the child sees it
TMP_SIZE = 256 << 20  # /tmp inside is a tmpfs of this size (it counts against the host's memory)
SHM_SIZE = 64 << 20  # /dev/shm likewise
CLONE_NEWUSER = 0x10000000

# Shared libraries and the loader's cache; nothing else of the host's /usr or /etc.
SYSTEM_RO = ("/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/libx32", "/etc/ld.so.cache", "/etc/ld.so.conf",
             "/etc/ld.so.conf.d", "/usr/share/zoneinfo", "/etc/localtime")
# CPU topology: OpenMP, oneDNN and MindSpore's thread pools size themselves from it.
SYS_RO = ("/sys/devices/system/cpu", "/sys/devices/system/node")
# Accelerators need their device nodes and driver files; bound only for that device.
# Not testable on the CPU-only machines this project is tested on: kept to the
# vendors' documented container requirements.
DEVICE_NODES = {
    "gpu": ("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset", "/dev/nvidia[0-9]*",
            "/dev/nvidia-caps/*"),
    "ascend": ("/dev/davinci[0-9]*", "/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc"),
}
DEVICE_RO = {
    "gpu": ("/usr/local/cuda", "/usr/local/nvidia", "/sys/bus/pci", "/sys/devices/pci0000:00"),
    "ascend": ("/usr/local/Ascend", "/usr/local/dcmi", "/etc/ascend_install.info", "/etc/hccn.conf",
               "/usr/local/sbin/npu-smi"),
}


@dataclass
class BoxPlan:
    """Everything bwrap is told; kept so the parent can report what was applied."""

    argv: list[str]
    pass_fds: list[int]
    read_only: list[str]
    host_uid: int
    drops_in_child: bool  # the child's bootstrap switches to BOX_UID (root worker)
    notes: list[str] = field(default_factory=list)


def bwrap_path() -> str:
    return os.environ.get(BWRAP_ENV) or DEFAULT_BWRAP


@functools.lru_cache(maxsize=8)
def interpreter_paths(python: str) -> tuple[str, ...]:
    """Directories (and files) the interpreter needs to start and import its packages."""
    if os.path.realpath(python) == os.path.realpath(sys.executable):
        return tuple(pyinfo.interpreter_paths())
    out = subprocess.run([python, "-I", pyinfo.__file__], capture_output=True, text=True, timeout=60, check=True)
    return tuple(json.loads(out.stdout))


def _within(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def _parents(path: str, made: set[str]) -> list[str]:
    """`--dir` for each missing ancestor, world-traversable: bwrap would make them 0700
    as root, and the child is not root."""
    args = []
    parts = Path(path).parts[1:-1]
    for i in range(1, len(parts) + 1):
        d = "/" + "/".join(parts[:i])
        if d not in made:
            made.add(d)
            args += ["--perms", "0755", "--dir", d]
    return args


def build(*, command: list[str], env: dict[str, str], home_size: int, data_files: dict[str, int],
          read_only: list[str], device: str = "cpu", seccomp_fd: int, userns_fd: int | None,
          keep_fds: list[int] = ()) -> BoxPlan:
    """The bwrap argv around `command`; binds are made at the same path inside as outside,
    so the paths in a payload need no translation. The home (BOX_HOME) is a tmpfs of
    `home_size` bytes holding `data_files` (inside path -> fd, copied in read-only);
    `keep_fds` stay open in the child (the channel)."""
    root_worker = userns_fd is not None
    argv = [bwrap_path()]
    if root_worker:
        argv += ["--userns", str(userns_fd), "--cap-drop", "ALL", "--cap-add", "CAP_SETUID",
                 "--cap-add", "CAP_SETGID"]
    else:
        argv += ["--unshare-user", "--disable-userns", "--uid", str(BOX_UID), "--gid", str(BOX_GID),
                 "--cap-drop", "ALL"]
    argv += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
             "--hostname", "sandbox", "--die-with-parent", "--new-session", "--clearenv"]
    for key, value in sorted(env.items()):
        argv += ["--setenv", key, value]
    made: set[str] = set()
    # Filesystem: a tmpfs root; /lib etc. as the host has them (links on merged-/usr systems).
    for link in ("/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin"):
        if os.path.islink(link):
            if link not in ("/bin", "/sbin"):  # no shell, no tools inside
                argv += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link) and link not in ("/bin", "/sbin"):
            argv += _parents(link + "/x", made) + ["--ro-bind", link, link]
    # Before the binds: a tree under /tmp is bound on top of this tmpfs, not hidden by it.
    # /proc/1 (bwrap's init, which has the child's uid when the worker is not root) is covered by an
    # empty read-only tmpfs: its environment and command line are not the child's to read.
    argv += ["--proc", "/proc", "--size", "4096", "--perms", "0555", "--tmpfs", "/proc/1", "--remount-ro", "/proc/1",
             "--dev", "/dev", "--size", str(SHM_SIZE), "--perms", "1777", "--tmpfs", "/dev/shm",
             "--size", str(TMP_SIZE), "--perms", "1777", "--tmpfs", "/tmp"]
    made.update(("/proc", "/dev", "/tmp"))
    bound: list[str] = []
    system = [p for p in SYSTEM_RO if os.path.exists(p)]
    interp = list(interpreter_paths(command[0]))
    extra = [p for p in (os.environ.get("LD_LIBRARY_PATH", "").split(":")) if p and os.path.isdir(p)]
    if device in DEVICE_RO:
        extra += [p for p in DEVICE_RO[device] if os.path.exists(p)]
    sources = system + interp + [str(Path(p).resolve()) for p in read_only] + extra
    for path in sorted(dict.fromkeys(sources), key=lambda p: (p.count("/"), p)):
        if _within(path, bound):
            continue  # already inside a bound directory
        bound.append(path)
        argv += _parents(path, made) + ["--ro-bind", path, path]
    for path in SYS_RO:
        if os.path.exists(path):
            argv += _parents(path, made) + ["--ro-bind", path, path]
    for pattern in DEVICE_NODES.get(device, ()):
        for node in sorted(glob.glob(pattern)):
            argv += _parents(node, made) + ["--dev-bind", node, node]
    argv += ["--remount-ro", "/dev"]  # after the device nodes' mount points are made: nothing else lands there
    argv += _parents(BOX_HOME + "/x", made) + ["--size", str(home_size), "--perms", "0777", "--tmpfs", BOX_HOME]
    for inside, fd in data_files.items():
        argv += ["--perms", "0444", "--ro-bind-data", str(fd), inside]
    argv += ["--chdir", "/", "--seccomp", str(seccomp_fd), "--"] + command
    fds = [seccomp_fd, *data_files.values(), *keep_fds] + ([userns_fd] if root_worker else [])
    return BoxPlan(argv=argv, pass_fds=fds, read_only=bound,
                   host_uid=BOX_UID if root_worker else os.getuid(), drops_in_child=root_worker)


_libc = ctypes.CDLL(None, use_errno=True)


def root_user_namespace() -> int:
    """For a worker running as root: a user namespace mapping the box's uid to the
    host's unprivileged 65534 (and root, for bwrap's own setup), as an open fd.

    A forked helper unshares and waits; we write its maps and keep a handle on the
    namespace, which outlives the helper."""
    ready_r, ready_w = os.pipe()
    hold_r, hold_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # helper: only async-signal-safe work, then _exit
        try:
            os.close(ready_r)
            os.close(hold_w)
            ok = _libc.unshare(CLONE_NEWUSER) == 0
            os.write(ready_w, b"1" if ok else b"0")
            os.read(hold_r, 1)
        finally:
            os._exit(0)
    os.close(ready_w)
    os.close(hold_r)
    try:
        if os.read(ready_r, 1) != b"1":
            raise OSError("could not create a user namespace (unshare(CLONE_NEWUSER) refused)")
        mapping = f"0 0 1\n{BOX_UID} {BOX_UID} 1\n"
        for name in ("uid_map", "gid_map"):
            with open(f"/proc/{pid}/{name}", "w") as fh:
                fh.write(mapping.replace(str(BOX_UID), str(BOX_GID)) if name == "gid_map" else mapping)
        return os.open(f"/proc/{pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
    finally:
        os.close(ready_r)
        os.close(hold_w)  # the helper reads EOF and exits
        os.waitpid(pid, 0)


@functools.lru_cache(maxsize=4)
def version(path: str) -> str:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10)
    except OSError:
        return ""
    return out.stdout.strip()
