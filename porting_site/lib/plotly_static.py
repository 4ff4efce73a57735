"""plotly.min.js (4.8 MB) served small and cached: a copy with a gzip twin under a versioned folder.

The pinned plotly package ships the script uncompressed. A copy of it and its
gzip-compressed twin go into VAR_DIR once per plotly version; WhiteNoise serves
the twin to every browser that accepts gzip (about a fifth of the bytes), and
because the folder's name carries the version, the file never changes under its
URL and can be cached for a year (see WHITENOISE_IMMUTABLE_FILE_TEST in settings).
"""
from __future__ import annotations

import gzip
import os
import tempfile
from pathlib import Path

import plotly

VERSION = plotly.__version__
PREFIX = f"plotly-{VERSION}"  # the static URL prefix: plotly-<version>/plotly.min.js
SCRIPT = f"{PREFIX}/plotly.min.js"


def _write_atomically(target: Path, data: bytes) -> None:
    # Several processes (web, workers) may start at once: never leave a half-written file.
    handle, temp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
    with os.fdopen(handle, "wb") as out:
        out.write(data)
    os.chmod(temp, 0o644)  # mkstemp makes it private; the web server may run as another user
    os.replace(temp, target)


def plotly_static_dir(var_dir: Path) -> Path:
    """The folder holding plotly.min.js and plotly.min.js.gz for this plotly version (made once)."""
    source = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    folder = Path(var_dir) / "static" / PREFIX
    script, twin = folder / "plotly.min.js", folder / "plotly.min.js.gz"
    try:
        if script.is_file() and twin.is_file() and script.stat().st_size == source.stat().st_size:
            return folder
        folder.mkdir(parents=True, exist_ok=True)
        data = source.read_bytes()
        _write_atomically(twin, gzip.compress(data, compresslevel=9, mtime=0))
        _write_atomically(script, data)
    except OSError:  # a read-only VAR_DIR: serve the package's own copy, uncompressed
        return source.parent
    return folder
