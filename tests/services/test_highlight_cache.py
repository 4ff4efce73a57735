"""Big files are highlighted into the disk cache after a run, small ones are not."""
from __future__ import annotations

import pytest

from porting_site.projects.models import SourceFile
from porting_site.projects.services import run_create, run_warm_highlights
from porting_site.projects.source_view import CACHE_MIN_CHARS, _cache_path
from porting_site.projects import storage
from tests import factories

pytestmark = pytest.mark.django_db


def test_big_files_are_highlighted_into_the_cache(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PORTING_RUNS_DIR = tmp_path / "runs"
    team, _ = factories.team_with_member("Team", "alice")
    run = run_create(project=factories.project(team), archive=factories.upload("r.zip", b"PK"), enqueue=False)
    big = "import torch\n" + "x = torch.zeros(3)  # padding line\n" * (CACHE_MIN_CHARS // 30)
    small = "import torch\n"
    src = storage.source_dir(run.pk)
    src.mkdir(parents=True)
    for name, text in (("big.py", big), ("small.py", small)):
        (src / name).write_text(text)
        SourceFile.objects.create(run=run, path=name, sha256="0" * 64, lines=text.count("\n"))

    assert run_warm_highlights(run_id=run.pk) == 1
    assert _cache_path(big).is_file()
    assert not _cache_path(small).exists()
