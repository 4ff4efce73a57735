"""Files out of the box (checkpoints), written only by the parent.

The box has no writable host directory: a file travels through the channel
in chunks, tagged with a slot the parent declared before the box started
(`{"event": "file", "slot": "0", "last": false}` plus a uint8 array). The
parent alone chose each slot's target; its name must match a fixed pattern
and it is created with O_CREAT|O_EXCL|O_NOFOLLOW, mode 0640, relative to a
directory fd opened (without following links) before the box ran. Slots
the child never finishes, and files past the size cap, are removed.

A file is written unnamed (O_TMPFILE) and linked under its name only once
whole, so a parent killed mid-copy (SIGKILL, OOM, a lost worker) leaves
nothing behind on disk; where the filesystem has no O_TMPFILE it is written
under its name and removed when unfinished, as long as the parent lives.

`budget_bytes` is what all files together may take on disk (the team's room
on the site): a file that would pass it is dropped, not an error, and
`refused` says why; the box goes on and the check keeps its verdict.
"""
from __future__ import annotations

import ctypes
import errno
import os
import re
from collections.abc import Mapping
from pathlib import Path

NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]{0,200}\.ckpt$")
FILE_MODE = 0o640
AT_FDCWD = -100
AT_SYMLINK_FOLLOW = 0x400
_libc = ctypes.CDLL(None, use_errno=True)


class OutboxError(ValueError):
    """A chunk for no declared slot, past the cap, or a target that cannot be made."""


class Outbox:
    def __init__(self, slots: Mapping[str, str | Path], max_bytes: int,
                 budget_bytes: int | None = None) -> None:
        self.max_bytes = max_bytes
        self.budget_bytes = budget_bytes
        self.targets: dict[str, tuple[int, str]] = {}
        self.open: dict[str, int] = {}
        self.unnamed: set[str] = set()  # slots being written as an O_TMPFILE, linked when whole
        self.written: dict[str, int] = {}
        self.done: set[str] = set()
        self.refused: dict[str, str] = {}  # slot -> why its file was dropped (the budget)
        self.kept_bytes = 0  # bytes of the files written whole
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
        if slot in self.refused:
            return  # dropped for the budget: the rest of it is read and thrown away (the channel is capped)
        if slot not in self.targets or slot in self.done:
            raise OutboxError(f"a file for an undeclared or finished slot {slot!r}")
        chunk = data.tobytes() if data is not None else b""
        total = self.written.get(slot, 0) + len(chunk)
        if total > self.max_bytes:
            raise OutboxError(f"an output file over {self.max_bytes >> 20} MiB")
        if self.budget_bytes is not None and self.kept_bytes + total > self.budget_bytes:
            self._discard(slot)
            left = _mib(self.budget_bytes - self.kept_bytes)
            self.refused[slot] = f"not kept: it passed the {left} of disk space left to this check"
            return
        if slot not in self.open:
            self.open[slot] = self._create(slot)
        view = memoryview(chunk)
        while view:
            view = view[os.write(self.open[slot], view):]
        self.written[slot] = total
        if record.get("last") is True:
            self._finish(slot)
            self.kept_bytes += total
            self.done.add(slot)

    def _create(self, slot: str) -> int:
        dir_fd, name = self.targets[slot]
        try:
            fd = os.open(".", os.O_WRONLY | os.O_TMPFILE | os.O_CLOEXEC, FILE_MODE, dir_fd=dir_fd)
        except OSError as exc:
            if exc.errno not in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOENT):
                raise
        else:
            os.fchmod(fd, FILE_MODE)  # the umask applies to O_TMPFILE too
            self.unnamed.add(slot)
            return fd
        self._unlink(slot)  # a previous run's file of the same name; never followed
        return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                       FILE_MODE, dir_fd=dir_fd)

    def _finish(self, slot: str) -> None:
        fd = self.open.pop(slot)
        try:
            if slot in self.unnamed:
                dir_fd, name = self.targets[slot]
                self._unlink(slot)
                # linkat(AT_SYMLINK_FOLLOW) on the fd's /proc link names the unnamed file; the name is
                # made with O_EXCL semantics (an existing entry, a link too, is an error, never followed).
                if _libc.linkat(AT_FDCWD, f"/proc/self/fd/{fd}".encode(), dir_fd, name.encode(),
                                AT_SYMLINK_FOLLOW) != 0:
                    code = ctypes.get_errno()
                    raise OutboxError(f"the output file could not be kept: {os.strerror(code)}")
        finally:
            os.close(fd)
            self.unnamed.discard(slot)

    def _discard(self, slot: str) -> None:
        fd = self.open.pop(slot, None)
        if fd is not None:
            os.close(fd)
            if slot not in self.unnamed:
                self._unlink(slot)
        self.unnamed.discard(slot)
        self.written.pop(slot, None)

    def _unlink(self, slot: str) -> None:
        dir_fd, name = self.targets[slot]
        try:
            os.unlink(name, dir_fd=dir_fd)
        except FileNotFoundError:
            pass

    def close(self) -> list[str]:
        """Finish: unfinished files are removed. Returns the slots written whole."""
        for slot in list(self.open):
            self._discard(slot)
        for fd in self.dir_fds:
            os.close(fd)
        self.dir_fds = []
        return sorted(self.done)


def _mib(n: int) -> str:
    return f"{max(0, n) / (1 << 20):.1f} MiB"
