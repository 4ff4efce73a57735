"""`parity ORIGINAL_DIR [--converted DIR] [--manifest FILE] [--device cpu]
[--format table|json]`: check a PyTorch tree against its MindSpore conversion
(ours, or one the team edited by hand).

Exit status, for a CI step (the first that applies):
  1  an entry point fails (other numbers than PyTorch) or errors (the check could not run)
  2  bad arguments
  3  no entry point was checked at all (every one skipped or failing in PyTorch itself, or none found)
  4  every checked entry point passes, but the original PyTorch code of another one fails on its
     inputs (nothing is known about that conversion); with --strict, a skipped entry point too
  0  every checked entry point passes (skipped ones are listed with what to add)
A CI step must not pass on nothing, nor on an entry point nobody could check."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from analysis.links import links_under, skipped_message
from analysis.parity import check_parity
from analysis.parity.statuses import count_phrase, status_label

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NOTHING_CHECKED, EXIT_UNVERIFIED = 0, 1, 2, 3, 4

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("original_dir", help="the PyTorch repository")
    parser.add_argument("--converted", dest="converted", default=None,
                        help="a converted MindSpore tree (same layout and class names); converted on the fly if absent")
    parser.add_argument("--manifest", default=None, help="porting.toml listing entry points (default: the repo's own)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "gpu", "ascend"])
    parser.add_argument("--format", dest="format", default="table", choices=["table", "json"])
    parser.add_argument("--timeout", dest="timeout", type=float, default=300.0, help="seconds per entry point")
    parser.add_argument("--loss-steps", dest="loss_steps", type=int, default=20)
    parser.add_argument("--deps-cache", dest="deps_cache", default=None,
                        help="install the repository's declared dependencies (wheels only) into cached read-only "
                             "layers under this folder (default: PORTING_DEPS_CACHE; unset: not installed, "
                             "missing imports are stubbed)")
    parser.add_argument("--wheelhouse", default=None,
                        help="offline: take wheels only from this folder (default: PORTING_DEPS_WHEELHOUSE)")
    parser.add_argument("--memory-mb", dest="memory_mb", type=int, default=6144,
                        help="resident-memory ceiling of the sandboxed child; checks peak at about 9 times a model's float32 "
                             "parameter bytes (float64 copy, MindSpore twin, gradients, steps) beside ~1.3 GB of frameworks")
    parser.add_argument("--strict", action="store_true",
                        help="exit 4 when an entry point was skipped, not only when its original PyTorch code fails")


def run(options: dict, stdout) -> int:
    original = Path(options["original_dir"])
    for tree in (original, Path(options["converted"]) if options.get("converted") else None):
        if tree is not None and tree.is_dir() and (skipped := skipped_message(links_under(tree))):
            sys.stderr.write(f"{tree}: {skipped}\n")  # stdout may be the JSON report
    if not original.is_dir():
        stdout.write(f"parity: {original} is not a directory\n")
        return EXIT_USAGE
    converted = Path(options["converted"]) if options.get("converted") else None
    if converted is not None and not converted.is_dir():
        stdout.write(f"parity: {converted} is not a directory\n")
        return EXIT_USAGE
    manifest = Path(options["manifest"]) if options.get("manifest") else None
    report = check_parity(original, converted, device=options.get("device") or "cpu", manifest=manifest,
                          timeout_s=float(options.get("timeout") or 300), loss_steps=int(options.get("loss_steps", 20)),
                          memory_mb=int(options.get("memory_mb") or 6144), dependencies=_dependency_policy(options))
    if options.get("format") == "json":
        # Everything the dashboard shows: layers (eval and train), gradients, state after a
        # step, loss curves with their float64 reference, weights, what was turned off.
        from analysis.parity.compare import json_safe

        stdout.write(json.dumps(json_safe(report), indent=2, default=str) + "\n")
    else:
        stdout.write(format_table(report))
    return exit_status(report, strict=bool(options.get("strict")))


def exit_status(report: dict, *, strict: bool = False) -> int:
    """The module docstring's table: what a CI step can rely on."""
    statuses = [e.get("status") for e in report.get("entry_points", [])]
    if report.get("error") or any(s in ("fail", "error") for s in statuses):
        return EXIT_FAILED
    if not checked(report):
        return EXIT_NOTHING_CHECKED
    if "torch_fail" in statuses or (strict and "skipped" in statuses):
        return EXIT_UNVERIFIED
    return EXIT_OK


def _dependency_policy(options: dict):
    """The command line's folders over the environment's settings."""
    import dataclasses
    import os

    from analysis.parity.dependencies import DependencyPolicy

    environ = dict(os.environ)
    if options.get("deps_cache"):
        environ["PORTING_DEPS_CACHE"] = options["deps_cache"]
    if options.get("wheelhouse"):
        environ["PORTING_DEPS_WHEELHOUSE"] = options["wheelhouse"]
    policy = DependencyPolicy.from_env(environ)
    return dataclasses.replace(policy, cache_dir=Path(policy.cache_dir).resolve()) if policy else None


CHECKED = ("pass", "fail")


def checked(report: dict) -> int:
    """Entry points whose numbers were compared (a skip, an error or a failing
    original forward compared nothing)."""
    return sum(1 for e in report.get("entry_points", []) if e.get("status") in CHECKED)


def format_table(report: dict) -> str:
    rows = [("entry point", "status", "first diverging layer", "max abs", "cosine", "loss curve", "stubbed modules")]
    for e in report["entry_points"]:
        metrics, curve = e.get("metrics") or {}, e.get("loss_curve") or {}
        stubs = ", ".join(((e.get("load_notes") or {}).get("stubbed_modules")) or []) or "-"
        rows.append((f"{e['module']}.{e['name']}", status_label(e["status"]), e.get("first_diverging_layer") or "-",
                     _num(metrics.get("max_abs")), _num(metrics.get("cosine")), curve.get("status", "-"), stubs))
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    details = []
    for e in report["entry_points"]:
        if e.get("reason"):
            details.append(f"{e['name']}: {e['reason']}")
        if e.get("chosen_sizes"):  # a verdict at sizes the repository never gave: say which
            details.append(f"{e['name']}: sizes chosen by the checker, "
                           + ", ".join(f"{k} = {v}" for k, v in e["chosen_sizes"].items())
                           + " (the repository names them without values; both frameworks were built with these)")
        band = (e.get("metrics") or {}).get("band_ratio")
        if band is not None and (e.get("metrics") or {}).get("label") == "beyond noise band":
            details.append(f"  {band:.0f} times the float64 noise band, though within the op's floor tolerance")
        for m in e.get("config_mismatches", []):
            where = f" ({m['file']}:{m['line']})" if m.get("line") else ""
            details.append(f"  config {m['layer']}.{m['field']}{where}: {m['message']}")
    if report.get("error"):
        details.append(f"error: {report['error']}")
    details += _dependency_lines(report.get("dependencies"))
    hints = [e["manifest_hint"] for e in report["entry_points"] if e.get("manifest_hint")]
    if hints:  # one pasteable porting.toml: each block is valid TOML, FILL_IN marks what a person gives
        details += ["", "# porting.toml blocks for the skipped entry points (replace each FILL_IN):", ""]
        details += [block + "\n" for block in hints]
    counts = {}
    for e in report["entry_points"]:
        counts[e["status"]] = counts.get(e["status"], 0) + 1
    summary = (f"{len(report['entry_points'])} entry points, {checked(report)} checked: "
               + ", ".join(count_phrase(s, n) for s, n in sorted(counts.items())))
    return "\n".join(lines + ([""] + details if details else [])) + f"\n{summary}\ndevice: {report['device']}\n"


def _dependency_lines(deps) -> list[str]:
    """What the repository declares and what became of it (installed, refused, stubbed)."""
    if not isinstance(deps, dict) or not deps:
        return []
    out = [""]
    for key, label in (("installed", "installed"), ("refused", "refused"), ("failed", "not installed")):
        for item in deps.get(key) or []:
            why = f" ({item['why']})" if item.get("why") else ""
            out.append(f"dependency {label}: {item['requirement']}{why}")
    return out


def _num(value) -> str:
    if isinstance(value, (int, float)):
        return f"{value:.3g}"
    return "-" if value is None else str(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="parity", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    return run(vars(parser.parse_args(argv)), sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
