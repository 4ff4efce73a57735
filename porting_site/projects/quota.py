"""A team's disk quota: what its runs hold on the host, measured from disk.

Each run records its footprint (`Run.disk_bytes`: stored archives, unpacked
source, converted tree, parity checkpoints) measured after every stage that
writes there and after a failure; a team's usage is the sum over its runs, so
it is one query and never a guess. Uploads, unpacking, conversion and the
parity copy-out are sized against what is left (the room): what would go past
it is refused with the reason, and nothing already stored is touched.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db.models import Sum

from analysis.archive import ArchiveError
from porting_site.accounts.models import Team

from . import storage
from .models import Run


class DiskQuotaExceeded(ArchiveError):
    """Storing this would take the team past its disk quota; the message says by how much."""


@dataclass(frozen=True)
class TeamDisk:
    used_bytes: int
    limit_bytes: int

    @property
    def room_bytes(self) -> int:
        return max(0, self.limit_bytes - self.used_bytes)

    @property
    def percent(self) -> int:
        return min(100, round(100 * self.used_bytes / self.limit_bytes)) if self.limit_bytes > 0 else 100

    def to_dict(self) -> dict:
        return {"used_bytes": self.used_bytes, "limit_bytes": self.limit_bytes, "room_bytes": self.room_bytes}


def size_text(n: int) -> str:
    if n >= 1 << 30:
        return f"{n / (1 << 30):.1f} GiB"
    return f"{n / (1 << 20):.1f} MiB"


def tree_bytes(path: Path) -> int:
    """Bytes of the regular files under `path`; links are not followed (a link counts as nothing)."""
    total, todo = 0, [str(path)]
    while todo:
        try:
            entries = os.scandir(todo.pop())
        except (FileNotFoundError, NotADirectoryError, PermissionError):
            continue
        with entries:
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        todo.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        total += entry.stat(follow_symlinks=False).st_size
                except OSError:
                    continue
    return total


def _file_bytes(field) -> int:
    if not field:
        return 0
    try:
        return os.lstat(field.path).st_size
    except (OSError, ValueError):
        return 0


def run_disk_measure(*, run_id: int) -> int:
    """Measure what the run holds on disk now, record it, and return it."""
    run = Run.objects.filter(pk=run_id).only("archive", "converted_archive").first()
    if run is None:
        return 0
    size = _file_bytes(run.archive) + _file_bytes(run.converted_archive) + tree_bytes(storage.run_dir(run_id))
    Run.objects.filter(pk=run_id).update(disk_bytes=size)
    return size


def team_disk(*, team: Team | int) -> TeamDisk:
    team_id = team.pk if isinstance(team, Team) else team
    used = Run.objects.filter(project__team_id=team_id).aggregate(n=Sum("disk_bytes"))["n"] or 0
    return TeamDisk(used_bytes=used, limit_bytes=settings.PORTING_TEAM_DISK_BYTES)


def team_disks(*, team_ids) -> dict[int, TeamDisk]:
    """Several teams' usage in one query (the project list)."""
    rows = Run.objects.filter(project__team_id__in=list(team_ids)).values("project__team_id").annotate(
        n=Sum("disk_bytes"))
    used = {row["project__team_id"]: row["n"] or 0 for row in rows}
    return {tid: TeamDisk(used_bytes=used.get(tid, 0), limit_bytes=settings.PORTING_TEAM_DISK_BYTES)
            for tid in team_ids}


def over_quota_message(*, disk: TeamDisk, what: str, needs: int | None = None) -> str:
    asked = (f" needs {size_text(needs)}, but" if needs is not None
             else " would take the team past its disk quota:")
    return (f"{what}{asked} the team has {size_text(disk.room_bytes)} left of its "
            f"{size_text(disk.limit_bytes)} disk quota ({size_text(disk.used_bytes)} in use by its runs). "
            "Nothing already stored was removed; ask a site administrator to raise the quota "
            "(PORTING_TEAM_DISK_BYTES) or to remove old runs.")


def team_disk_check(*, team: Team | int, needs: int, what: str) -> TeamDisk:
    """Raise DiskQuotaExceeded when `needs` more bytes do not fit in the team's room."""
    disk = team_disk(team=team)
    if needs > disk.room_bytes:
        raise DiskQuotaExceeded(over_quota_message(disk=disk, what=what, needs=needs))
    return disk
