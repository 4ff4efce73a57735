"""Where an interpreter keeps what it needs to start and import its packages.

Imported by the parent for its own interpreter, and run as a script
(`python -I pyinfo.py`) for another one, printing JSON.
"""
from __future__ import annotations

import glob
import json
import os
import sys
import sysconfig


def interpreter_paths() -> list[str]:
    paths = [os.path.realpath(sys.executable), sys.executable]
    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}:
        # A prefix of its own (a venv, /usr/local, pyenv's versions/X.Y) goes whole; /usr or / only in parts.
        if prefix not in ("/", "/usr"):
            paths.append(prefix)
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        paths.append(sysconfig.get_paths()[key])
    libdir = sysconfig.get_config_var("LIBDIR")
    if libdir and sysconfig.get_config_var("Py_ENABLE_SHARED"):
        paths.extend(glob.glob(os.path.join(libdir, "libpython3*.so*")))
    paths.extend(p for p in sys.path if p and os.path.isdir(p) and "-packages" in p)
    return [p for p in dict.fromkeys(paths) if p and os.path.exists(p)]


if __name__ == "__main__":
    print(json.dumps(interpreter_paths()))
