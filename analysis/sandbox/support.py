"""Can this host build the box? Asked before any user code runs (parity
refuses without it) and by the site's system check.

The answer comes from doing it: bubblewrap must exist, libseccomp must
compile the filter, and a trivial box with the real namespaces must start and
exit cleanly. A success is remembered for the life of the process; a failure
is asked again next time (an operator may be fixing it).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from . import bwrap, seccomp

PROBE_TIMEOUT_S = 60
PROBE_ENV = {"PATH": "/usr/bin:/bin"}
_ok: set[str] = set()
_lock = threading.Lock()


def isolation_problem(python: str) -> str:
    """"" when the box can be built for `python`; otherwise why not, in words for the run page."""
    key = f"{bwrap.bwrap_path()}|{python}"
    if key in _ok:
        return ""
    with _lock:
        problem = _probe(python)
        if not problem:
            _ok.add(key)
        return problem


def _probe(python: str) -> str:
    path = bwrap.bwrap_path()
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return (f"bubblewrap is not installed at {path} (Debian package 'bubblewrap', or set "
                f"{bwrap.BWRAP_ENV}); parity does not run uploaded code without an isolation boundary")
    try:
        seccomp.compiled()
    except seccomp.SeccompUnavailable as exc:
        return f"{exc} (Debian package libseccomp2); parity does not run uploaded code without it"
    workdir = Path(tempfile.mkdtemp(prefix="sandbox-probe-"))
    fds: list[int] = []
    try:
        fds.append(seccomp.program_fd())
        root_worker = os.geteuid() == 0
        if root_worker:
            fds.append(bwrap.root_user_namespace())
        plan = bwrap.build(command=[python, "-I", "-S", "-c", "import os; os.listdir('/proc')"],
                           env={"PATH": "/nonexistent"}, home_size=1 << 20, data_files={}, read_only=[],
                           seccomp_fd=fds[0], userns_fd=fds[1] if root_worker else None)
        done = subprocess.run(plan.argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=PROBE_ENV,
                              timeout=PROBE_TIMEOUT_S, pass_fds=plan.pass_fds, cwd=workdir)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"the isolation boundary could not be set up: {exc}"
    finally:
        for fd in fds:
            os.close(fd)
        shutil.rmtree(workdir, ignore_errors=True)
    if done.returncode != 0:
        detail = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return (f"bubblewrap could not build the sandbox here ({detail}); user namespaces may be disabled "
                "(a container needs seccomp and AppArmor profiles that allow them)")
    return ""
