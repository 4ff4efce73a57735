"""Take a pool process's children down with it when a task is terminated.

Cancelling a run revokes its running task with SIGTERM, which Celery sends to
the pool process executing it. The parity sandbox (analysis.sandbox) runs the
user's code in a child that leads its own session, so that its whole process
group can be killed; the flip side is that it does not share the pool
process's group and would outlive it, still burning CPU on a cancelled run.
On SIGTERM a pool process therefore SIGKILLs its children (each child's whole
group when the child leads one) and then dies of the signal as it would have.
"""
from __future__ import annotations

import logging
import os
import signal
from pathlib import Path

from celery.signals import worker_process_init

log = logging.getLogger(__name__)


def child_pids(parent: int | None = None) -> list[int]:
    """Direct children of `parent` (this process by default), read from /proc."""
    parent = os.getpid() if parent is None else parent
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        # The command name (field 2) is in parentheses and may contain spaces: split after it.
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 1 and int(fields[1]) == parent:
            children.append(int(entry.name))
    return children


def kill_children() -> int:
    """SIGKILL this process's children, and the process group of each child that leads its own."""
    own_group = os.getpgrp()
    killed = 0
    for pid in child_pids():
        try:
            group = os.getpgid(pid)
            if group == pid and group != own_group:
                os.killpg(group, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)
            killed += 1
        except ProcessLookupError:
            continue
    return killed


def _on_sigterm(signum, frame) -> None:
    killed = kill_children()
    if killed:
        log.warning("terminated: killed %d child process(es) of pool process %d", killed, os.getpid())
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


@worker_process_init.connect
def install_sigterm_handler(**_kwargs) -> None:
    """In each pool process (Celery has just reset SIGTERM to its default there)."""
    if Path("/proc").is_dir():
        signal.signal(signal.SIGTERM, _on_sigterm)
