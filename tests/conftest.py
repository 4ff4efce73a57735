"""Suite-wide fixtures.

MindSpore writes rank_0/ folders (logs, graphs) into the working directory, so
the whole session runs from a temporary directory; tests use absolute paths
(REPO_ROOT, SAMPLE_REPO) for the project's own files.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SAMPLE_REPO = REPO_ROOT / "samples" / "pytorch_sample"


@pytest.fixture(scope="session", autouse=True)
def _session_cwd(tmp_path_factory):
    previous = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("cwd"))
    yield
    os.chdir(previous)
