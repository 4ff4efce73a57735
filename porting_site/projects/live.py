"""Live detail of the long stages, written to the stage row as the work happens.

The progress JSON (and the run page polling it) reads the stage's done/total
and detail, so a person sees which files are converted so far and which parity
entry is being checked, with each entry's status as it finishes, instead of a
bar that sits at 0 until the stage ends.
"""
from __future__ import annotations

from django.db.models import F
from django.db.models.functions import Least

from .models import Stage

MAX_NAMED = 6  # entries named in the detail line; the rest are counted


def _update(run_id: int, name: str, **fields) -> None:
    Stage.objects.filter(run_id=run_id, name=name, status=Stage.Status.RUNNING).update(**fields)


def converted_so_far(run_id: int):
    """convert_tree's on_converted callback: done/total and a line saying so."""
    def tell(done: int, total: int) -> None:
        _update(run_id, Stage.Name.CONVERT, done=Least(done, F("total")),
                detail=f"{done} of {total} files converted so far")
    return tell


class ParityProgress:
    """check_parity's on_progress callback: the plan, the entry (or entries) now running, each result."""

    def __init__(self, run_id: int):
        self.run_id = run_id
        self.planned: list[str] = []
        self.running: list[str] = []
        self.finished: list[tuple[str, str]] = []

    def __call__(self, event: dict) -> None:
        kind = event.get("event")
        if kind == "planned":
            self.planned = list(event.get("entries") or [])
            _update(self.run_id, Stage.Name.PARITY, total=max(1, len(self.planned)), detail=self.line())
        elif kind == "running":
            self.running = [e for e in event.get("entries") or [] if e not in dict(self.finished)]
            _update(self.run_id, Stage.Name.PARITY, detail=self.line())
        elif kind == "finished":
            entry = event.get("entry", "")
            self.finished.append((entry, event.get("status", "")))
            self.running = [e for e in self.running if e != entry]
            _update(self.run_id, Stage.Name.PARITY, done=Least(len(self.finished), F("total")), detail=self.line())

    def line(self) -> str:
        total = len(self.planned)
        if not total:
            return "no entry point found to check"
        parts = []
        if self.running:
            now = ", ".join(self.running[:MAX_NAMED]) + (f" and {len(self.running) - MAX_NAMED} more"
                                                          if len(self.running) > MAX_NAMED else "")
            first = len(self.finished) + 1
            where = f"{first} of {total}" if len(self.running) == 1 else f"{first}-{first + len(self.running) - 1} of {total}"
            parts.append(f"checking {now} ({where})")
        else:
            parts.append(f"{total} entry point{'s' if total != 1 else ''} to check")
        if self.finished:
            shown = self.finished[-MAX_NAMED:]
            earlier = len(self.finished) - len(shown)
            parts.append("finished: " + (f"{earlier} earlier, " if earlier else "")
                         + ", ".join(f"{entry} {status}" for entry, status in shown))
        return " · ".join(parts)
