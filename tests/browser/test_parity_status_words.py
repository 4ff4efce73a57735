"""The parity pages in Chromium say a failing original in words: the run page's
table and the entry's page show "original PyTorch code fails" (never torch_fail),
what it means, and the reason the check gave."""
from __future__ import annotations

import pytest
from django.urls import reverse

from porting_site.projects.models import ParityResult
from tests import factories
from tests.api.conftest import make_run
from tests.site import data

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

REASON = ("the original PyTorch forward fails on these inputs, before any conversion: RuntimeError: "
          "mat1 and mat2 shapes cannot be multiplied (2x5 and 4x2)")


def test_a_failing_original_reads_in_words(browser, settings, tmp_path):
    data.use_tmp_storage(settings, tmp_path)
    team, alice = factories.team_with_member("Vision", "alice")
    project = factories.project(team, "Detector")
    run = make_run(project, alice, {}, parity=[
        dict(name="Net", module="pkg.net", status="pass"),
        dict(name="Broken", module="pkg.net", status="torch_fail", reason=REASON)])
    broken = ParityResult.objects.get(run=run, name="Broken")
    browser.login("alice", factories.PASSWORD)

    browser.get(reverse("projects:run", args=[run.pk]) + "#parity")
    badges = [b.text for b in browser.find_all("#parity ~ .table-wrap .badge")]
    assert sorted(badges) == ["original PyTorch code fails", "pass"], badges
    assert "torch_fail" not in browser.find("body").text
    browser.shot("parity-status-words-run")

    browser.get(reverse("projects:parity", args=[run.pk, broken.pk]))
    assert browser.find("h1 .badge").text == "original PyTorch code fails"
    box = browser.find("[data-status-meaning]").text
    assert box.startswith("The repository's own PyTorch code fails on these inputs before any conversion, "
                          "so nothing about the conversion is known.")
    assert "mat1 and mat2 shapes cannot be multiplied" in box
    assert "torch_fail" not in browser.find("body").text
    browser.shot("parity-status-words-entry")
