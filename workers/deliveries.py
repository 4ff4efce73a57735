"""A ledger of each stage task's deliveries, kept beside the runs (shared by every worker).

With late acks, a task whose process dies (a segfault in a native parser, the
OOM killer, a SIGKILL of the whole worker) is delivered again. A delivery
whose process keeps dying would loop forever and leave its run "running".
Each start of a stage task appends one line (host, pid, the pid's start time)
to `<runs>/_deliveries/<task id>`; a start that ends in any way Python sees
(success, failure, retry, soft time limit) removes the file. So the number
of lines a new start finds is the number of earlier deliveries that lost
their process, whatever the broker; past MAX_LOST the run is failed with
the reason instead of trying again.

The same lines say whether a delivery's process is still alive (recovery.py),
and which files of an analysis batch were already counted in the stage's
progress, so a redelivered batch never counts them twice.
"""
from __future__ import annotations

import json
import os
import socket
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from celery.exceptions import Retry
from django.conf import settings

from porting_site.lib.env import envint

MAX_LOST = envint("PORTING_MAX_LOST_DELIVERIES", 3)


def ledger_dir() -> Path:
    return Path(settings.PORTING_RUNS_DIR) / "_deliveries"


def _safe_id(task_id: str) -> str:
    return "".join(c for c in task_id if c.isalnum() or c in "-_")[:100]


def process_start_time(pid: int) -> str:
    """The process's start time in clock ticks since boot ("" if it is gone): with the pid it names
    one process, even after the pid is reused."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat[stat.rfind(")") + 2:].split()[19]


def is_alive(entry: dict) -> bool | None:
    """Whether the delivery's process still runs; None when it ran on another host (cannot tell)."""
    if entry.get("host") != socket.gethostname():
        return None
    return bool(entry.get("start")) and process_start_time(int(entry.get("pid", 0))) == entry["start"]


@dataclass
class Delivery:
    """This start of a task: how many earlier starts lost their process, and progress already counted."""

    path: Path
    lost: int
    entries: list[dict] = field(default_factory=list)
    counted_path: Path | None = None

    def counted(self) -> set[str]:
        try:
            return set(self.counted_path.read_text(encoding="utf-8").splitlines()) if self.counted_path else set()
        except OSError:
            return set()

    def count(self, item: str) -> None:
        if self.counted_path is not None:
            with open(self.counted_path, "a", encoding="utf-8") as out:
                out.write(item + "\n")


def read_entries(path: Path) -> list[dict]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    entries = []
    for line in lines:
        try:
            entries.append(json.loads(line))
        except ValueError:
            entries.append({})
    return entries


@contextmanager
def delivery(task_id: str | None):
    """Around one start of a task; yields a Delivery (lost=0 on a first start or without a task id)."""
    if not task_id:
        yield Delivery(path=Path(os.devnull), lost=0)
        return
    folder = ledger_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / _safe_id(task_id)
    pid = os.getpid()
    line = json.dumps({"host": socket.gethostname(), "pid": pid, "start": process_start_time(pid)})
    with open(path, "a", encoding="utf-8") as out:  # one short append: atomic between processes
        out.write(line + "\n")
    entries = read_entries(path)
    counted = folder / f"{_safe_id(task_id)}.counted"
    try:
        yield Delivery(path=path, lost=len(entries) - 1, entries=entries, counted_path=counted)
    except Retry:
        raise  # the retry (same task id) carries on counting where this start stopped
    except BaseException:
        counted.unlink(missing_ok=True)
        raise
    else:
        counted.unlink(missing_ok=True)
    finally:
        # Ended in a way Python saw (returned, raised, retried): not a lost delivery.
        path.unlink(missing_ok=True)
