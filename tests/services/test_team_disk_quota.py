"""The team disk quota in the stages that write trees (unpack, convert): past the team's room the stage
fails saying so, leaves nothing half-written, and what was stored before stays."""
from __future__ import annotations


import pytest

from porting_site.projects import quota, services, storage
from porting_site.projects.models import Run
from tests import factories

pytestmark = pytest.mark.django_db

NET = b"import torch\nfrom torch import nn\n\n\nclass Net(nn.Module):\n    def forward(self, x):\n" \
      b"        return torch.relu(x)\n"


def _archive(files: dict[str, bytes]) -> bytes:
    return factories.tar_gz_files(files)


@pytest.fixture
def team_project(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PORTING_RUNS_DIR = tmp_path / "runs"
    team, _ = factories.team_with_member("Tight", "tina")
    return team, factories.project(team, "Tight project")


def test_an_upload_that_unpacks_past_the_room_is_refused_at_upload(settings, team_project):
    team, project = team_project
    # 2 MiB of zeros compress to a few KiB: the archive fits, its unpacked tree does not.
    data = _archive({"repo/net.py": NET, "repo/zeros.bin": b"\0" * (2 << 20)})
    settings.PORTING_TEAM_DISK_BYTES = len(data) + (1 << 20)
    with pytest.raises(quota.DiskQuotaExceeded, match="this upload, once unpacked,"):
        services.run_create(project=project, archive=factories.upload("repo.tar.gz", data), enqueue=False)
    assert not Run.objects.filter(project=project).exists()


def test_unpacking_past_the_room_fails_the_run_and_keeps_what_was_stored(settings, team_project):
    team, project = team_project
    data = _archive({"repo/net.py": NET, "repo/zeros.bin": b"\0" * (2 << 20)})
    run = services.run_create(project=project, archive=factories.upload("repo.tar.gz", data), enqueue=False)
    assert Run.objects.get(pk=run.pk).disk_bytes == len(data)  # the stored archive, measured
    settings.PORTING_TEAM_DISK_BYTES = len(data) + (1 << 20)  # the team filled up (or the quota was lowered)
    with pytest.raises(services.StageFailed, match="disk quota") as failed:
        services.run_unpack(run_id=run.pk)
    assert "unpacking this upload" in str(failed.value) and "1.0 MiB left" in str(failed.value)
    assert not storage.source_dir(run.pk).exists()  # nothing half-unpacked
    assert quota.run_disk_measure(run_id=run.pk) == len(data)  # the archive stays


def test_an_upload_past_the_room_is_refused_and_another_team_is_not(settings, team_project):
    team, project = team_project
    data = _archive({"repo/net.py": NET})
    settings.PORTING_TEAM_DISK_BYTES = len(data) * 2 - 1
    services.run_create(project=project, archive=factories.upload("a.tar.gz", data), enqueue=False)
    with pytest.raises(quota.DiskQuotaExceeded, match="this upload needs"):
        services.run_create(project=project, archive=factories.upload("b.tar.gz", data), enqueue=False)
    assert Run.objects.filter(project=project).count() == 1
    other, _ = factories.team_with_member("Other", "otto")
    services.run_create(project=factories.project(other, "Other"), archive=factories.upload("c.tar.gz", data),
                        enqueue=False)
    assert quota.team_disk(team=team).used_bytes == quota.team_disk(team=other).used_bytes == len(data)


def test_a_converted_tree_past_the_room_is_removed_and_the_stage_says_why(settings, team_project):
    team, project = team_project
    data = _archive({"repo/net.py": NET * 200})
    settings.PORTING_TEAM_DISK_BYTES = 10 << 20
    run = services.run_create(project=project, archive=factories.upload("repo.tar.gz", data), enqueue=False)
    services.run_unpack(run_id=run.pk)
    held = quota.run_disk_measure(run_id=run.pk)
    settings.PORTING_TEAM_DISK_BYTES = held + 100  # room for 100 bytes: the converted tree is bigger
    with pytest.raises(services.StageFailed, match="the converted tree needs"):
        services.run_convert(run_id=run.pk)
    assert not storage.converted_dir(run.pk).exists() and run.converted_files.count() == 0
    assert quota.run_disk_measure(run_id=run.pk) == held  # source and archive untouched
