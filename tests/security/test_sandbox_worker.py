"""Issue 17's escapes uploaded as a team would: through the form, checked by a
real Celery worker (real Redis, PostgreSQL), whose environment holds secrets.
Each hostile model reports what it managed in its exception, which the run
stores as the entry's reason: so the stored results, the run and parity pages
and the API are where a leak would show.

Also: a worker that cannot build the box refuses, and no user code runs.
"""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from django.urls import reverse

from porting_site.projects import storage
from porting_site.projects.models import ParityResult, Run
from tests import factories
from tests.conftest import SAMPLE_REPO, running_worker, worker_database_url
from tests.flows.test_pipeline_e2e import wait_for_run

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SECRET_KEY = "sk-worker-secret-7c1a9e4b"
HOSTILE = '''
import ctypes, json, os
from pathlib import Path

from torch import nn

OTHER_RUN = {other_run!r}
MARKER = {marker!r}
HERE = Path(__file__).resolve()  # <runs>/<run>/src/models/hostile.py
OWN_CONVERTED = HERE.parents[2] / "converted" / "models"


def _try(fn):
    try:
        return repr(fn())
    except BaseException as exc:
        return f"{{type(exc).__name__}}: {{exc}}"


class Snoop(nn.Module):
    def __init__(self):
        super().__init__()
        pids = [os.getppid(), 1] + sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
        found = {{pid: _try(lambda: open(f"/proc/{{pid}}/environ", "rb").read().decode("latin-1")) for pid in pids}}
        raise RuntimeError("SNOOP " + json.dumps({{"pids": pids, "environ": found, "mine": dict(os.environ)}}))


class Shell(nn.Module):
    def __init__(self):
        super().__init__()
        libc = ctypes.CDLL(None, use_errno=True)
        rc = libc.system(f"touch {{MARKER}}; psql -h /var/run/postgresql -U postgres -c 'select 1'".encode())
        fd = libc.socket(2, 1, 0)
        raise RuntimeError(f"SHELL rc={{rc}} tcp_socket={{fd}} errno={{ctypes.get_errno()}} "
                           f"pgdir={{os.path.exists('/var/run/postgresql')}} marker={{os.path.exists(MARKER)}}")


class Tamper(nn.Module):
    def __init__(self):
        super().__init__()
        read = _try(lambda: open(OTHER_RUN + "/src/models/mlp.py").read())
        listing = _try(lambda: os.listdir(os.path.dirname(OTHER_RUN)))
        plant_other = _try(lambda: open(OTHER_RUN + "/converted/models/planted.py", "w").write("x"))
        plant_own = _try(lambda: open(OWN_CONVERTED / "planted.py", "w").write("import os"))
        raise RuntimeError(f"TAMPER read={{read}} listing={{listing}} other={{plant_other}} own={{plant_own}}")


class Detach(nn.Module):
    def __init__(self):
        super().__init__()
        libc = ctypes.CDLL(None)
        pid = libc.fork()
        if pid == 0:
            libc.setsid()
            libc.sleep(900)
            os._exit(0)
        raise RuntimeError(f"DETACH forked={{pid}}")
'''
ENTRIES = ("Snoop", "Shell", "Tamper", "Detach")


def _upload(client, team, project, tree: Path) -> Run:
    response = client.post(
        reverse("projects:detail", args=[team.slug, project.slug]),
        {"archive": factories.upload("repo.tar.gz", factories.tar_gz_of(tree, "pytorch_sample")),
         "target": "classic", "ms_version": "2.4", "device": "cpu"},
    )
    assert response.status_code == 302, response.content[:2000]
    return Run.objects.filter(project=project).latest("pk")


def _sample_checking_mlp_only(tree: Path) -> Path:
    """The sample repository with its manifest cut to the MLP entry: each entry is a box of its own
    (13-15 s on CI) and these tests assert nothing about LeNet."""
    shutil.copytree(SAMPLE_REPO, tree)
    manifest = tree / "porting.toml"
    head, *entries = manifest.read_text().split("[[entry]]")
    (mlp,) = [entry for entry in entries if '"models.mlp:MLP"' in entry]
    manifest.write_text(head + "[[entry]]" + mlp)
    return tree


def _box_processes(root_pid: int) -> list[int]:
    """Processes under the worker that run the sandbox bootstrap."""
    from analysis.sandbox.core import _process_tree

    found = []
    for pid in _process_tree(root_pid):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if b"analysis.sandbox.child" in fh.read():
                    found.append(pid)
        except OSError:
            pass
    return found


@pytest.fixture
def secret_worker(tmp_path, settings, run_dirs):
    with running_worker(tmp_path, settings, run_dirs, DJANGO_SECRET_KEY=SECRET_KEY) as worker:
        yield worker


def test_hostile_upload_is_contained_by_a_real_worker(client, secret_worker, run_dirs, tmp_path, settings):
    secrets = [SECRET_KEY, worker_database_url(settings), settings.CELERY_BROKER_URL]
    other_team, other = factories.team_with_member("Other", "olga")
    other_project = factories.project(other_team, "Theirs")
    assert client.login(username="olga", password=factories.PASSWORD)
    theirs = wait_for_run(_upload(client, other_team, other_project,
                                  _sample_checking_mlp_only(tmp_path / "theirs")).pk)
    assert theirs.status == Run.Status.DONE, theirs.error
    their_mlp = (storage.source_dir(theirs.pk) / "models" / "mlp.py").read_text()
    their_converted = sorted(p.name for p in (storage.converted_dir(theirs.pk) / "models").iterdir())
    client.logout()

    team, member = factories.team_with_member("Hostile", "mallory")
    project = factories.project(team, "Escape")
    assert client.login(username="mallory", password=factories.PASSWORD)
    tree = _sample_checking_mlp_only(tmp_path / "hostile")
    marker = run_dirs / "pwned"
    (tree / "models" / "hostile.py").write_text(HOSTILE.format(other_run=str(storage.run_dir(theirs.pk)),
                                                               marker=str(marker)))
    with (tree / "porting.toml").open("a") as fh:
        fh.write("".join(f'\n[[entry]]\nclass = "models.hostile:{name}"\ninputs = [{{shape = [2, 4]}}]\n'
                         for name in ENTRIES))
    run = wait_for_run(_upload(client, team, project, tree).pk)
    assert run.status == Run.Status.DONE, run.error
    results = {r.name: r for r in ParityResult.objects.filter(run=run)}
    assert set(ENTRIES) <= set(results), sorted(results)
    reasons = {name: results[name].reason for name in ENTRIES}

    # /proc holds the box's own processes only; no environ reveals a secret.
    assert '"pids": [1, 1, 1, 2]' in reasons["Snoop"], reasons["Snoop"][:500]
    # A shell through libc: no shell, no TCP socket, no PostgreSQL socket, no marker on the host.
    assert "SHELL" in reasons["Shell"] and "rc=0" not in reasons["Shell"] and "tcp_socket=-1" in reasons["Shell"]
    assert "errno=1 " in reasons["Shell"] and "pgdir=False marker=False" in reasons["Shell"], reasons["Shell"]
    assert not marker.exists()
    # The other team's run: not there to read; neither tree writable.
    assert "TAMPER read=FileNotFoundError" in reasons["Tamper"], reasons["Tamper"]
    assert their_mlp[:40] not in reasons["Tamper"]
    assert "own=OSError" in reasons["Tamper"] or "own=PermissionError" in reasons["Tamper"]
    assert sorted(p.name for p in (storage.converted_dir(theirs.pk) / "models").iterdir()) \
        == their_converted
    assert not (storage.converted_dir(run.pk) / "models" / "planted.py").exists()
    # The detached grandchild did fork, and nothing of the box is left under the worker.
    assert "DETACH forked=" in reasons["Detach"] and "forked=-1" not in reasons["Detach"]
    deadline = time.monotonic() + 10
    while _box_processes(secret_worker.process.pid):
        assert time.monotonic() < deadline, "a sandboxed process outlived the parity check"
        time.sleep(0.5)
    # The sample's own models still pass beside the hostile ones.
    assert results["MLP"].status == ParityResult.Status.PASS, results["MLP"].reason

    # No secret anywhere a user can look: stored results, the API, the pages.
    stored = repr(list(ParityResult.objects.filter(run=run).values()))
    api = client.get(reverse("api:run-parity", args=[run.pk]))
    assert api.status_code == 200
    pages = [client.get(reverse("projects:run", args=[run.pk]))]
    pages += [client.get(reverse("projects:parity", args=[run.pk, r.pk])) for r in results.values()]
    assert all(p.status_code == 200 for p in pages)
    for text in [stored, api.content.decode(), *(p.content.decode() for p in pages)]:
        for secret in secrets:
            assert secret not in text


def test_a_worker_without_isolation_refuses_to_run_uploaded_code(client, tmp_path, settings, run_dirs):
    with running_worker(tmp_path, settings, run_dirs, PORTING_SANDBOX_BWRAP=str(tmp_path / "no-bwrap")):
        team, member = factories.team_with_member("Plain", "pat")
        project = factories.project(team, "Refused")
        assert client.login(username="pat", password=factories.PASSWORD)
        tree = tmp_path / "repo"
        shutil.copytree(SAMPLE_REPO, tree)
        marker = run_dirs / "user-code-ran"
        mlp = tree / "models" / "mlp.py"
        mlp.write_text(f"open({str(marker)!r}, 'w').write('ran')\n" + mlp.read_text())
        run = wait_for_run(_upload(client, team, project, tree).pk)
    assert run.status == Run.Status.DONE, run.error  # the rest of the run stands
    results = list(ParityResult.objects.filter(run=run))
    assert results and all(r.status == ParityResult.Status.ERROR for r in results)
    for result in results:
        assert "refused to run uploaded code" in result.reason and "bubblewrap is not installed" in result.reason
    assert not marker.exists()
    api = client.get(reverse("api:run-parity", args=[run.pk]))
    assert b"refused to run uploaded code" in api.content
    page = client.get(reverse("projects:parity", args=[run.pk, results[0].pk]))
    assert b"refused to run uploaded code" in page.content
    assert os.environ.get("PORTING_SANDBOX_BWRAP") is None  # the test process itself was not changed
