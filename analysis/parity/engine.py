"""Parent side of a parity run: pick the entry points, hand each to a fresh
sandboxed child, judge what it measured, and turn that (or its absence) into
the report.

One box per entry point: a verdict never depends on what ran before it (an
earlier entry's code cannot patch the checks, the frameworks or the next
model), and each box has one deadline the parent fixed. The price is the
frameworks' import per entry (see README, Sandbox). The child sends data
only; the statuses are computed here (verdict.py).
"""
from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from ..sandbox import SandboxLimits, run_sandboxed
from . import dependencies as deps
from . import discover
from .manifest import ManifestError, find_manifest, load_manifest
from .verdict import Judge

DEVICES = ("cpu", "gpu", "ascend")
# CUDA and Ascend runtimes reserve address space far beyond what they touch
# (unified memory maps); the usual RLIMIT_AS would make their start fail and
# read as "no device". Resident memory is still policed by the parent.
ACCELERATOR_ADDRESS_SPACE_MB = 1 << 26
RUNNER = "analysis.parity.runner"


def check_parity(
    original_dir: Path,
    converted_dir: Path | None = None,
    *,
    device: str = "cpu",
    manifest: Path | None = None,
    timeout_s: float = 300,
    memory_mb: int = 6144,
    loss_steps: int = 20,
    checkpoint_dir: Path | None = None,
    should_stop: Callable[[], bool] | None = None,
    on_progress: Callable[[dict], None] | None = None,
    max_timeout_s: float | None = None,
    dependencies: deps.DependencyPolicy | None = None,
    checkpoint_room_bytes: int | None = None,
) -> dict:
    """Check every entry point of `original_dir` against its converted cell.

    Without `converted_dir` the tree is converted first. With
    `checkpoint_dir`, each checked cell's transferred weights are saved there
    as `<module>.<Class>.ckpt` (the .pth state as a MindSpore checkpoint);
    `checkpoint_room_bytes` caps what they take together on disk (the site
    passes the team's room): a checkpoint past it is not kept, and its entry's
    `checkpoint_refused` says why (the verdict stands).
    `should_stop` is polled while the child runs; when it returns true the
    child is killed and the entries not finished are reported as stopped.
    With `dependencies`, what the repository declares (requirements,
    pyproject, setup.cfg/setup.py) is installed, wheels only, into a cached
    read-only layer on the box's path; the report's "dependencies" says what
    was installed, refused and why.
    A manifest's per-entry `timeout` is honoured up to `max_timeout_s`
    (default: `timeout_s`, the caller's limit). Never raises for problems in
    user code; they become entry points with status "error". `on_progress`
    gets {"event": "planned", "entries": [...]}, then "running" (the entry a
    box starts on) and "finished" (an entry's status) as they happen, for
    live progress.
    """
    return check_parity_many(
        [(Path(original_dir), Path(converted_dir) if converted_dir else None, manifest)],
        device=device, timeout_s=timeout_s, memory_mb=memory_mb, loss_steps=loss_steps,
        checkpoint_dir=checkpoint_dir, should_stop=should_stop, on_progress=on_progress,
        max_timeout_s=max_timeout_s, dependencies=dependencies, checkpoint_room_bytes=checkpoint_room_bytes,
    )[0]


def check_parity_many(
    trees: list[tuple[Path, Path | None, Path | None]],
    *,
    device: str = "cpu",
    timeout_s: float = 300,
    memory_mb: int = 6144,
    loss_steps: int = 20,
    checkpoint_dir: Path | None = None,
    should_stop: Callable[[], bool] | None = None,
    on_progress: Callable[[dict], None] | None = None,
    max_timeout_s: float | None = None,
    dependencies: deps.DependencyPolicy | None = None,
    checkpoint_room_bytes: int | None = None,
) -> list[dict]:
    """Several (original, converted, manifest) checks: one report per tree, in order."""
    if device not in DEVICES:
        raise ValueError(f"device must be one of {', '.join(DEVICES)}")
    reports, jobs, cleanup = [], [], []
    for index, (original, converted, manifest) in enumerate(trees):
        report = {"device": device, "original_dir": str(original), "converted_dir": None, "entry_points": []}
        reports.append(report)
        try:
            original = original.resolve()
            if converted is None:
                converted = _convert(original)
                cleanup.append(converted)
                report["converted_by"] = "analysis.convert.convert_tree"
            converted = converted.resolve()
            report["converted_dir"] = str(converted)
            entries, source = _entries(original, manifest)
            report["entries_from"] = source
        except (ManifestError, OSError, RuntimeError) as exc:
            report["error"] = str(exc)
            continue
        site_paths = _dependency_layer(original, dependencies, report)
        layer_map = _layer_map(converted)
        for entry in entries:
            job = dict(entry, key=f"{index}:{len(jobs)}", original_dir=str(original), converted_dir=str(converted),
                       device=device, layer_map=layer_map.get(discover.dotted(entry["module"]), {}).get(entry["class"], []),
                       site_paths=site_paths)
            job.setdefault("loss_steps", loss_steps)
            if checkpoint_dir is not None:
                # The child is told only that a checkpoint is wanted; the path is the parent's.
                Path(checkpoint_dir).mkdir(parents=True, exist_ok=True)
                job["checkpoint"] = True
                job["checkpoint_path"] = str(Path(checkpoint_dir).resolve() / _checkpoint_name(entry))
            jobs.append((report, job))
    tell = on_progress or (lambda event: None)
    tell({"event": "planned", "entries": [_label(job) for _, job in jobs]})
    try:
        _run_jobs(jobs, device=device, timeout_s=timeout_s, memory_mb=memory_mb, should_stop=should_stop,
                  max_timeout_s=max_timeout_s, tell=tell, room=checkpoint_room_bytes)
    finally:
        for path in cleanup:
            shutil.rmtree(path.parent, ignore_errors=True)
    return reports


def _checkpoint_name(entry: dict) -> str:
    """`<module>.<Class>.ckpt` in the outbox's allowed characters (a module
    named by file path, `01-basics/cnn/main.py`, has slashes and maybe spaces)."""
    name = re.sub(r"[^A-Za-z0-9_.\-]", "_", f"{discover.dotted(entry['module'])}.{entry['class']}")
    return re.sub(r"^[^A-Za-z0-9_]+", "", name)[:190] + ".ckpt"


def _dependency_layer(original: Path, policy: deps.DependencyPolicy | None, report: dict) -> list[str]:
    """The folder of installed dependencies the box adds to the child's path
    (none without a policy); the report says what went in and what did not."""
    if policy is None:
        return []
    try:
        layer = deps.build_layer(original, policy)
    except (OSError, subprocess.SubprocessError) as exc:
        report["dependencies"] = {"error": f"the dependency layer could not be built: {exc}"}
        return []
    report["dependencies"] = layer.to_dict()
    return [str(layer.path)] if layer.path else []


def _entries(original: Path, manifest: Path | None) -> tuple[list[dict], str]:
    manifest = manifest or find_manifest(original)
    if manifest is not None:
        return load_manifest(Path(manifest)), f"manifest {Path(manifest).name}"
    return discover.candidates(original), "discovered"


def _layer_map(converted: Path) -> dict:
    path = converted / ".porting" / "layer_map.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _convert(original: Path) -> Path:
    try:
        from analysis.convert import convert_tree
    except ImportError as exc:
        raise RuntimeError(f"no converted tree given and the converter is unavailable: {exc}") from exc
    target = Path(tempfile.mkdtemp(prefix="parity-converted-")) / "converted"
    convert_tree(original, target, jobs=1)  # no process pool: Celery prefork workers are daemonic
    return target


def entry_timeout(job: dict, default_s: float, maximum_s: float | None) -> tuple[float, str]:
    """The seconds an entry gets: its manifest `timeout` when finite and
    positive, never above the caller's maximum; and a note when it was not
    taken as written."""
    limit = float(maximum_s if maximum_s is not None else default_s)
    asked = job.get("timeout")
    if asked is None:
        return min(float(default_s), limit), ""
    if isinstance(asked, bool) or not isinstance(asked, (int, float)) or not math.isfinite(asked) or asked <= 0:
        return min(float(default_s), limit), f"manifest timeout {asked!r} ignored (not a finite positive number)"
    if asked > limit:
        return limit, f"manifest timeout {asked:g} s cut to the limit of {limit:g} s"
    return float(asked), ""


def _label(job: dict) -> str:
    return f"{job['module']}.{job.get('name', job['class'])}" if job.get("module") else job.get("name", job["class"])


def _run_jobs(jobs: list[tuple[dict, dict]], *, device: str, timeout_s: float, memory_mb: int,
              should_stop: Callable[[], bool] | None = None, max_timeout_s: float | None = None,
              tell=lambda event: None, room: int | None = None) -> None:
    """`room`: disk bytes all checkpoints may take together (None: no cap but the per-file one)."""
    threads = max(1, min(4, os.cpu_count() or 1))
    stopped = False
    for report, job in jobs:
        if stopped:
            report["entry_points"].append(_finish(job, {
                "status": "skipped", "reason": "the check was stopped before it finished"}, device))
            tell({"event": "finished", "entry": _label(job), "status": "skipped"})
            continue
        seconds, note = entry_timeout(job, timeout_s, max_timeout_s)
        refused = ""
        if room is not None and room <= 0 and job.get("checkpoint_path"):
            # No room at all: the box is not asked for a checkpoint (nor given a home to write one in).
            job = {k: v for k, v in job.items() if k not in ("checkpoint", "checkpoint_path")}
            refused = "not kept: no disk space is left to this check (the team's disk quota is used up)"
        tell({"event": "running", "entries": [_label(job)]})
        entry, outcome = _run_one(job, device=device, timeout_s=seconds, memory_mb=memory_mb, threads=threads,
                                  should_stop=should_stop, room=room)
        if room is not None:
            room -= outcome.output_bytes
        if refused:
            entry["checkpoint_refused"] = refused
        if note:
            entry["timeout_note"] = note
        report["protections"] = outcome.protections
        report["entry_points"].append(entry)
        tell({"event": "finished", "entry": _label(job), "status": entry["status"]})
        stopped = outcome.stopped


def _checkpoint_refused(job: dict, outcome, failed_inside: bool, room: int | None) -> str:
    """Why an entry that asked for a checkpoint has none, in the parent's words ("" when it has one, or
    when the entry never got that far)."""
    if not job.get("checkpoint_path") or "checkpoint" in outcome.outputs:
        return ""
    if "checkpoint" in outcome.outputs_refused:
        return outcome.outputs_refused["checkpoint"]
    if failed_inside:
        where = "" if room is None else (f" (its home held {room / (1 << 20):.1f} MiB, "
                                         "the disk space left to this check)")
        return "not kept: it could not be written inside the box" + where
    return ""


def _run_one(job: dict, *, device: str, timeout_s: float, memory_mb: int, threads: int,
             should_stop: Callable[[], bool] | None, room: int | None = None):
    """One entry point in a box of its own, judged here from the data it sent."""
    judge = Judge(job)
    seen: dict = {"result": None, "results": 0, "partial": None}

    def on_record(record: dict, arrays: dict) -> None:
        if record.get("key") != job["key"]:
            return  # another entry's key: nothing a box says is about anything but its own entry
        event = record.get("event")
        if event == "pair":
            judge.pair(record, arrays)
        elif event == "result":
            seen["results"] += 1
            seen["result"] = record.get("result")
        elif event == "partial":
            seen["partial"] = record  # the last one wins; only the last is kept

    # No host path the box does not need enters it: the checkpoint's target and the layer are the parent's.
    child_job = {k: v for k, v in job.items() if k not in ("checkpoint_path", "site_paths")}
    limits = SandboxLimits(timeout_s=timeout_s, memory_mb=memory_mb, threads=threads,
                           cpu_s=int(timeout_s * threads * 2),
                           address_space_mb=ACCELERATOR_ADDRESS_SPACE_MB if device != "cpu" else None)
    outputs = {"checkpoint": job["checkpoint_path"]} if job.get("checkpoint_path") else {}
    # The box sees only the two trees and the dependency layer (read-only, the layer on the child's
    # path); the checkpoint comes back through the channel.
    site_paths = sorted(set(job.get("site_paths") or []))
    outcome = run_sandboxed(
        RUNNER, {"device": device, "threads": threads, "job": child_job}, limits=limits, should_stop=should_stop,
        device=device, read_only=sorted({job["original_dir"], job["converted_dir"], *site_paths}),
        sys_path=site_paths, outputs=outputs, on_record=on_record,
        output_budget_bytes=room if outputs else None)
    if outcome.stopped:
        return _finish(job, {"status": "skipped", "reason": "the check was stopped before it finished"},
                       device), outcome
    if seen["results"] == 1 and outcome.ok:
        result = judge.judge(seen["result"])
    elif seen["results"] > 1:
        result = {"status": "error", "reason": "the box sent more than one result for its entry point"}
    else:
        reason = outcome.failure_reason() or "the check process ended without a result"
        result = _cut_short(job, reason, seen["partial"], outcome, judge)
    result.pop("checkpoint_saved", None)
    refused = _checkpoint_refused(job, outcome, result.pop("checkpoint_failed", None) is True, room)
    if refused:
        result["checkpoint_refused"] = refused
    if "checkpoint" in outcome.outputs:
        result["checkpoint"] = job["checkpoint_path"]
    return _finish(job, result, device), outcome


PHASES = {
    "import": "importing the PyTorch class", "construct": "constructing the PyTorch module",
    "dataset": "loading the dataset", "inputs": "inferring the input shape",
    "import_converted": "importing the MindSpore cell", "construct_converted": "constructing the MindSpore cell",
    "forward_eval": "the eval forward", "train_step": "the train step (forward, gradients, state after a step)",
    "loss_curve": "the loss curves",
}


def _cut_short(job: dict, reason: str, partial: dict | None, outcome, judge: Judge | None = None) -> dict:
    """An entry whose child died or hung: what it had finished is kept (judged
    here, like a whole result), and the reason says which phase was cut short."""
    sent = (partial or {}).get("result")
    result = {}
    if isinstance(sent, dict) and sent:
        judge = judge or Judge(job)
        result = judge.judge(sent) if "outputs" in sent else {k: v for k, v in sent.items() if k == "inputs"}
        if "timings_s" in sent:
            result["timings_s"] = sent["timings_s"]
    phase = (partial or {}).get("phase")
    phase = phase if isinstance(phase, str) else None
    where = f" during {PHASES.get(phase, phase)}" if phase else ""
    kept = " (the results of the phases before it are kept)" if result else ""
    if "memory limit" in reason:
        kept += ("; raise the ceiling (memory_mb, CLI --memory-mb): the checks peak at about 9 times the model's "
                 "float32 parameter bytes beside ~1.3 GB of frameworks")
        shapes = ", ".join("x".join(str(d) for d in spec["shape"]) for spec in job.get("inputs") or []
                           if isinstance(spec, dict) and spec.get("shape"))
        if shapes:  # a call site's example (a README's 224x224 image) may be larger than a check needs
            where = f" from {job['arguments_from']}" if job.get("arguments_from") else ""
            kept += (f", plus the activations of its inputs ({shapes}{where}), three times over (PyTorch, its "
                     "float64 reference, MindSpore): a porting.toml entry may give it smaller inputs")
    result.update(status="error", reason=f"{reason}{where} while checking {job['class']}{kept}",
                  stderr_tail=outcome.stderr_tail[-2000:], stdout_tail=outcome.stdout_tail[-1000:])
    if phase:
        result["cut_short"] = {"phase": phase, "what": PHASES.get(phase, phase),
                               "completed": list((result.get("timings_s") or {}).keys())}
    return result


ENTRY_ORDER = ("name", "module", "status", "reason", "first_diverging_layer", "config_mismatches", "layers",
               "metrics")


def _finish(job: dict, result: dict, device: str) -> dict:
    entry = {
        "name": job.get("name", job["class"]),
        "module": job["module"],
        "class": job["class"],
        "status": result.get("status", "error"),
        "reason": result.get("reason", ""),
        "first_diverging_layer": result.get("first_diverging_layer"),
        "config_mismatches": result.get("config_mismatches", []),
        "layers": result.get("layers", []),
        "metrics": result.get("metrics", {}),
        "gradients": result.get("gradients", []),
        "state_after_step": result.get("state_after_step", []),
        "loss_curve": result.get("loss_curve", {}),
        "device": device,
    }
    entry.update({k: v for k, v in result.items() if k not in entry})
    # How the entry was built: the report says where its arguments came from.
    entry.update({k: job[k] for k in ("factory", "instance", "args", "kwargs", "arguments_from", "chosen_sizes",
                                      "stand_ins", "timeout") if k in job})
    if result.get("sizes_rejected"):  # the constructor refused the sizes chosen first: built at the next ones
        entry.update(kwargs=result["kwargs"], chosen_sizes=result["chosen_sizes"])
        refused = "; ".join(", ".join(f"{k} = {v}" for k, v in r["sizes"].items()) + f" ({r['error']})"
                            for r in result["sizes_rejected"])
        entry["arguments_from"] = (f"{job.get('arguments_from', '')}; built at "
                                   + ", ".join(f"{k} = {v}" for k, v in result["chosen_sizes"].items())
                                   + f", the constructor having refused {refused}")
    parent = entry.pop("within_used", None) or job.get("within")
    if parent:
        entry["built_inside"] = parent.get("name") or parent.get("class")
        if parent.get("chosen_sizes"):  # the block's sizes follow from the ones the checker gave its parent
            entry["chosen_sizes"] = parent["chosen_sizes"]
        if parent is not job.get("within") and parent != job.get("within"):  # a later parent held the block
            entry["arguments_from"] = f"as {entry['built_inside']} builds it" + (
                f" ({parent['arguments_from']})" if parent.get("arguments_from") else "")
    return entry
