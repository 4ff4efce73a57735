"""Parity on repositories nobody here has worked on (issue 26's targets), as a user runs it.

    python bench/unseen_repos.py WORKDIR [--fetch] [--only NAME ...] [--loss-steps 2] [--deps-cache DIR]
                                 [--json OUT]

bench/unseen_repos.json names the repositories: PyPI sdists (fetched with `pip download
--no-deps --no-binary :all: NAME==VERSION` and unpacked into WORKDIR with --fetch) and GitHub
files by commit (this machine reaches no GitHub: put them under WORKDIR/<folder>/ yourself).
Each tree is checked as uploaded: no manifest, no hand edit, converted on the fly
(`check_parity`, the code behind `manage.py parity`), the dependency layer on when
--deps-cache is given. Run it from a scratch directory (MindSpore writes rank_0/ into the cwd).

Per repository it prints entries, checked (a pass or fail verdict), pass/fail/error/skipped/
torch_fail, and the class accounting of issue 26's proof: the module classes the repository
defines, those it builds somewhere (discovery found a call site for them, in its modules, tests or
README, or a parent entry that builds them), and those of the built ones with at least one
checked entry (the built classes without one are named, with their entries' statuses). Every
non-passing entry is listed with its reason, and every entry built with sizes the checker chose (a
README's placeholder names) with those sizes.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LIST = Path(__file__).with_suffix(".json")


def fetch(work: Path, sdists: list[dict]) -> None:
    for item in sdists:
        spec = f"{item['name']}=={item['version']}"
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", spec,
                        "-d", str(work)], check=True)
        archive = next(p for p in work.glob("*.tar.gz")
                       if p.name.lower().replace("_", "-").startswith(f"{item['name']}-{item['version']}"))
        with tarfile.open(archive) as tar:
            tar.extractall(work, filter="data")


def tree_of(work: Path, item: dict) -> Path:
    if "folder" in item:
        return work / item["folder"]
    wanted = f"{item['name']}-{item['version']}".replace("-", "_").lower()
    return next(p for p in work.iterdir() if p.is_dir() and p.name.replace("-", "_").lower() == wanted)


def classes(root: Path) -> dict[str, dict]:
    """'module:Class' -> {built: bool} for every module class discovery sees."""
    from analysis.parity import discover

    out: dict[str, dict] = {}
    for entry in discover.candidates(root):
        if entry.get("instance") or entry.get("factory"):
            continue
        key = f"{entry['module']}:{entry['class']}"
        built = bool(entry.get("arguments_from") or entry.get("arguments_unknown") or entry.get("within"))
        out[key] = {"built": out.get(key, {}).get("built", False) or built}
    return out


def measure(root: Path, loss_steps: int, deps_cache: str | None) -> dict:
    from analysis.parity import check_parity
    from analysis.parity import dependencies as deps

    policy = deps.DependencyPolicy(cache_dir=Path(deps_cache)) if deps_cache else None
    started = time.monotonic()
    report = check_parity(root, loss_steps=loss_steps, timeout_s=600, dependencies=policy)
    seconds = time.monotonic() - started
    entries = report.get("entry_points", [])
    counts = Counter(e["status"] for e in entries)
    known = classes(root)
    checked_classes = {f"{e['module']}:{e['class']}" for e in entries
                       if e["status"] in ("pass", "fail") and not e.get("instance") and not e.get("factory")}
    built = [k for k, v in known.items() if v["built"]]
    return {
        "entries": len(entries), "checked": counts["pass"] + counts["fail"], **dict(counts),
        "classes_defined": len(known), "classes_built": len(built),
        "classes_built_checked": len([k for k in built if k in checked_classes]),
        # which built classes the share leaves out, each with its entries' statuses (issue 26's accounting)
        "built_not_checked": {k: sorted({f"{e['name']}: {e['status']}" for e in entries
                                         if f"{e['module']}:{e['class']}" == k}) for k in built if k not in checked_classes},
        "seconds": round(seconds),
        "report_error": report.get("error"),
        "non_pass": [{"name": e["name"], "module": e["module"], "status": e["status"],
                      "reason": (e.get("reason") or "")[:600]} for e in entries if e["status"] != "pass"],
        "passing": [e["name"] for e in entries if e["status"] == "pass"],
        "chosen_sizes": {e["name"]: e["chosen_sizes"] for e in entries if e.get("chosen_sizes")},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("--fetch", action="store_true")
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--loss-steps", type=int, default=2)
    parser.add_argument("--deps-cache")
    parser.add_argument("--json", type=Path)
    opts = parser.parse_args()
    listing = json.loads(LIST.read_text())
    opts.work.mkdir(parents=True, exist_ok=True)
    if opts.fetch:
        fetch(opts.work, listing["sdists"])
    results = {}
    for item in listing["sdists"] + listing["github"]:
        name = item.get("folder") or f"{item['name']}=={item['version']}"
        if opts.only and not any(o in name for o in opts.only):
            continue
        results[name] = result = measure(tree_of(opts.work, item), opts.loss_steps, opts.deps_cache)
        share = result["classes_built_checked"] / result["classes_built"] if result["classes_built"] else 1.0
        print(f"{name}: {result['entries']} entries, {result['checked']} checked, "
              f"{dict((k, result.get(k, 0)) for k in ('pass', 'fail', 'error', 'skipped', 'torch_fail'))}"
              f"\n  passing {result['passing']}; "
              f"classes defined {result['classes_defined']}, built {result['classes_built']}, "
              f"checked {result['classes_built_checked']} ({share:.0%}); {result['seconds']} s")
        if result["built_not_checked"]:
            print(f"  built, not checked: {result['built_not_checked']}")
        if result["chosen_sizes"]:  # verdicts at sizes the repository names without values
            print(f"  sizes chosen by the checker: {result['chosen_sizes']}")
        for row in result["non_pass"]:
            print(f"    {row['status']:9} {row['name']} ({row['module']}): {row['reason'][:300]}")
        if opts.json:
            opts.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
