"""The site and the workers meet at one place: services queue work through workers.start() and stop it
through workers.revoke(); the tasks import the services inside their bodies. Importing either package
imports nothing of the other, so neither can meet a half-imported module of the other."""
from __future__ import annotations

import ast
import json
import subprocess
import sys

from tests.conftest import REPO_ROOT


def _loaded_after(statement: str) -> list[str]:
    code = ("import json, sys, django\n"
            "django.setup()\n"
            "before = set(sys.modules)\n"
            f"{statement}\n"
            "print(json.dumps(sorted(set(sys.modules) - before)))\n")
    env = {"DJANGO_SETTINGS_MODULE": "porting_site.settings", "PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, env={**env}, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_importing_the_services_imports_no_worker_module():
    loaded = _loaded_after("import porting_site.projects.services, porting_site.projects.kb, porting_site.api.services")
    assert [m for m in loaded if m.split(".")[0] == "workers"] == []


def test_importing_the_workers_imports_no_site_service():
    loaded = _loaded_after("import workers, workers.pipeline, workers.tasks")
    assert [m for m in loaded if m.startswith("porting_site.") and not m.startswith("porting_site.lib")] == []


def test_the_site_reaches_the_workers_through_the_package_only():
    imported = []
    for path in (REPO_ROOT / "porting_site").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported += [(path.name, a.name) for a in node.names if a.name.split(".")[0] == "workers"]
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "workers":
                imported.append((path.name, node.module))
    assert imported and {name for _, name in imported} == {"workers"}, imported
