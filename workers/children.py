"""Take a pool process's children down with it when its task is terminated.

Cancelling a run revokes its running task with SIGTERM, which Celery sends to
the pool process executing it; billiard turns the signal into SystemExit, so
the task unwinds through its finally blocks and the process exits. The parity
sandbox (analysis.sandbox) runs the user's code in a child that leads its own
session, so that its whole process group can be killed; the flip side is that
it is not in the pool process's group and would outlive it, still running a
cancelled run's model. Stage tasks therefore run inside killed_on_exit(),
which SIGKILLs the process's children (each child's whole group when the child
leads one) on the way out.
"""
from __future__ import annotations

import logging
import os
import signal
from contextlib import contextmanager
from pathlib import Path

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


@contextmanager
def killed_on_exit():
    """Around a task: if the process is told to exit (SystemExit from the pool's SIGTERM handler,
    or KeyboardInterrupt), kill its children before it goes."""
    try:
        yield
    except (SystemExit, KeyboardInterrupt):
        killed = kill_children()
        if killed:
            log.warning("exiting: killed %d child process(es) of pool process %d", killed, os.getpid())
        raise
