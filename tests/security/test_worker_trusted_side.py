"""A real Celery worker, as root and as an unprivileged user as production
runs it (Dockerfile USER): hostile entry points uploaded through the site
cannot read the worker's secrets from the box's init (/proc/1), and a forged
or patched verdict is stored as an error, never a pass (issue 25). The same
attacks go through the command line in tests/security/test_trusted_side.py."""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from django.urls import reverse

from porting_site.projects.models import ParityResult, Run
from tests import factories
from tests.conftest import worker_database_url
from tests.flows.test_pipeline_e2e import wait_for_run
from tests.processes import WorkerProcess, worker_env
from tests.security.test_trusted_side import CANARIES, TORCH_SIDE, unprivileged_python

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
ENTRIES = ("Forged", "Patched", "Snoop")


@pytest.fixture
def shared_var(settings):
    """A var directory both the root test process and an unprivileged worker can write."""
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root to start the worker as another user, and setpriv")
    var = Path(tempfile.mkdtemp(prefix="porting-var-"))
    os.chmod(var, 0o777)
    settings.MEDIA_ROOT = var / "media"
    settings.PORTING_RUNS_DIR = var / "runs"
    umask = os.umask(0)  # what the site writes here, the worker must read and extend
    try:
        yield var
    finally:
        os.umask(umask)
        shutil.rmtree(var, ignore_errors=True)


@pytest.mark.parametrize("user", [None, "65534"], ids=["root", "nobody"])
def test_worker_keeps_secrets_and_verdicts(client, settings, shared_var, user):
    secrets = {k: v for k, v in CANARIES.items() if k != "DATABASE_URL"}  # the worker needs the real one
    env = worker_env(var_dir=shared_var, database_url=worker_database_url(settings), HOME=str(shared_var),
                     **secrets)
    worker = WorkerProcess(shared_var / "worker", env, broker_url=settings.CELERY_BROKER_URL, user=user,
                           python=unprivileged_python(shared_var) if user else sys.executable)
    worker.start(timeout=120)
    try:
        team, _ = factories.team_with_member("Plain", "nina")
        project = factories.project(team, "NotRoot")
        assert client.login(username="nina", password=factories.PASSWORD)
        tree = shared_var / "repo"
        (tree / "models").mkdir(parents=True)
        (tree / "models" / "__init__.py").write_text("")
        (tree / "models" / "hostile.py").write_text(TORCH_SIDE)
        (tree / "porting.toml").write_text("".join(
            f'[[entry]]\nclass = "models.hostile:{name}"\ninputs = [{{shape = [2, 4]}}]\nloss_steps = 2\n'
            for name in ENTRIES))
        response = client.post(reverse("projects:detail", args=[team.slug, project.slug]), {
            "archive": factories.upload("repo.tar.gz", factories.tar_gz_of(tree, "repo")),
            "target": "classic", "ms_version": "2.4", "device": "cpu"})
        assert response.status_code == 302, response.content[:2000]
        run = wait_for_run(Run.objects.filter(project=project).latest("pk").pk, timeout=900)
    finally:
        worker.stop()
        log = worker.log_tail(200_000)
    assert run.status == Run.Status.DONE, (run.error, log[-3000:])
    results = {r.name: r for r in ParityResult.objects.filter(run=run)}
    assert set(ENTRIES) <= set(results), (sorted(results), log[-3000:])
    assert results["Forged"].status == ParityResult.Status.ERROR, results["Forged"].reason
    assert results["Patched"].status == ParityResult.Status.ERROR, results["Patched"].reason
    snoop = results["Snoop"].reason
    assert "SNOOP" in snoop and '"/proc/1/environ": "error' in snoop, snoop[:1000]
    # Nowhere a user or an operator looks: stored results, API, pages, the worker's log.
    stored = repr(list(ParityResult.objects.filter(run=run).values()))
    api = client.get(reverse("api:run-parity", args=[run.pk])).content.decode()
    pages = [client.get(reverse("projects:run", args=[run.pk])).content.decode()]
    pages += [client.get(reverse("projects:parity", args=[run.pk, r.pk])).content.decode() for r in results.values()]
    for text in [stored, api, log, *pages]:
        assert [k for k, v in secrets.items() if v in text] == []
    for text in [stored, api, *pages]:
        assert worker_database_url(settings) not in text
