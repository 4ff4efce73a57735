"""Parent side of a parity run: pick the entry points, hand them to sandboxed
children, and turn whatever comes back (or doesn't) into the report.

One child checks many entry points in a row (importing torch and MindSpore
costs seconds); when a child dies or hangs, the entry point it was on is
reported as an error with the stderr tail and a fresh child takes the rest.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from ..sandbox import SandboxLimits, run_sandboxed
from . import dependencies as deps
from . import discover
from .manifest import ManifestError, find_manifest, load_manifest

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
    dependencies: deps.DependencyPolicy | None = None,
) -> dict:
    """Check every entry point of `original_dir` against its converted cell.

    Without `converted_dir` the tree is converted first. With
    `checkpoint_dir`, each checked cell's transferred weights are saved there
    as `<module>.<Class>.ckpt` (the .pth state as a MindSpore checkpoint).
    `should_stop` is polled while the child runs; when it returns true the
    child is killed and the entries not finished are reported as stopped.
    With `dependencies`, what the repository declares (requirements,
    pyproject, setup.cfg/setup.py) is installed, wheels only, into a cached
    read-only layer on the box's path; the report's "dependencies" says what
    was installed, refused and why.
    Never raises for problems in user code; they become entry points with
    status "error". `on_progress` gets {"event": "planned", "entries": [...]},
    then "running" (the entries a child starts on) and "finished" (an entry's
    status) as they happen, for live progress.
    """
    return check_parity_many(
        [(Path(original_dir), Path(converted_dir) if converted_dir else None, manifest)],
        device=device, timeout_s=timeout_s, memory_mb=memory_mb, loss_steps=loss_steps,
        checkpoint_dir=checkpoint_dir, should_stop=should_stop, on_progress=on_progress,
        dependencies=dependencies,
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
    dependencies: deps.DependencyPolicy | None = None,
) -> list[dict]:
    """Several (original, converted, manifest) checks sharing sandboxed
    children: one report per tree, in order."""
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
                Path(checkpoint_dir).mkdir(parents=True, exist_ok=True)
                job["checkpoint_path"] = str(Path(checkpoint_dir).resolve() / f"{entry['module']}.{entry['class']}.ckpt")
            jobs.append((report, job))
    tell = on_progress or (lambda event: None)
    tell({"event": "planned", "entries": [_label(job) for _, job in jobs]})
    try:
        _run_jobs(jobs, device=device, timeout_s=timeout_s, memory_mb=memory_mb, should_stop=should_stop,
                  tell=tell)
    finally:
        for path in cleanup:
            shutil.rmtree(path.parent, ignore_errors=True)
    return reports


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


def _label(job: dict) -> str:
    return f"{job['module']}.{job.get('name', job['class'])}" if job.get("module") else job.get("name", job["class"])


def _run_jobs(jobs: list[tuple[dict, dict]], *, device: str, timeout_s: float, memory_mb: int,
              should_stop: Callable[[], bool] | None = None, tell=lambda event: None) -> None:
    # An entry's own `timeout` (manifest) gets a child of its own limit.
    groups: dict[float, list] = {}
    for item in jobs:
        groups.setdefault(float(item[1].get("timeout") or timeout_s), []).append(item)
    if len(groups) > 1:
        for group_timeout, group in groups.items():
            _run_jobs(group, device=device, timeout_s=group_timeout, memory_mb=memory_mb, should_stop=should_stop,
                      tell=tell)
        return
    timeout_s = next(iter(groups), timeout_s)
    pending = list(jobs)
    threads = max(1, min(4, os.cpu_count() or 1))
    while pending:
        payload = {"device": device, "threads": threads, "jobs": [job for _, job in pending]}
        limits = SandboxLimits(timeout_s=timeout_s, memory_mb=memory_mb, threads=threads,
                               cpu_s=int(timeout_s * threads * (len(pending) + 1)),
                               address_space_mb=ACCELERATOR_ADDRESS_SPACE_MB if device != "cpu" else None)
        # The child imports the original tree's packages; their parent dirs go first on its path.
        # The box sees only these trees (read-only) and the checkpoint directories (copied out afterwards).
        jobs_now = [job for _, job in pending]
        tell({"event": "running", "entries": [_label(job) for job in jobs_now]})
        outcome = run_sandboxed(
            RUNNER, payload, limits=limits, should_stop=should_stop, device=device,
            read_only=sorted({job[k] for job in jobs_now for k in ("original_dir", "converted_dir")}
                             | {p for job in jobs_now for p in job.get("site_paths", [])}),
            sys_path=sorted({p for job in jobs_now for p in job.get("site_paths", [])}),
            writable=sorted({str(Path(job["checkpoint_path"]).parent) for job in jobs_now
                             if job.get("checkpoint_path")}))
        results = {r["key"]: r["result"] for r in outcome.records if r.get("event") == "result"}
        partials = {r["key"]: r for r in outcome.records if r.get("event") == "partial"}  # the last one wins
        started = [r["key"] for r in outcome.records if r.get("event") == "start"]
        remaining = []
        for report, job in pending:
            report["protections"] = outcome.protections
            told = len(report["entry_points"])
            if job["key"] in results:
                report["entry_points"].append(_finish(job, results[job["key"]], device))
            elif outcome.stopped:  # nothing else runs after a stop request
                report["entry_points"].append(_finish(job, {
                    "status": "skipped", "reason": "the check was stopped before it finished"}, device))
            elif job["key"] in started or not started:
                # The child died on this entry (or before any): blame it, move on.
                reason = outcome.failure_reason() or "the check process ended without a result"
                report["entry_points"].append(_finish(job, _cut_short(job, reason, partials.get(job["key"]), outcome),
                                                      device))
                # Nothing ran at all (not started): the same would happen again, so the rest fail too.
            else:
                remaining.append((report, job))
            if len(report["entry_points"]) > told:
                tell({"event": "finished", "entry": _label(job), "status": report["entry_points"][-1]["status"]})
        if outcome.stopped or len(remaining) == len(pending):
            break
        pending = remaining


PHASES = {
    "import": "importing the PyTorch class", "construct": "constructing the PyTorch module",
    "dataset": "loading the dataset", "inputs": "inferring the input shape",
    "import_converted": "importing the MindSpore cell", "construct_converted": "constructing the MindSpore cell",
    "forward_eval": "the eval forward", "train_step": "the train step (forward, gradients, state after a step)",
    "loss_curve": "the loss curves",
}


def _cut_short(job: dict, reason: str, partial: dict | None, outcome) -> dict:
    """An entry whose child died or hung: what it had finished is kept, and
    the reason says which phase was cut short."""
    result = dict((partial or {}).get("result") or {})
    phase = (partial or {}).get("phase")
    where = f" during {PHASES.get(phase, phase)}" if phase else ""
    kept = " (the results of the phases before it are kept)" if result else ""
    if "memory limit" in reason:
        kept += ("; raise the ceiling (memory_mb, CLI --memory-mb): the checks peak at about 9 times the model's "
                 "float32 parameter bytes beside ~1.3 GB of frameworks")
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
    entry.update({k: job[k] for k in ("factory", "instance", "args", "kwargs", "arguments_from", "timeout")
                  if k in job})
    if job.get("within"):
        entry["built_inside"] = job["within"].get("name") or job["within"].get("class")
    return entry
