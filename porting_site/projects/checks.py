"""System check: can this host isolate uploaded model code?

Parity runs user code only inside the bubblewrap box (analysis.sandbox); where
the box cannot be built it refuses, run by run. This check says so up front,
in `manage.py check` (and before runserver or migrate), with what to fix. A warning,
not an error: the web server and the analysis workers never run user code
and need not be able to build the box.
"""
from __future__ import annotations

import sys

from django.core import checks


@checks.register()
def parity_sandbox_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    from analysis.sandbox import isolation_problem

    problem = isolation_problem(sys.executable)
    if not problem:
        return []
    return [checks.Warning(
        f"The parity sandbox cannot be built on this host: {problem}.",
        hint="Parity checks will refuse to run uploaded code here. Install bubblewrap and libseccomp2, and let "
             "the parity worker create user namespaces (docker-compose.yml shows the container settings).",
        id="projects.W001",
    )]
