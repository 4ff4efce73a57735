"""Issue 16's proof on the realworld repositories: convert each training script, run the original with
PyTorch and the conversion with MindSpore on the same synthetic data for a few steps, and tabulate
the first losses and the markers left. Used by tests/convert/test_training_realworld.py; run directly
(`python -m tests.convert.realworld.proof [REALWORLD_DIR]`) it prints the README table."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from analysis.convert import convert_tree

from . import make_data

HERE = Path(__file__).parent
SHIM = HERE / "reference_shim"  # torchvision for the PyTorch side (the PyPI wheel does not import here)
LIBRARIES = HERE / "library_shim"  # third-party libraries a script imports, the same on both sides
REALWORLD = Path(os.environ.get("REALWORLD_DIR", "/work/shared/realworld"))
T = "pytorch-tutorial/tutorials"
# (script, its folder's data, command-line options the script itself reads)
NANO_ARGS = ["--dataset=tokens", "--device=cpu", "--compile=False", "--dtype=float32", "--batch_size=4",
             "--block_size=32", "--n_layer=2", "--n_head=2", "--n_embd=32", "--max_iters=4", "--eval_interval=1000",
             "--eval_iters=1", "--log_interval=1", "--gradient_accumulation_steps=1", "--always_save_checkpoint=False"]
SCRIPTS = [
    (f"{T}/01-basics/linear_regression/main.py", []),
    (f"{T}/01-basics/logistic_regression/main.py", []),
    (f"{T}/01-basics/feedforward_neural_network/main.py", []),
    (f"{T}/01-basics/pytorch_basics/main.py", []),
    (f"{T}/02-intermediate/convolutional_neural_network/main.py", []),
    (f"{T}/02-intermediate/recurrent_neural_network/main.py", []),
    (f"{T}/02-intermediate/bidirectional_recurrent_neural_network/main.py", []),
    (f"{T}/02-intermediate/deep_residual_network/main.py", []),
    (f"{T}/02-intermediate/language_model/main.py", []),
    (f"{T}/03-advanced/generative_adversarial_network/main.py", []),
    (f"{T}/03-advanced/variational_autoencoder/main.py", []),
    (f"{T}/03-advanced/neural_style_transfer/main.py", []),
    (f"{T}/03-advanced/image_captioning/train.py", []),
    (f"{T}/04-utils/tensorboard/main.py", []),
    ("nanoGPT/train.py", NANO_ARGS),
]


@dataclass
class Row:
    script: str
    torch: dict = field(default_factory=dict)
    mindspore: dict = field(default_factory=dict)
    markers: int = 0
    marker_lines: list[str] = field(default_factory=list)

    @property
    def unmodified(self) -> bool:
        return bool(self.mindspore.get("losses")) and not self.mindspore["status"].startswith("error")


def _workdir(base: Path, script: str, source_root: Path, data: Path) -> Path:
    """A copy of the script's folder where its relative paths find the synthetic data: ../../data
    (the tutorials' MNIST root) and data/train.txt beside it; nanoGPT runs in its own folder."""
    folder = source_root / Path(script).parent
    if script.startswith("nanoGPT"):
        work = base / "nanoGPT"
        shutil.copytree(folder, work)
        shutil.copytree(data / "tokens", work / "data" / "tokens")
        return work
    work = base / "a" / "b"
    shutil.copytree(folder, work)
    (base / "data").symlink_to(data)
    (work / "data").mkdir(exist_ok=True)
    shutil.copy(data / "train.txt", work / "data" / "train.txt")
    return work


def _run(framework: str, script: str, source_root: Path, data: Path, args: list[str], steps: int,
         timeout: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        work = _workdir(Path(tmp), script, source_root, data)
        out = Path(tmp) / "out.json"
        env = {**os.environ, "GLOG_v": "3", "PYTHONWARNINGS": "ignore", "MPLBACKEND": "Agg",
               "PYTHONPATH": os.pathsep.join([str(SHIM), str(LIBRARIES)] if framework == "torch" else [str(LIBRARIES)])}
        target = work / Path(script).name
        try:
            proc = subprocess.run([sys.executable, str(HERE / "run_script.py"), framework, str(target), str(out),
                                   str(steps), *args], cwd=work, env=env, capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"losses": [], "status": f"error: timed out after {timeout}s"}
        if not out.exists():
            return {"losses": [], "status": f"error: runner failed: {proc.stderr[-400:]}"}
        return json.loads(out.read_text())


def prove(realworld: Path = REALWORLD, steps: int = 6, timeout: int = 300, only: list[str] | None = None) -> list[Row]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        data = tmp / "data"
        make_data.mnist(data)
        make_data.text(data / "train.txt")
        make_data.tokens(data / "tokens")
        converted = tmp / "converted"
        report = convert_tree(realworld, converted, jobs=1)
        results = {r.path: r for r in report.files}
        for script, args in SCRIPTS:
            if only and not any(o in script for o in only):
                continue
            row = Row(script)
            result = results[script]
            helpers = [r for p, r in results.items() if p != script and Path(p).parent == Path(script).parent]
            row.markers = len(result.unconverted) + sum(len(h.unconverted) for h in helpers)
            row.marker_lines = [f"{u.line}: {u.rule_id} {u.torch_api}" for u in result.unconverted]
            row.torch = _run("torch", script, realworld, data, args, steps, timeout)
            row.mindspore = _run("mindspore", script, converted, data, args, steps, timeout)
            rows.append(row)
    return rows


def table(rows: list[Row]) -> str:
    def losses(side: dict) -> str:
        values = side.get("losses", [])[:3]
        shown = ", ".join(f"{v:.3f}" for v in values) or "-"
        return shown if not side.get("status", "").startswith("error") else f"{shown} (error)"

    lines = ["| script | runs unmodified? | first losses, PyTorch | first losses, MindSpore | markers left |",
             "|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| `{row.script.replace(T + '/', '')}` | {'yes' if row.unmodified else 'no'} | "
                     f"{losses(row.torch)} | {losses(row.mindspore)} | {row.markers} |")
    return "\n".join(lines)


if __name__ == "__main__":
    found = prove(Path(sys.argv[1]) if len(sys.argv) > 1 else REALWORLD, only=sys.argv[2:] or None)
    print(table(found))
    for row in found:
        print(row.script, "| torch:", row.torch.get("status"), "| mindspore:", row.mindspore.get("status"))
        for line in row.marker_lines:
            print("    ", line)
