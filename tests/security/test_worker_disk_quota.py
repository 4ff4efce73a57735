"""A team's disk quota through a real worker (issue 25: "/sandbox and copy-out
sizes capped and counted against the team"). A team near its quota gets its
parity checkpoints kept up to its room and the rest refused with the reason
in the entry (the verdicts stand); its next upload is refused on the page and
in the API with the reason; nothing it had stored is removed; another team
with the same limit is unaffected; and what the stage wrote outside the run's
kept results is gone afterwards."""
from __future__ import annotations

import os

import pytest
from django.urls import reverse

from porting_site.projects import quota, services, storage
from porting_site.projects.models import ParityResult, Run
from tests import factories
from tests.conftest import running_worker
from tests.flows.test_pipeline_e2e import wait_for_run

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

LIMIT = 64 << 20
ROOM_AT_PARITY = 2 << 20  # the full team's room before its run: the small checkpoint fits, the 4 MiB one not
MODELS = b"""import torch
from torch import nn


class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


class Big(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(1024, 1024)

    def forward(self, x):
        return self.fc(x)
"""
MANIFEST = (b'[[entry]]\nclass = "models.nets:Small"\ninputs = [{shape = [2, 4]}]\nloss_steps = 2\n'
            b'[[entry]]\nclass = "models.nets:Big"\ninputs = [{shape = [2, 1024]}]\nloss_steps = 2\n')


def _archive(extra: dict[str, bytes] | None = None) -> bytes:
    files = {"repo/models/__init__.py": b"", "repo/models/nets.py": MODELS, "repo/porting.toml": MANIFEST,
             **(extra or {})}
    return factories.tar_gz_files(files)


def _upload(client, project, data: bytes):
    return client.post(reverse("projects:detail", args=[project.team.slug, project.slug]), {
        "archive": factories.upload("repo.tar.gz", data), "target": "classic", "ms_version": "2.10",
        "device": "cpu"})


def test_a_team_near_its_quota_keeps_what_fits_and_is_told_why(client, settings, run_dirs, tmp_path):
    settings.PORTING_TEAM_DISK_BYTES = LIMIT
    worker_tmp = tmp_path / "worker-tmp"
    worker_tmp.mkdir()
    full_team, member = factories.team_with_member("Full", "fiona")
    roomy_team, _ = factories.team_with_member("Roomy", "rudi")
    full, roomy = factories.project(full_team, "Nearly full"), factories.project(roomy_team, "Plenty")
    # The full team already holds an earlier run: its archive and an unpacked tree filling all but 2 MiB.
    earlier = services.run_create(project=full, archive=factories.upload("old.tar.gz", _archive()),
                                  enqueue=False)
    filler = storage.source_dir(earlier.pk) / "weights.bin"
    filler.parent.mkdir(parents=True)
    filler.write_bytes(b"\0" * (LIMIT - ROOM_AT_PARITY - quota.run_disk_measure(run_id=earlier.pk)))
    assert quota.run_disk_measure(run_id=earlier.pk) == LIMIT - ROOM_AT_PARITY
    big_upload = _archive({"repo/data.bin": os.urandom(3 << 20)})  # incompressible: a 3 MiB archive

    with running_worker(tmp_path, settings, run_dirs, PORTING_TEAM_DISK_BYTES=str(LIMIT),
                        TMPDIR=str(worker_tmp)) as worker:
        assert client.login(username="fiona", password=factories.PASSWORD)
        assert _upload(client, full, _archive()).status_code == 302
        full_run = Run.objects.filter(project=full).latest("pk")
        client.logout()
        assert client.login(username="rudi", password=factories.PASSWORD)
        # The other team, same limit: the 3 MiB upload the full team cannot store is accepted.
        accepted = client.post(reverse("api:project-runs", args=[roomy.pk]),
                               {"archive": factories.upload("repo.tar.gz", big_upload)})
        assert accepted.status_code == 201, accepted.content[:1000]
        roomy_run = wait_for_run(accepted.json()["id"], timeout=900)
        full_run = wait_for_run(full_run.pk, timeout=900)
        log = worker.log_tail(100_000)
    assert full_run.status == Run.Status.DONE, (full_run.error, log[-3000:])
    assert roomy_run.status == Run.Status.DONE, (roomy_run.error, log[-3000:])

    # The full team: the small checkpoint is kept, the big one refused with the reason; both verdicts stand.
    results = {r.name: r for r in ParityResult.objects.filter(run=full_run)}
    assert results["Small"].status == results["Big"].status == ParityResult.Status.PASS, (
        results["Small"].reason, results["Big"].reason)
    small, big = results["Small"].details, results["Big"].details
    assert small.get("checkpoint") and not small.get("checkpoint_refused")
    refused = results["Big"].details.get("checkpoint_refused", "")
    assert "not kept" in refused and "left to this check" in refused, results["Big"].details
    assert "checkpoint" not in results["Big"].details
    kept = sorted(p.name for p in storage.checkpoint_dir(full_run.pk).iterdir())
    assert kept == [results["Small"].details["checkpoint"]]
    stage = full_run.stages.get(name="parity")
    assert "1 checkpoint not kept (the team's disk quota)" in stage.detail
    assert client.logout() is None and client.login(username="fiona", password=factories.PASSWORD)
    page = client.get(reverse("projects:parity", args=[full_run.pk, results["Big"].pk])).content.decode()
    assert "checkpoint not kept" in page
    api = client.get(reverse("api:run-parity", args=[full_run.pk])).json()
    assert any("not kept" in (r["details"].get("checkpoint_refused") or "") for r in api)

    # The other team's big checkpoint is kept: its room was not the full team's.
    roomy_results = {r.name: r for r in ParityResult.objects.filter(run=roomy_run)}
    roomy_big = roomy_results["Big"].details
    assert roomy_big.get("checkpoint") and "checkpoint_refused" not in roomy_big

    # What the team holds is measured from disk, and shown on the project list and in the API.
    on_disk = sum(quota.tree_bytes(storage.run_dir(r.pk)) + os.path.getsize(r.archive.path)
                  for r in Run.objects.filter(project=full))
    usage = client.get(reverse("api:project", args=[full.pk])).json()["team_disk"]
    assert usage == {"used_bytes": on_disk, "limit_bytes": LIMIT, "room_bytes": LIMIT - on_disk}
    assert 0 < usage["room_bytes"] < ROOM_AT_PARITY
    listing = client.get(reverse("projects:list")).content.decode()
    assert "Full: " in listing and "64.0\xa0MB" in listing

    # Its next upload is refused, on the page and in the API, with the reason; nothing stored is lost.
    before = {p: p.stat().st_size for r in Run.objects.filter(project=full)
              for p in storage.run_dir(r.pk).rglob("*") if p.is_file()}
    page = _upload(client, full, big_upload)
    assert page.status_code == 200 and "disk quota" in page.content.decode()
    api = client.post(reverse("api:project-runs", args=[full.pk]),
                      {"archive": factories.upload("repo.tar.gz", big_upload)})
    assert api.status_code == 400 and "disk quota" in api.json()["archive"][0], api.content[:1000]
    assert Run.objects.filter(project=full).count() == 2
    after = {p: p.stat().st_size for r in Run.objects.filter(project=full)
             for p in storage.run_dir(r.pk).rglob("*") if p.is_file()}
    assert after == before and filler.is_file()

    # Nothing the stages wrote outside the runs' kept results: the worker's temporary folder is empty.
    assert list(worker_tmp.iterdir()) == []
