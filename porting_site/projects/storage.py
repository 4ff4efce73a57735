"""Where a run's files live on disk: its unpacked source and converted tree."""
from __future__ import annotations

from pathlib import Path

from django.conf import settings


def run_dir(run_id: int) -> Path:
    return Path(settings.PORTING_RUNS_DIR) / str(run_id)


def source_dir(run_id: int) -> Path:
    return run_dir(run_id) / "src"


def converted_dir(run_id: int) -> Path:
    return run_dir(run_id) / "converted"


def index_path(run_id: int) -> Path:
    return run_dir(run_id) / "project-index.pickle"


def checkpoint_dir(run_id: int) -> Path:
    """MindSpore checkpoints of the converted cells, with the PyTorch weights transferred."""
    return run_dir(run_id) / "checkpoints"
