"""New projects and runs target the MindSpore release the parity workers run."""
from __future__ import annotations

import re

from porting_site.projects.forms import UploadForm
from porting_site.projects.models import MINDSPORE_VERSION, Project, Run
from tests.conftest import REPO_ROOT


def test_default_mindspore_version_is_the_pinned_one():
    pinned = re.search(r'"mindspore==([0-9.]+)"', (REPO_ROOT / "pyproject.toml").read_text()).group(1)
    assert pinned.startswith(MINDSPORE_VERSION + ".")
    assert Project._meta.get_field("ms_version").default == MINDSPORE_VERSION
    assert Run._meta.get_field("ms_version").default == MINDSPORE_VERSION
    assert UploadForm().fields["ms_version"].initial == MINDSPORE_VERSION
