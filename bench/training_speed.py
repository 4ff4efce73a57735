"""Step time of converted training scripts against their PyTorch originals, on CPU.

    python bench/training_speed.py [--steps N] [--repeat N] [--only NAME ...] [--json OUT] [--converter DIR] [--threads N]
    python bench/training_speed.py --table BEFORE.json AFTER.json   (the README's table)

Each script is converted (analysis.convert.convert_tree) and run unmodified on both sides, one after
the other, on the same synthetic data (tests/convert/realworld: MNIST files, a text corpus, nanoGPT
tokens), through tests/convert/realworld/run_script.py, which records the time of every loss. A
script's step time is the median gap between consecutive losses after the first --warmup steps (the
first steps pay for compilation on the MindSpore side and for lazy initialisation on both); the
time to the last loss from the first, compilation included, is reported beside it, and so is the
median step in the process's CPU time (less sensitive to other work on a shared machine). Scripts: the
realworld training scripts that train unmodified (needs /work/shared/realworld or REALWORLD_DIR) and
bench/training_scripts (a CNN, the same CNN with a loop setting its param groups' lr, a GRU seq2seq, a GAN whose
generated batch feeds both losses).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
if "--converter" in sys.argv:  # another checkout's converter (the baseline: `git archive main analysis`)
    sys.path.insert(0, sys.argv[sys.argv.index("--converter") + 1])

from analysis.convert import convert_tree  # noqa: E402
from tests.convert.realworld import make_data, proof  # noqa: E402

OWN = ROOT / "bench" / "training_scripts"
T = proof.T
REALWORLD_SCRIPTS = [
    f"{T}/01-basics/linear_regression/main.py",
    f"{T}/01-basics/logistic_regression/main.py",
    f"{T}/01-basics/feedforward_neural_network/main.py",
    f"{T}/02-intermediate/convolutional_neural_network/main.py",
    f"{T}/02-intermediate/recurrent_neural_network/main.py",
    f"{T}/02-intermediate/bidirectional_recurrent_neural_network/main.py",
    f"{T}/02-intermediate/language_model/main.py",
    f"{T}/03-advanced/generative_adversarial_network/main.py",
    f"{T}/03-advanced/variational_autoencoder/main.py",
    "nanoGPT/train.py",
]


def _nano_args(steps: int) -> list[str]:
    return [a if not a.startswith("--max_iters=") else f"--max_iters={steps + 2}" for a in proof.NANO_ARGS]


def run(framework: str, script: Path, work: Path, args: list[str], steps: int, timeout: int) -> dict:
    out = work.parent / f"out-{framework}.json"
    env = {**os.environ, "GLOG_v": "3", "PYTHONWARNINGS": "ignore", "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join([str(proof.SHIM), str(proof.LIBRARIES)] if framework == "torch"
                                         else [str(proof.LIBRARIES)])}
    started = time.perf_counter()
    try:
        subprocess.run([sys.executable, str(proof.HERE / "run_script.py"), framework, str(script), str(out),
                        str(steps), *args], cwd=work, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"losses": [], "times": [], "status": f"error: timed out after {timeout}s"}
    if not out.exists():
        return {"losses": [], "times": [], "status": "error: no result"}
    result = json.loads(out.read_text())
    result["wall_s"] = time.perf_counter() - started
    return result


def step_time(times: list[float], warmup: int) -> float | None:
    gaps = [b - a for a, b in zip(times[warmup:], times[warmup + 1:])]
    return statistics.median(gaps) if gaps else None


def measure(name: str, original: Path, converted: Path, workdir, args: list[str], steps: int, warmup: int,
            timeout: int, repeat: int = 1) -> dict:
    """One row: both sides run `repeat` times, alternating (PyTorch, then the conversion). A short step
    swings by 2x between identical runs on a shared machine: each pair gives a ratio, and the row reports
    the median pair's figures with the lowest and highest ratio beside them."""
    pairs = [_pair(original, converted, workdir, args, steps, warmup, timeout) for _ in range(repeat)]
    ranked = sorted(pairs, key=lambda p: p["ratio"] if p["ratio"] is not None else float("inf"))
    row = {"script": name, **ranked[(len(ranked) - 1) // 2]}
    if repeat > 1:
        ratios = [p["ratio"] for p in pairs if p["ratio"] is not None]
        cpu = [p["cpu_ratio"] for p in pairs if p["cpu_ratio"] is not None]
        row["repeats"] = {"ratios": ratios, "cpu_ratios": cpu,
                          "median_ratio": statistics.median(ratios) if ratios else None,
                          "median_cpu_ratio": statistics.median(cpu) if cpu else None}
        row["ratio"], row["cpu_ratio"] = row["repeats"]["median_ratio"], row["repeats"]["median_cpu_ratio"]
    return row


def _pair(original: Path, converted: Path, workdir, args: list[str], steps: int, warmup: int, timeout: int) -> dict:
    row = {}
    for framework, source in (("torch", original), ("mindspore", converted)):
        with tempfile.TemporaryDirectory() as tmp:
            work = workdir(Path(tmp), source)
            result = run(framework, work / source.name, work, args, steps, timeout)
        times = result.get("times", [])
        row[framework] = {"status": result["status"], "losses": result["losses"][:5],
                          "step_s": step_time(times, warmup),
                          "cpu_step_s": step_time(result.get("cpu_times", []), warmup),
                          "first_to_last_s": times[-1] - times[0] if len(times) > 1 else None,
                          "steps": len(times), "wall_s": result.get("wall_s")}
    ours, theirs = row["mindspore"]["step_s"], row["torch"]["step_s"]
    row["ratio"] = ours / theirs if ours and theirs else None
    ours, theirs = row["mindspore"]["cpu_step_s"], row["torch"]["cpu_step_s"]
    row["cpu_ratio"] = ours / theirs if ours and theirs else None
    return row


def table(before: dict, after: dict) -> str:
    """Markdown rows: per script, PyTorch's step and the converted step before and after, wall and CPU."""
    old = {r["script"]: r for r in before["rows"]}
    lines = ["| script | PyTorch step (wall / CPU) | converted before: ratio wall / CPU | converted now: step (wall / CPU) | now: ratio wall / CPU |",
             "|---|---|---|---|---|"]
    for row in after["rows"]:
        prev = old.get(row["script"], {})
        t, m = row["torch"], row["mindspore"]

        def ratio(r: dict) -> str:
            if not r.get("ratio"):
                side = r.get("mindspore", {}).get("status", "not run")
                return "fails: " + side.split("|")[0].replace("error: ", "")[:60] if side.startswith("error") else "-"
            return f"{r['ratio']:.2f}x / {r['cpu_ratio']:.2f}x" if r.get("cpu_ratio") else f"{r['ratio']:.2f}x / -"
        lines.append(f"| `{row['script']}` | {_ms(t['step_s']).strip()} / {_ms(t['cpu_step_s']).strip()} | {ratio(prev)} | "
                     f"{_ms(m['step_s']).strip()} / {_ms(m['cpu_step_s']).strip()} | {ratio(row)} |")
    return "\n".join(lines)


def main() -> None:
    if sys.argv[1:2] == ["--table"]:
        print(table(json.loads(Path(sys.argv[2]).read_text()), json.loads(Path(sys.argv[3]).read_text())))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--timeout", type=int, default=400)
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--json")
    parser.add_argument("--repeat", type=int, default=1,
                        help="run each script's pair this many times, alternating sides; report the median pair's ratio")
    parser.add_argument("--converter", help="a folder holding the analysis package to convert with")
    parser.add_argument("--threads", type=int, default=0,
                        help="CPU threads of both sides (torch.set_num_threads, MindSpore's runtime_num_threads); "
                             "0 keeps each framework's default")
    opts = parser.parse_args()
    if opts.threads:
        os.environ["RUN_THREADS"] = str(opts.threads)  # read by run_script.py on both sides
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        data = tmp / "data"
        make_data.MNIST_TRAIN = 100 * (opts.steps + 4)  # the tutorials' batches hold 100 images
        make_data.mnist(data)
        make_data.text(data / "train.txt", lines=40 * (opts.steps + 4))
        make_data.tokens(data / "tokens")
        jobs = []
        if proof.REALWORLD.is_dir():
            convert_tree(proof.REALWORLD, tmp / "realworld", jobs=1)
            for script in REALWORLD_SCRIPTS:
                def workdir(base: Path, source: Path, script=script) -> Path:
                    root = proof.REALWORLD if str(source).startswith(str(proof.REALWORLD)) else tmp / "realworld"
                    return proof._workdir(base, script, root, data)
                args = _nano_args(opts.steps) if script.startswith("nanoGPT") else []
                jobs.append((script.replace(T + "/", ""), proof.REALWORLD / script, tmp / "realworld" / script,
                             workdir, args))
        convert_tree(OWN, tmp / "own", jobs=1)
        for source in sorted(OWN.glob("*.py")):
            def own_dir(base: Path, script: Path) -> Path:
                work = base / "work"
                work.mkdir()
                shutil.copy(script, work / script.name)
                for support in script.parent.glob("ms_support*.py"):  # the converted script's helpers
                    shutil.copy(support, work / support.name)
                return work
            jobs.append((f"bench/{source.name}", source, tmp / "own" / source.name, own_dir, []))
        for name, original, converted, workdir, args in jobs:
            if opts.only and not any(o in name for o in opts.only):
                continue
            row = measure(name, original, converted, workdir, args, opts.steps, opts.warmup, opts.timeout, opts.repeat)
            rows.append(row)
            t, m = row["torch"], row["mindspore"]
            print(f"{name:55s} torch {_ms(t['step_s'])}  mindspore {_ms(m['step_s'])}  ratio {row['ratio']:.2f}x"
                  f"  (CPU time {_ms(t['cpu_step_s'])} / {_ms(m['cpu_step_s'])}: {row['cpu_ratio'] or 0:.2f}x)"
                  + (f"  ratios {', '.join(f'{r:.2f}' for r in row['repeats']['ratios'])}" if "repeats" in row else "")
                  if row["ratio"] else f"{name:55s} torch {t['status'][:80]} | mindspore {m['status'][:200]}",
                  flush=True)
    ratios = [r["ratio"] for r in rows if r["ratio"]]
    cpu = [r["cpu_ratio"] for r in rows if r["cpu_ratio"]]
    summary = {"scripts": len(rows), "measured": len(ratios),
               "median_ratio": statistics.median(ratios) if ratios else None,
               "max_ratio": max(ratios) if ratios else None,
               "median_cpu_ratio": statistics.median(cpu) if cpu else None,
               "max_cpu_ratio": max(cpu) if cpu else None, "steps": opts.steps, "warmup": opts.warmup, "repeat": opts.repeat, "threads": opts.threads or "defaults",
               "load_average": os.getloadavg()}
    import analysis
    summary["converter"] = str(Path(analysis.__file__).parent)
    print(json.dumps(summary))
    if opts.json:
        Path(opts.json).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1) + "\n")


def _ms(seconds: float | None) -> str:
    return f"{seconds * 1000:8.1f} ms" if seconds else "       -   "


if __name__ == "__main__":
    main()
