"""Writes: creating projects and runs, and each pipeline stage's work on a run.

Celery tasks call the run_* stage functions with a run id; each stage is
idempotent (re-running it replaces its rows) so a retried or redelivered task
never duplicates results.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import time
from pathlib import Path

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.db.models import Count, F, Q
from django.db.models.functions import Least
from django.utils import timezone
from django.utils.text import slugify

from analysis.archive import ArchiveError, ArchiveTooLarge, Limits, file_names, unpack_archive
from analysis.knowledge import KNOWLEDGE_BASE_VERSION
from porting_site.accounts.models import Team

from . import quota, storage
from .models import (
    ConvertedFile,
    Finding,
    LossCurve,
    ParityResult,
    Project,
    Run,
    SourceFile,
    Stage,
)

ANALYZED_SUFFIXES = (".py", ".ipynb")


class StageFailed(Exception):
    """A stage cannot go on; the message is shown to the user as the run's reason."""


# --- projects and runs -------------------------------------------------------------


@transaction.atomic
def project_create(*, team: Team, name: str, description: str = "", **settings_) -> Project:
    return Project.objects.create(team=team, name=name, slug=slugify(name), description=description, **settings_)


@transaction.atomic
def run_create(*, project: Project, archive: UploadedFile, user=None, enqueue: bool = True, **options) -> Run:
    """Store the upload as a new run of the project and queue its pipeline."""
    if archive.size is not None and archive.size > settings.PORTING_MAX_UPLOAD_BYTES:
        raise ArchiveError(
            f"the upload is {archive.size // (1024 * 1024)} MiB; the limit is "
            f"{settings.PORTING_MAX_UPLOAD_BYTES // (1024 * 1024)} MiB"
        )
    problem = archive_contents_problem(archive)
    if problem:
        raise ArchiveError(problem)
    # The team's row is locked so two uploads at once cannot both take the last of its disk room.
    Team.objects.select_for_update().filter(pk=project.team_id).first()
    converted = options.get("converted_archive")
    needs = (archive.size or 0) + ((converted.size or 0) if converted else 0)
    disk = quota.team_disk_check(team=project.team_id, needs=needs, what="this upload")
    _unpacked_in_room(archive=archive, disk=disk, room=disk.room_bytes - needs)
    # Lock the project row: concurrent uploads to one project must get distinct numbers,
    # and locking the latest run would lock nothing for a project's first runs.
    Project.objects.select_for_update().filter(pk=project.pk).first()
    last = Run.objects.filter(project=project).order_by("-number").values_list("number", flat=True).first()
    run = Run.objects.create(
        project=project,
        number=(last or 0) + 1,
        archive=archive,
        archive_name=Path(archive.name or "upload").name,
        created_by=user,
        target=options.get("target") or project.target,
        ms_version=options.get("ms_version") or project.ms_version,
        device=options.get("device") or project.device,
        kb_version=KNOWLEDGE_BASE_VERSION,
        converted_archive=options.get("converted_archive") or "",
    )
    Stage.objects.bulk_create(
        Stage(run=run, name=name, position=position) for position, name in enumerate(Stage.ORDER)
    )
    quota.run_disk_measure(run_id=run.pk)  # the stored archives, in the same transaction as the check
    if enqueue:
        import workers

        transaction.on_commit(lambda: workers.start("run", run.id))
    return run


def _no_python(count: int) -> str:
    return (f"the archive holds {count} file{'s' if count != 1 else ''} but no Python file (.py) or notebook "
            "(.ipynb): there is nothing to analyse or convert")


def archive_contents_problem(archive) -> str:
    """Why the upload cannot make a useful run (an empty archive, no Python in it), else "".

    Read from the archive's directory at upload, so the person sees it at once
    instead of a run that fails (or passes the gate with nothing checked). An
    archive whose directory cannot be read is let through: unpacking reports it.
    """
    try:
        names = file_names(archive, _unpack_limits())
    except ArchiveTooLarge as exc:  # a bomb is refused here, before the worker inflates it again
        return str(exc)
    except ArchiveError:
        return ""
    if not names:
        return "the archive is empty: it holds no files"
    if not any(name.endswith(ANALYZED_SUFFIXES) for name in names):
        return _no_python(len(names))
    return ""


def _unpacked_in_room(*, archive, disk: quota.TeamDisk, room: int) -> None:
    """Refuse at upload an archive whose directory declares more than the team's room once unpacked.

    Only for a team whose room is below the site's unpack limit (listing a .tar.gz
    inflates it, so it is not done twice for everyone); unpacking checks again."""
    if room >= settings.PORTING_MAX_UNPACKED_BYTES:
        return
    try:
        file_names(archive, _unpack_limits(room))
    except ArchiveTooLarge as exc:
        if "unpacks to more than" in str(exc):
            raise quota.DiskQuotaExceeded(quota.over_quota_message(
                disk=disk, what="this upload, once unpacked,")) from exc
    except ArchiveError:
        return


# --- stage bookkeeping ---------------------------------------------------------------


def stage_begin(*, run_id: int, name: str, total: int = 0) -> None:
    now = timezone.now()
    Run.objects.filter(pk=run_id, started_at__isnull=True).update(started_at=now)
    Run.objects.filter(pk=run_id, status=Run.Status.QUEUED).update(status=Run.Status.RUNNING)
    Stage.objects.filter(run_id=run_id, name=name).update(
        status=Stage.Status.RUNNING, started_at=now, finished_at=None, done=0, total=total, detail=""
    )


def stage_task_record(*, run_id: int, name: str, task_id: str) -> None:
    """Remember that a Celery task works on this stage, so cancelling the run can stop it."""
    with transaction.atomic():  # batches of one stage start side by side: lock the row, then append
        stage = Stage.objects.select_for_update().filter(run_id=run_id, name=name).first()
        if stage is None or task_id in stage.task_ids:
            return
        stage.task_ids = [*stage.task_ids, task_id]
        stage.save(update_fields=["task_ids"])


def run_running_task_ids(*, run_id: int) -> list[str]:
    """Task ids of the run's stages that have not finished."""
    ids = []
    for task_ids in Stage.objects.filter(run_id=run_id).exclude(status=Stage.Status.DONE).values_list(
            "task_ids", flat=True):
        ids.extend(task_ids or [])
    return ids


def stage_advance(*, run_id: int, name: str, by: int = 1) -> None:
    # Never past the total, whatever a redelivered task counts again.
    Stage.objects.filter(run_id=run_id, name=name).update(done=Least(F("done") + by, F("total")))


def stage_end(*, run_id: int, name: str, detail: str = "") -> None:
    Stage.objects.filter(run_id=run_id, name=name).update(
        status=Stage.Status.DONE, finished_at=timezone.now(), detail=detail
    )


def run_fail(*, run_id: int, stage: str, reason: str) -> None:
    """Leave the run in a clear failed state with the reason shown to the user."""
    now = timezone.now()
    Stage.objects.filter(run_id=run_id, name=stage).update(
        status=Stage.Status.FAILED, finished_at=now, detail=reason[:2000]
    )
    Run.objects.filter(pk=run_id).exclude(status=Run.Status.CANCELLED).update(
        status=Run.Status.FAILED, error=f"{stage} failed: {reason}"[:4000], finished_at=now
    )
    quota.run_disk_measure(run_id=run_id)  # whatever the failed stage left is counted, not guessed


def run_is_active(run_id: int) -> bool:
    return Run.objects.filter(pk=run_id, status__in=[Run.Status.QUEUED, Run.Status.RUNNING]).exists()


# --- unpack ---------------------------------------------------------------------------


def _count_lines(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _notebook_lines(data: bytes) -> int:
    """A notebook's source lines (its code cells), not the lines of its JSON; a notebook that cannot be
    read counts its raw lines (its page shows it as text)."""
    from .notebook_view import notebook_cells, source_lines
    from .source_view import read_text

    cells = notebook_cells(read_text(data))
    return source_lines(cells) if cells is not None else _count_lines(data)


def _unpack_limits(max_total_bytes: int | None = None) -> Limits:
    return Limits(
        max_files=settings.PORTING_MAX_FILES,
        max_total_bytes=min(settings.PORTING_MAX_UNPACKED_BYTES, max_total_bytes)
        if max_total_bytes is not None else settings.PORTING_MAX_UNPACKED_BYTES,
        max_ratio=settings.PORTING_MAX_COMPRESSION_RATIO,
    )


def _unpack_in_room(*, run: Run, archive: Path, dest: Path, what: str) -> list[str]:
    """Unpack within the site's limit and the team's disk room; past the room, the stage fails saying
    so and leaves nothing unpacked (unpack_archive removes a half-written tree)."""
    quota.run_disk_measure(run_id=run.pk)
    disk = quota.team_disk(team=run.project.team_id)
    try:
        return unpack_archive(archive, dest, _unpack_limits(disk.room_bytes))
    except ArchiveError as exc:
        if disk.room_bytes < settings.PORTING_MAX_UNPACKED_BYTES and "unpacks to more than" in str(exc):
            raise StageFailed(quota.over_quota_message(disk=disk, what=what)) from exc
        raise


def run_unpack(*, run_id: int) -> list[list[str]]:
    """Unpack the archive, register the analysable files, build the project index.

    Returns the analysable paths in batches for the analysis fan-out.
    """
    from analysis.convert.tree import support_imports
    from analysis.scan import build_project_index

    run = Run.objects.get(pk=run_id)
    stage_begin(run_id=run_id, name=Stage.Name.UNPACK, total=1)
    src = storage.source_dir(run_id)
    shutil.rmtree(storage.run_dir(run_id), ignore_errors=True)
    try:
        paths = _unpack_in_room(run=run, archive=Path(run.archive.path), dest=src,
                                what="unpacking this upload")
    except ArchiveError as exc:
        raise StageFailed(str(exc)) from exc
    analysable = [p for p in paths if p.endswith(ANALYZED_SUFFIXES)]
    if not analysable:  # refused at upload too; a run created another way must not pass with nothing checked
        raise StageFailed(_no_python(len(paths)))
    rows = []
    for rel in analysable:
        data = (src / rel).read_bytes()
        lines = _notebook_lines(data) if rel.endswith(".ipynb") else _count_lines(data)
        rows.append(SourceFile(run=run, path=rel, sha256=hashlib.sha256(data).hexdigest(), lines=lines))
    with transaction.atomic():
        SourceFile.objects.filter(run=run).delete()
        SourceFile.objects.bulk_create(rows, batch_size=1000)
    index = build_project_index(src, analysable)
    storage.index_path(run_id).write_bytes(pickle.dumps(index))
    # The analysis converts each file (its findings agree with the conversion) as the tree will, helper
    # import included, and keeps the result for the convert stage: each file is converted once.
    storage.support_imports_path(run_id).write_text(json.dumps(support_imports(src)), encoding="utf-8")
    quota.run_disk_measure(run_id=run_id)
    stage_advance(run_id=run_id, name=Stage.Name.UNPACK)
    stage_end(run_id=run_id, name=Stage.Name.UNPACK, detail=f"{len(paths)} files, {len(analysable)} to analyse")
    stage_begin(run_id=run_id, name=Stage.Name.ANALYZE, total=len(analysable))
    size = max(1, settings.PORTING_ANALYSIS_BATCH_FILES)
    return [analysable[i : i + size] for i in range(0, len(analysable), size)]


# --- analyze --------------------------------------------------------------------------


def run_analyze_batch(*, run_id: int, paths: list[str], crashed: set[str] = frozenset(),
                      on_stored=lambda rel: None) -> None:
    """Analyse some files of the run and store their findings (replacing old ones).

    `crashed`: files whose analysis killed the worker process before; each gets a finding saying so
    instead. `on_stored(rel)` runs once a file's results are stored and counted."""
    from analysis.fingerprint import add_fingerprints
    from analysis.scan.source import analyze_and_convert

    run = Run.objects.get(pk=run_id)
    src = storage.source_dir(run_id)
    index = pickle.loads(storage.index_path(run_id).read_bytes())
    try:
        helper_imports = json.loads(storage.support_imports_path(run_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        helper_imports = {}  # a run unpacked before this file existed: the convert stage converts every file
    files = {f.path: f for f in SourceFile.objects.filter(run=run, path__in=paths)}
    for rel in paths:
        source_file = files.get(rel)
        if source_file is None:
            continue
        data = (src / rel).read_bytes()
        if rel in crashed:
            from analysis.scan.source import parse_error_report

            report = parse_error_report(rel, data, "analysing this file crashed the worker process twice; "
                                        "it is not analysed", lines=_count_lines(data))
        else:
            report, kept = analyze_and_convert(data, rel, target=run.target, ms_version=run.ms_version, index=index,
                                               support=helper_imports.get(rel))
            if kept is not None and rel in helper_imports:
                _conversion_keep(run_id=run_id, rel=rel, kept=kept)
        report = add_fingerprints(report, data)
        counts = {"error": 0, "warning": 0, "info": 0}
        rows = []
        for finding in report.findings:
            counts[finding.severity.value] += 1
            rows.append(
                Finding(
                    run=run,
                    file=source_file,
                    line=finding.line,
                    column=finding.column,
                    end_line=finding.end_line,
                    end_column=finding.end_column,
                    cell=finding.cell,
                    rule_id=finding.rule_id,
                    severity=finding.severity.value,
                    status=finding.status.value,
                    torch_api=finding.torch_api[:255],
                    mindspore_api=finding.mindspore_api[:255],
                    category=finding.category,
                    confidence=finding.confidence,
                    message=finding.message,
                    extra=finding.extra,
                    fingerprint=finding.fingerprint,
                )
            )
        with transaction.atomic():
            Finding.objects.filter(file=source_file).delete()
            Finding.objects.bulk_create(rows, batch_size=1000)
            SourceFile.objects.filter(pk=source_file.pk).update(
                parse_error=report.parse_error,
                errors=counts["error"],
                warnings=counts["warning"],
                infos=counts["info"],
            )
        stage_advance(run_id=run_id, name=Stage.Name.ANALYZE)
        on_stored(rel)


def _conversion_keep(*, run_id: int, rel: str, kept) -> None:
    path = storage.kept_conversion_path(run_id, rel)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_bytes(pickle.dumps(kept))
    os.replace(partial, path)  # a batch run again after a lost worker rewrites it whole


def _conversions_kept(run_id: int) -> dict:
    kept = {}
    for path in sorted(storage.kept_conversions_dir(run_id).glob("*.pickle")):
        made = pickle.loads(path.read_bytes())  # written by this run's own analysis workers
        kept[made.result.path] = made
    return kept


def run_analyze_finish(*, run_id: int) -> None:
    totals = Finding.objects.filter(run_id=run_id).aggregate(
        errors=Count("id", filter=Q(severity="error")), total=Count("id")
    )
    from porting_site.triage.services import marks_carry_over

    # People's marks from earlier runs follow their findings into this one.
    carried = marks_carry_over(run=Run.objects.get(pk=run_id))
    detail = f"{totals['total']} findings, {totals['errors']} errors"
    if carried["carried"] or carried["closed"]:
        detail += f"; {carried['carried']} marks carried over, {carried['closed']} closed"
    stage_end(run_id=run_id, name=Stage.Name.ANALYZE, detail=detail)


# --- convert --------------------------------------------------------------------------


def _storable(text: str) -> str:
    """PostgreSQL text columns refuse NUL characters; a file carrying them (binary data named .py) is kept
    on disk as it is and stored with each NUL shown as U+FFFD."""
    return text.replace("\x00", "\ufffd")


def run_convert(*, run_id: int) -> None:
    """Convert the whole tree (the converter needs all files for its layer map)."""
    from analysis.convert import convert_tree

    run = Run.objects.get(pk=run_id)
    # Notebooks are converted too (cell by cell as one program): their page links the converted notebook.
    files = {f.path: f for f in SourceFile.objects.filter(run=run).filter(
        Q(path__endswith=".py") | Q(path__endswith=".ipynb"))}
    stage_begin(run_id=run_id, name=Stage.Name.CONVERT, total=len(files))
    dst = storage.converted_dir(run_id)
    shutil.rmtree(dst, ignore_errors=True)
    if run.converted_archive:
        _use_team_conversion(run=run, files=files, dst=dst)
        return
    from .live import converted_so_far

    kept = _conversions_kept(run_id)
    Stage.objects.filter(run_id=run_id, name=Stage.Name.CONVERT).update(
        detail=f"writing {len(files)} files ({len(kept)} converted during the analysis)")
    tree = convert_tree(storage.source_dir(run_id), dst, target=run.target, ms_version=run.ms_version,
                        on_converted=converted_so_far(run_id), kept=kept)
    # written into the tree: no use left, and they would count against the team's disk (a retry converts anew)
    shutil.rmtree(storage.kept_conversions_dir(run_id), ignore_errors=True)
    _converted_in_room(run=run, dst=dst)
    rows = []
    for result in tree.files:
        source_file = files.get(result.path)
        if source_file is None:
            continue
        data = result.to_dict()
        rows.append(
            ConvertedFile(
                run=run,
                file=source_file,
                text=_storable(result.text),
                diff=_storable(result.diff),
                changes=data.get("changes", []),
                unconverted=data.get("unconverted", []),
            )
        )
    support = {rel: (dst / rel).read_text(encoding="utf-8") for rel in tree.support}
    with transaction.atomic():
        ConvertedFile.objects.filter(run=run).delete()
        ConvertedFile.objects.bulk_create(rows, batch_size=500)
        Run.objects.filter(pk=run_id).update(support_files=support)
    Stage.objects.filter(run_id=run_id, name=Stage.Name.CONVERT).update(done=len(rows))
    unconverted = sum(len(r.unconverted) for r in rows)
    # Not "left for a person": that figure is progress.DONE's over the findings, and it moves with marks.
    stage_end(run_id=run_id, name=Stage.Name.CONVERT,
              detail=f"{len(rows)} files converted; {unconverted} places marked # MIGRATE in the converted code")


def _use_team_conversion(*, run: Run, files: dict[str, SourceFile], dst: Path) -> None:
    """The team uploaded its own MindSpore tree: unpack it as the run's converted tree.

    Each file's diff is against the original, so the dashboard shows what the
    team changed; there are no converter records, and parity aligns layers by
    attribute path (no layer map).
    """
    import difflib

    try:
        _unpack_in_room(run=run, archive=Path(run.converted_archive.path), dest=dst,
                        what="unpacking your converted tree")
    except ArchiveError as exc:
        raise StageFailed(f"the converted tree: {exc}") from exc
    src = storage.source_dir(run.pk)
    rows = []
    for rel, source_file in files.items():
        converted = dst / rel
        if not converted.is_file():
            continue
        before = (src / rel).read_text(encoding="utf-8", errors="replace")
        after = converted.read_text(encoding="utf-8", errors="replace")
        diff = "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True), f"a/{rel}", f"b/{rel}"))
        rows.append(ConvertedFile(run=run, file=source_file, text=_storable(after), diff=_storable(diff)))
    with transaction.atomic():
        ConvertedFile.objects.filter(run=run).delete()
        ConvertedFile.objects.bulk_create(rows, batch_size=500)
    stage_advance(run_id=run.pk, name=Stage.Name.CONVERT, by=len(rows))
    missing = len(files) - len(rows)
    stage_end(run_id=run.pk, name=Stage.Name.CONVERT,
              detail=f"your converted tree: {len(rows)} files" + (f", {missing} not in it" if missing else ""))


def _converted_in_room(*, run: Run, dst: Path) -> None:
    """The converted tree is counted once written; one that takes the team past its quota is removed
    and the stage fails saying so (the source, findings and archives stay)."""
    written = quota.tree_bytes(dst)
    quota.run_disk_measure(run_id=run.pk)
    disk = quota.team_disk(team=run.project.team_id)
    if disk.used_bytes > disk.limit_bytes:
        shutil.rmtree(dst, ignore_errors=True)
        quota.run_disk_measure(run_id=run.pk)
        room = quota.TeamDisk(used_bytes=disk.used_bytes - written, limit_bytes=disk.limit_bytes)
        raise StageFailed(quota.over_quota_message(disk=room, what="the converted tree", needs=written))


# --- parity ---------------------------------------------------------------------------


def run_parity(*, run_id: int) -> None:
    """Check the converted cells against the PyTorch modules in a sandboxed child."""
    run = Run.objects.get(pk=run_id)
    stage_begin(run_id=run_id, name=Stage.Name.PARITY, total=1)
    Stage.objects.filter(run_id=run_id, name=Stage.Name.PARITY).update(detail="finding the entry points to check")
    manifest = storage.source_dir(run_id) / "porting.toml"
    # A stage delivered again starts clean, and its checkpoints only get the team's room on disk.
    shutil.rmtree(storage.checkpoint_dir(run_id), ignore_errors=True)
    quota.run_disk_measure(run_id=run_id)
    try:
        report = _parity_report(run=run, manifest=manifest)
    finally:
        quota.run_disk_measure(run_id=run_id)
    _parity_store(run=run, report=report)


def _parity_report(*, run: Run, manifest: Path) -> dict:
    from analysis.parity import check_parity
    from analysis.parity.dependencies import DependencyPolicy

    from .live import ParityProgress

    run_id = run.pk
    return check_parity(
        storage.source_dir(run_id),
        storage.converted_dir(run_id),
        device=run.device,
        manifest=manifest if manifest.is_file() else None,
        timeout_s=settings.PORTING_PARITY_TIMEOUT_S,
        memory_mb=settings.PORTING_PARITY_MEMORY_MB,
        loss_steps=settings.PORTING_PARITY_LOSS_STEPS,
        checkpoint_dir=storage.checkpoint_dir(run_id),
        dependencies=DependencyPolicy.from_env({**os.environ, "PORTING_DEPS_CACHE": settings.PORTING_DEPS_CACHE}),
        should_stop=_cancel_check(run_id, every_s=settings.PORTING_PARITY_CANCEL_POLL_S),
        on_progress=ParityProgress(run_id),
        checkpoint_room_bytes=quota.team_disk(team=run.project.team_id).room_bytes,
    )


def _cancel_check(run_id: int, *, every_s: float):
    """should_stop() for the sandbox: whether the run was cancelled, read from the database at
    most once every `every_s` seconds (the sandbox asks about once a second)."""
    next_read = 0.0

    def cancelled() -> bool:
        nonlocal next_read
        now = time.monotonic()
        if now < next_read:
            return False
        next_read = now + every_s
        return Run.objects.filter(pk=run_id, status=Run.Status.CANCELLED).exists()

    return cancelled


def _parity_store(*, run: Run, report: dict) -> None:
    run_id = run.pk
    if not run_is_active(run_id):
        return  # cancelled while checking: store nothing half-done
    entry_points = report.get("entry_points", [])
    with transaction.atomic():
        ParityResult.objects.filter(run=run).delete()
        for entry in entry_points:
            _parity_result_create(run=run, report=report, entry=entry)
    Stage.objects.filter(run_id=run_id, name=Stage.Name.PARITY).update(done=F("total"))
    # As progress.parity_counts counts them: passing / checked, skipped ones named beside.
    passed = sum(1 for e in entry_points if e.get("status") == "pass")
    skipped = sum(1 for e in entry_points if e.get("status") == "skipped")
    detail = f"{passed}/{len(entry_points) - skipped} entry points pass" + (f", {skipped} skipped" if skipped else "")
    if report.get("error"):  # the check could not run at all; the rest of the run still stands
        detail += f"; parity could not run: {report['error']}"
    unkept = sum(1 for e in entry_points if e.get("checkpoint_refused"))
    if unkept:
        detail += f"; {unkept} checkpoint{'s' if unkept != 1 else ''} not kept (the team's disk quota)"
    stage_end(run_id=run_id, name=Stage.Name.PARITY, detail=detail)


# Keys of an entry point that have their own columns; the rest goes to `details`.
_PARITY_COLUMNS = {"name", "module", "status", "reason", "metrics", "config_mismatches", "layers",
                   "first_diverging_layer", "device", "loss_curve", "checkpoint"}


def _parity_result_create(*, run: Run, report: dict, entry: dict) -> ParityResult:
    details = {k: v for k, v in entry.items() if k not in _PARITY_COLUMNS}
    curve = entry.get("loss_curve") or {}
    # The curve's own settings (tolerance, optimizer...) without the per-step lists.
    details["loss_curve"] = {k: v for k, v in curve.items() if k not in ("torch", "mindspore")}
    if entry.get("checkpoint"):
        details["checkpoint"] = Path(entry["checkpoint"]).name  # it lives in the run's directory
    result = ParityResult.objects.create(
        run=run,
        name=entry.get("name", "")[:255],
        module=entry.get("module", "")[:255],
        status=entry.get("status", ParityResult.Status.ERROR),
        reason=entry.get("reason") or "",
        device=entry.get("device") or report.get("device") or run.device,
        first_diverging_layer=entry.get("first_diverging_layer") or "",
        metrics=entry.get("metrics") or {},
        config_mismatches=entry.get("config_mismatches") or [],
        layers=entry.get("layers") or [],
        details=details,
    )
    if curve.get("torch") or curve.get("mindspore"):
        LossCurve.objects.create(
            parity_result=result, torch_losses=curve.get("torch") or [], mindspore_losses=curve.get("mindspore") or []
        )
    return result


# --- finalize ---------------------------------------------------------------------------


def run_finalize(*, run_id: int) -> None:
    from .tallies import tallies_store

    stage_begin(run_id=run_id, name=Stage.Name.FINALIZE, total=1)
    tallies_store(run_id=run_id)  # the findings are final now; comparisons read these counts
    stage_advance(run_id=run_id, name=Stage.Name.FINALIZE)
    stage_end(run_id=run_id, name=Stage.Name.FINALIZE)
    Run.objects.filter(pk=run_id, status=Run.Status.RUNNING).update(
        status=Run.Status.DONE, finished_at=timezone.now()
    )
    from porting_site.gates.services import gate_evaluate

    gate_evaluate(run=Run.objects.get(pk=run_id))


# --- housekeeping -----------------------------------------------------------------------


def run_fail_stuck(*, now=None, limit_s: int | None = None) -> list[int]:
    """Mark failed every active run whose stages showed no activity within the limit.

    Activity is the latest stage start or finish (or the upload, before any
    stage started). Returns the ids of the runs it failed.
    """
    from django.db.models import Max
    from django.db.models.functions import Coalesce, Greatest

    now = now or timezone.now()
    limit_s = limit_s if limit_s is not None else settings.PORTING_STUCK_RUN_SECONDS
    cutoff = now - timezone.timedelta(seconds=limit_s)
    active = Run.objects.filter(status__in=[Run.Status.QUEUED, Run.Status.RUNNING]).annotate(
        last_activity=Greatest(
            "created_at",
            Coalesce(Max("stages__started_at"), "created_at"),
            Coalesce(Max("stages__finished_at"), "created_at"),
        )
    )
    failed = []
    for run in active.filter(last_activity__lt=cutoff):
        stage = run.stages.exclude(status=Stage.Status.DONE).order_by("position").first()
        run_fail(
            run_id=run.pk,
            stage=stage.name if stage else Stage.Name.FINALIZE,
            reason=f"no progress for more than {limit_s // 60} minutes; the worker may have died. Upload again to retry.",
        )
        failed.append(run.pk)
    return failed


def run_warm_highlights(*, run_id: int) -> int:
    """Highlight the run's big files into the disk cache, so their first view is fast.

    Runs after the run is done (it must not delay results); returns how many
    files it highlighted.
    """
    from .source_view import CACHE_MIN_CHARS, highlighted_lines, notebook_code, read_text

    src = storage.source_dir(run_id)
    warmed = 0
    for rel in SourceFile.objects.filter(run_id=run_id).values_list("path", flat=True):
        path = src / rel
        try:
            if path.stat().st_size < CACHE_MIN_CHARS:
                continue
            text = read_text(path.read_bytes())
        except OSError:
            continue
        if rel.endswith(".ipynb"):
            text, _ = notebook_code(text)
        highlighted_lines(text)
        warmed += 1
    return warmed
