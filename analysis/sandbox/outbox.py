"""Files out of the box (checkpoints), written only by the parent.

The box has no writable host directory: a file travels through the channel
in chunks, tagged with a slot the parent declared before the box started
(`{"event": "file", "slot": "0", "last": false}` plus a uint8 array). The
parent alone chose each slot's target; its name must match a fixed pattern
and it is created with O_CREAT|O_EXCL|O_NOFOLLOW, mode 0640, relative to a
directory fd opened (without following links) before the box ran. Slots
the child never finishes, and files past the size cap, are removed.
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]{0,200}\.ckpt$")
FILE_MODE = 0o640


class OutboxError(ValueError):
    """A chunk for no declared slot, past the cap, or a target that cannot be made."""


class Outbox:
    def __init__(self, slots: Mapping[str, str | Path], max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.targets: dict[str, tuple[int, str]] = {}
        self.open: dict[str, int] = {}
        self.written: dict[str, int] = {}
        self.done: set[str] = set()
        dirs: dict[str, int] = {}
        try:
            for slot, target in slots.items():
                target = Path(target)
                if not NAME.match(target.name):
                    raise OutboxError(f"output name {target.name!r} is not of the allowed form")
                parent = str(target.parent)
                if parent not in dirs:
                    dirs[parent] = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
                self.targets[str(slot)] = (dirs[parent], target.name)
        except BaseException:
            for fd in dirs.values():
                os.close(fd)
            raise
        self.dir_fds = list(dirs.values())

    def write(self, record: dict, data) -> None:
        slot = record.get("slot")
        if slot not in self.targets or slot in self.done:
            raise OutboxError(f"a file for an undeclared or finished slot {slot!r}")
        chunk = data.tobytes() if data is not None else b""
        total = self.written.get(slot, 0) + len(chunk)
        if total > self.max_bytes:
            raise OutboxError(f"an output file over {self.max_bytes >> 20} MiB")
        if slot not in self.open:
            dir_fd, name = self.targets[slot]
            try:
                os.unlink(name, dir_fd=dir_fd)  # a previous run's file of the same name; never followed
            except FileNotFoundError:
                pass
            self.open[slot] = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                                      FILE_MODE, dir_fd=dir_fd)
        view = memoryview(chunk)
        while view:
            view = view[os.write(self.open[slot], view):]
        self.written[slot] = total
        if record.get("last") is True:
            os.close(self.open.pop(slot))
            self.done.add(slot)

    def close(self) -> list[str]:
        """Finish: unfinished files are removed. Returns the slots written whole."""
        for slot, fd in self.open.items():
            os.close(fd)
            dir_fd, name = self.targets[slot]
            try:
                os.unlink(name, dir_fd=dir_fd)
            except FileNotFoundError:
                pass
        self.open = {}
        for fd in self.dir_fds:
            os.close(fd)
        self.dir_fds = []
        return sorted(self.done)
