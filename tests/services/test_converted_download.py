"""The converted tree's download carries the support module its files import, also once the
tree on disk is gone (the database copy is what is left then)."""
from __future__ import annotations

import io
import shutil
import zipfile

import pytest
from django.urls import reverse

from porting_site.projects import storage
from porting_site.projects.services import run_analyze_batch, run_analyze_finish, run_convert, run_create, run_unpack
from tests import factories
from tests.site import data

pytestmark = pytest.mark.django_db

MODULE = 'import torch\n\n\ndef mix(a, b):\n    return torch.einsum("ij,jk->ik", a, b)\n'


def _download(client, run) -> zipfile.ZipFile:
    response = client.get(reverse("api:run-converted-zip", args=[run.pk]))
    assert response.status_code == 200
    return zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))


def test_the_zip_has_the_support_module_with_or_without_the_tree_on_disk(settings, tmp_path, client):
    data.use_tmp_storage(settings, tmp_path)
    team, user = factories.team_with_member("Vision", "alice")
    project = factories.project(team, "Mixer")
    archive = factories.upload("m.zip", factories.zip_of({"README.md": b"# mixer\n", "pkg/__init__.py": b"", "pkg/mix.py": MODULE.encode()}))
    run = run_create(project=project, archive=archive, user=user, enqueue=False)
    for batch in run_unpack(run_id=run.pk):
        run_analyze_batch(run_id=run.pk, paths=batch)
    run_analyze_finish(run_id=run.pk)
    run_convert(run_id=run.pk)
    client.force_login(user)

    on_disk = _download(client, run)
    assert "from .ms_support import einsum" in on_disk.read("pkg/mix.py").decode()
    support = on_disk.read("pkg/ms_support.py").decode()
    assert "def einsum(" in support

    shutil.rmtree(storage.converted_dir(run.pk))  # cleaned up: only the database copy is left
    from_db = _download(client, run)
    assert sorted(from_db.namelist()) == ["pkg/__init__.py", "pkg/mix.py", "pkg/ms_support.py"]  # Python files only, as before
    assert from_db.read("pkg/ms_support.py").decode() == support
