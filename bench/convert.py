"""Conversion speed on a large real codebase, against libcst's parse-only time, and on
a generated tree of many small files.

    python bench/convert.py [--src DIR] [--jobs N] [--small-files N] [--json OUT]

Without --src it downloads the timm wheel (pip download --no-deps, not installed)
into a temporary directory and unpacks its .py files. In one run it measures:
libcst parse-only time of every file; convert_source over the same files in one
process (files/s, lines/s, ratio to parse-only); convert_tree on the codebase
(parallel); and convert_tree on a generated tree of --small-files small,
realistic files (models, training scripts, data and utility modules).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import libcst as cst  # noqa: E402

from analysis.convert import convert_source, convert_tree  # noqa: E402


def fetch_timm(workdir: Path) -> Path:
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(workdir), "timm"],
                   check=True)
    wheel = next(workdir.glob("timm-*.whl"))
    src = workdir / "src"
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if name.endswith(".py"):
                archive.extract(name, src)
    return src


# -- a tree of small files --------------------------------------------------------------------
MODEL = '''"""Model {i}."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block{i}(nn.Module):
    def __init__(self, channels={c}):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(channels, momentum=0.{m})
        self.drop = nn.Dropout(0.{m})

    def forward(self, x):
        return x + self.drop(F.relu(self.bn(self.conv(x))))


class Net{i}(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, {c}, 3, stride=2), nn.ReLU())
        self.blocks = nn.ModuleList([Block{i}() for _ in range({n})])
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear({c}, classes)

    def forward(self, x):
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        x = self.pool(x).view(x.size(0), -1)
        return self.head(x)
'''
TRAIN = '''import torch
from torch.utils.data import DataLoader, TensorDataset

from models.model_{i} import Net{i}


def train(epochs={n}):
    torch.manual_seed({i})
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    data = TensorDataset(torch.randn(64, 3, 16, 16), torch.randint(0, 10, (64,)))
    loader = DataLoader(data, batch_size=16, shuffle=True)
    model = Net{i}().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    model.train()
    for _ in range(epochs):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
    torch.save(model.state_dict(), "net_{i}.pt")
'''
DATA = '''import numpy as np
import torch
from torch.utils.data import Dataset


class Samples{i}(Dataset):
    def __init__(self, size={c}):
        self.x = np.random.rand(size, 8).astype(np.float32)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        return torch.from_numpy(self.x[index]), index % {n}
'''
UTIL = '''"""Helpers {i} (no torch)."""
import json
import os


def load_config(path, default={n}):
    if not os.path.exists(path):
        return {{"steps": default}}
    with open(path) as handle:
        return json.load(handle)


def scale(values, factor={c}):
    return [v * factor for v in values]
'''
KINDS = (("models", "model_{i}.py", MODEL), ("scripts", "train_{i}.py", TRAIN),
         ("data", "dataset_{i}.py", DATA), ("utils", "util_{i}.py", UTIL))


def small_tree(root: Path, count: int) -> tuple[int, int]:
    """Writes count small files under root; returns (files, lines)."""
    lines = 0
    for k in range(count):
        folder, name, template = KINDS[k % len(KINDS)]
        i = k // len(KINDS)
        text = template.format(i=i, c=8 + i % 24, m=1 + i % 8, n=1 + i % 4)
        path = root / folder / f"pkg_{i // 100}" / name.format(i=i)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        lines += text.count("\n")
    return count, lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--src", default=None)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--small-files", type=int, default=2000)
    parser.add_argument("--json", default=None, help="also write the figures here")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        src = Path(options.src) if options.src else fetch_timm(workdir)
        files = sorted(src.rglob("*.py"))
        texts = [p.read_text(encoding="utf-8", errors="replace") for p in files]
        lines = sum(t.count("\n") for t in texts)

        started = time.perf_counter()
        for text in texts:
            cst.parse_module(text)
        parse_s = time.perf_counter() - started

        started = time.perf_counter()
        results = [convert_source(t, path=str(p.relative_to(src))) for p, t in zip(files, texts)]
        convert_s = time.perf_counter() - started

        started = time.perf_counter()
        convert_tree(src, workdir / "out", jobs=options.jobs)
        tree_s = time.perf_counter() - started

        small_src = workdir / "small"
        small_files, small_lines = small_tree(small_src, options.small_files)
        started = time.perf_counter()
        small = convert_tree(small_src, workdir / "small_out", jobs=options.jobs)
        small_s = time.perf_counter() - started

    figures = {
        "codebase": options.src or "timm (wheel from PyPI)",
        "cpus": os.cpu_count(),
        "files": len(files),
        "lines": lines,
        "parse_only_s": round(parse_s, 2),
        "convert_source_s": round(convert_s, 2),
        "convert_source_files_per_s": round(len(files) / convert_s, 1),
        "convert_source_lines_per_s": round(lines / convert_s),
        "ratio_to_parse": round(convert_s / parse_s, 2),
        "convert_tree_s": round(tree_s, 2),
        "convert_tree_files_per_s": round(len(files) / tree_s, 1),
        "changes": sum(len(r.changes) for r in results),
        "unconverted": sum(len(r.unconverted) for r in results),
        "failed_files": sum(1 for r in results if r.unconverted and r.unconverted[0].rule_id == "MS-PARSE-ERROR"),
        "small_tree_files": small_files,
        "small_tree_lines": small_lines,
        "small_tree_s": round(small_s, 2),
        "small_tree_files_per_s": round(small_files / small_s, 1),
        "small_tree_changes": sum(len(r.changes) for r in small.files),
    }
    print(json.dumps(figures, indent=2))
    if options.json:
        Path(options.json).write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
