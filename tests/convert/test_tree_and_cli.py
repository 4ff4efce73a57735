"""convert_tree and the CLI core on the sample repository (fast: no framework imports)."""
from __future__ import annotations

import io
import json
import multiprocessing
import subprocess
import sys

from analysis.cli import convert as cli
from analysis.convert import convert_tree
from tests.conftest import REPO_ROOT, SAMPLE_REPO


def test_tree_mirrors_source_and_writes_layer_map(tmp_path):
    report = convert_tree(SAMPLE_REPO, tmp_path / "out")
    out = tmp_path / "out"
    assert (out / "README.md").read_text() == (SAMPLE_REPO / "README.md").read_text()
    assert {f.path for f in report.files} == {"models/__init__.py", "models/lenet.py", "models/mlp.py", "train.py"}
    assert "class LeNet(nn.Cell):" in (out / "models" / "lenet.py").read_text()
    layer_map = json.loads((out / ".porting" / "layer_map.json").read_text())
    assert [r["attribute"] for r in layer_map["models.mlp"]["MLP"]][:3] == ["layers", "layers.0", "layers.1"]
    assert layer_map["models.lenet"]["LeNet"][0]["mindspore_api"] == "mindspore.nn.Conv2d"
    summary = json.loads((out / ".porting" / "report.json").read_text())
    assert summary["python_files"] == 4 and summary["parse_errors"] == 0


def test_tree_in_many_files_uses_a_pool_and_gives_the_same_text(tmp_path):
    src = tmp_path / "src"
    for i in range(40):
        (src / f"pkg{i % 4}").mkdir(parents=True, exist_ok=True)
        (src / f"pkg{i % 4}" / f"m{i}.py").write_text(f"import torch\nx{i} = torch.zeros(2)\n")
    serial = convert_tree(src, tmp_path / "a", jobs=1)
    parallel = convert_tree(src, tmp_path / "b", jobs=2)
    assert [f.text for f in serial.files] == [f.text for f in parallel.files]
    assert "ops.zeros(2)" in (tmp_path / "b" / "pkg1" / "m1.py").read_text()


def _convert_in_daemon(src, dst, queue):
    queue.put(convert_tree(src, dst, jobs=2).summary()["python_files"])


def test_tree_works_inside_a_daemonic_process(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for i in range(20):
        (src / f"m{i}.py").write_text("import torch\n")
    queue = multiprocessing.get_context("fork").Queue()
    child = multiprocessing.get_context("fork").Process(
        target=_convert_in_daemon, args=(src, tmp_path / "dst", queue), daemon=True
    )
    child.start()
    child.join(60)
    assert queue.get(timeout=5) == 20


def test_cli_run_converts_a_tree_and_writes_a_report(tmp_path):
    out = io.StringIO()
    code = cli.run({"src": str(SAMPLE_REPO), "out": str(tmp_path / "o"), "report": str(tmp_path / "r.json")}, out)
    assert code == 0
    assert "converted 4 Python file(s)" in out.getvalue()
    assert json.loads((tmp_path / "r.json").read_text())["python_files"] == 4


def test_cli_rejects_bad_input_with_a_message(tmp_path):
    out = io.StringIO()
    assert cli.run({"src": str(tmp_path / "missing"), "out": str(tmp_path / "o")}, out) == 2
    assert "does not exist" in out.getvalue()
    (tmp_path / "notes.txt").write_text("hi")
    out = io.StringIO()
    assert cli.run({"src": str(tmp_path / "notes.txt"), "out": str(tmp_path / "o")}, out) == 2
    assert "neither a .py file nor a directory" in out.getvalue()


def test_cli_module_entry_point_converts_one_file(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "analysis.cli.convert", str(SAMPLE_REPO / "models" / "lenet.py"),
         "--out", str(tmp_path / "lenet.py")],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "def construct(self, x):" in (tmp_path / "lenet.py").read_text()
