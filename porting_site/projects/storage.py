"""Where a run's files live on disk: its unpacked source and converted tree."""
from __future__ import annotations

import hashlib
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


def support_imports_path(run_id: int) -> Path:
    """Each file's helper import in the converted tree (convert.tree.support_imports), read by the analysis."""
    return run_dir(run_id) / "support-imports.json"


def kept_conversion_path(run_id: int, rel: str) -> Path:
    """A file's conversion made by the analysis (pickled KeptConversion), which the convert stage writes."""
    return run_dir(run_id) / "conversions" / f"{hashlib.sha256(rel.encode('utf-8', 'surrogatepass')).hexdigest()}.pickle"


def kept_conversions_dir(run_id: int) -> Path:
    return run_dir(run_id) / "conversions"


def checkpoint_dir(run_id: int) -> Path:
    """MindSpore checkpoints of the converted cells, with the PyTorch weights transferred."""
    return run_dir(run_id) / "checkpoints"
