"""The file pages of real code nobody here chose (pytorch-tutorial from ../shared/realworld, or
PORTING_REALWORLD): unpacked, analysed and converted by the real services, then the longest pages
measured in Chromium with what is left shown and with all uses. Skipped where the repo is absent."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.urls import reverse

from porting_site.projects.models import SourceFile
from porting_site.projects.services import run_analyze_batch, run_analyze_finish, run_convert, run_create, run_unpack
from tests import factories
from tests.browser.test_realworld_upload import zipped_folder
from tests.conftest import REPO_ROOT
from tests.site import data

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

REALWORLD = Path(os.environ.get("PORTING_REALWORLD", REPO_ROOT.parent / "shared" / "realworld"))


def test_the_busiest_real_file_pages_stay_readable(browser, settings, tmp_path):
    tutorial = REALWORLD / "pytorch-tutorial"
    if not tutorial.is_dir():
        pytest.skip(f"{tutorial} is absent")
    data.use_tmp_storage(settings, tmp_path)
    team, alice = factories.team_with_member("Vision", "alice")
    archive = factories.upload("pytorch-tutorial.zip", zipped_folder(tutorial, "pytorch-tutorial"))
    run = run_create(project=factories.project(team), archive=archive, user=alice, enqueue=False)
    for batch in run_unpack(run_id=run.pk):
        run_analyze_batch(run_id=run.pk, paths=batch)
    run_analyze_finish(run_id=run.pk)
    run_convert(run_id=run.pk)
    busiest = sorted(SourceFile.objects.filter(run=run), key=lambda f: -f.findings.count())[:3]
    browser.login("alice", factories.PASSWORD)
    for source in busiest:
        found = source.findings.count()
        url = reverse("projects:file", args=[run.pk, source.pk])
        heights = {}
        for show in ("left", "all"):
            browser.get(f"{url}?show={show}")
            heights[show] = browser.driver.execute_script("return document.documentElement.scrollHeight")
            shown = len(browser.find_all("#source .ln > .finding"))
            closed = len(browser.find_all("#source details.done-uses"))
            print(f"{source.path}: {source.lines} lines, {found} findings; show={show}: {shown} open, "
                  f"{closed} lines of done uses closed, {heights[show]} px")
        browser.shot(f"27-real-{Path(source.path).stem}")
        # About one source line of height per line plus two short lines per open finding, with room.
        assert heights["all"] < 400 + 22 * source.lines + 80 * found
