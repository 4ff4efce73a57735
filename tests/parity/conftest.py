"""Shared fixtures of the parity tests: the hand-written PyTorch repo, its
hand-converted MindSpore twin, and wrong twins made by editing one line."""
from __future__ import annotations

import shutil
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TORCH_REPO = FIXTURES / "torch_repo"
MS_REPO = FIXTURES / "ms_repo"


def edited_twin(tmp: Path, name: str, file: str, *edits: tuple[str, str]) -> Path:
    """A copy of the correct MindSpore twin with hand edits (the bug)."""
    target = tmp / name
    shutil.copytree(MS_REPO, target)
    path = target / file
    text = path.read_text()
    for old, new in edits:
        assert old in text, f"fixture edit {name}: {old!r} not found in {file}"
        text = text.replace(old, new, 1)
    path.write_text(text)
    return target


def manifest_for(tmp: Path, name: str, body: str) -> Path:
    path = tmp / f"{name}.toml"
    path.write_text(body)
    return path
