"""Issue #19, as a new user meets it: a zipped folder of public example scripts
(pytorch-tutorial, from ../shared/realworld) uploaded in Chromium, with a real
worker. The browser lands on the run's live progress; the figures agree on the
run page, the file list, the diff, the API and the CI client; the diff fills the
window; bulk "Assign to" changes rows; the gate, which counts only what is left
for a person, passes once that is marked; the SARIF validates with the marks as
suppressions. Screenshots go to test-artifacts/realworld-*.png.

Skipped where ../shared/realworld/pytorch-tutorial is absent: the product never
needs it, only this test does.
"""
from __future__ import annotations

import io
import json
import os
import re
import zipfile
from pathlib import Path

import jsonschema
import pytest
from django.urls import reverse
from selenium.webdriver.support.expected_conditions import staleness_of
from selenium.webdriver.support.ui import WebDriverWait

from porting_site.accounts.services import membership_add
from porting_site.api.tokens import token_create
from porting_site.projects.models import Finding, Run
from tests import factories
from tests.api.test_ci_client import load_client
from tests.conftest import REPO_ROOT

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True), pytest.mark.timeout(1800)]

# PORTING_REALWORLD: where ../shared/realworld is for a checkout that has it elsewhere (as in
# test_realworld_file_pages.py)
TUTORIAL = Path(os.environ.get("PORTING_REALWORLD", REPO_ROOT.parent / "shared" / "realworld")) / "pytorch-tutorial"
SARIF_SCHEMA = REPO_ROOT / "tests" / "analysis" / "data" / "sarif-schema-2.1.0.json"


def zipped_folder(root, name: str) -> bytes:
    """What a user gets from "compress folder": every file under one top-level folder."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(root.rglob("*")):
            rel = path.relative_to(root)
            if path.is_file() and not {".git", "__pycache__"} & set(rel.parts):
                archive.write(path, f"{name}/{rel.as_posix()}")
    return buffer.getvalue()


@pytest.fixture
def tutorial_worker(tmp_path, settings, run_dirs):
    """A real worker; parity bounded so a slow shared machine still finishes (the figures are what matter)."""
    from tests.conftest import running_worker

    with running_worker(tmp_path, settings, run_dirs, PORTING_PARITY_TIMEOUT_S="240",
                        PORTING_PARITY_LOSS_STEPS="5") as worker:
        yield worker


def _int(text: str) -> int:
    return int(re.search(r"-?[0-9]+", text).group(0))


def test_realworld_upload_counts_gate_diff_assign_and_sarif(browser, tutorial_worker, live_server, tmp_path):
    if not TUTORIAL.is_dir():
        pytest.skip(f"{TUTORIAL} is not here (only this test uses ../shared)")
    team, alice = factories.team_with_member("Vision", "alice")
    membership_add(team=team, user=factories.user("bob"), role="member")
    project = factories.project(team, "Tutorial")
    archive = tmp_path / "pytorch-tutorial.zip"
    archive.write_bytes(zipped_folder(TUTORIAL, "pytorch-tutorial"))

    # Upload: the browser lands on the run's live progress, not the project page.
    browser.login("alice", factories.PASSWORD)
    browser.get(reverse("projects:detail", args=[team.slug, project.slug]))
    assert browser.find("#id_ms_version").get_attribute("value") == "2.10"
    browser.find("#id_archive").send_keys(str(archive))
    browser.find("#upload-form button[type=submit]").click()
    browser.wait_until(lambda: "/runs/" in browser.driver.current_url, timeout=120)
    run = Run.objects.get(project=project)
    assert browser.driver.current_url.endswith(reverse("projects:run", args=[run.pk]))
    assert browser.find_all("#progress .stage")
    browser.shot("realworld-01-run-live")
    browser.wait_until(lambda: browser.find("#run-status").text in ("Done", "Failed"), timeout=1500, poll=2)
    run.refresh_from_db()
    assert run.status == Run.Status.DONE, run.error
    browser.wait_for(".stats .stat", timeout=30)
    browser.shot("realworld-02-run-done")

    # The gate counts only what is left for a person, and says so.
    gate = browser.find("#quality-gate").text
    left_errors = Finding.objects.filter(run=run, severity="error").exclude(status="converted").count()
    converted_errors = Finding.objects.filter(run=run, severity="error", status="converted").count()
    assert "Quality gate: Failed" in gate and f"{left_errors} new error finding(s) left for a person" in gate
    if converted_errors:
        assert f"{converted_errors} converted automatically" in gate
    assert "count what is left for a person" in browser.find("#gate-scope").text

    # One definition per count: run page, file list, API, CI client.
    page_left = _int(browser.find('.progress-figures [data-figure="left"], [data-figure="left"]').text)
    parity_page = (_int(browser.find('[data-figure="parity_pass"]').text),
                   _int(browser.find('[data-figure="parity_total"]').text))
    _, key = token_create(user=alice, name="ci")
    api = load_client().Api(live_server.url, key)
    detail = api.request("GET", f"runs/{run.pk}/")
    assert detail["progress"]["left"] == page_left
    assert (detail["progress"]["parity_pass"], detail["progress"]["parity_total"]) == parity_page
    summary = io.StringIO()
    load_client().print_summary(detail, {"team": team.slug, "slug": project.slug}, live_server.url, summary)
    assert f"{page_left} left for a person" in summary.getvalue()
    assert f"parity: {parity_page[0]}/{parity_page[1]} entry points pass" in summary.getvalue()
    stage = browser.find('[data-stage="parity"] .detail').text
    assert stage.startswith(f"{parity_page[0]}/{parity_page[1]} entry points pass"), stage
    browser.get(reverse("projects:files", args=[run.pk]))
    column = [_int(td.text) for td in browser.find_all('table.files td[data-figure="left"]')]
    assert sum(column) == page_left
    browser.shot("realworld-03-files")

    # The diff of the file with the most left fills the window; its "left" is the file's.
    rows = browser.find_all("table.files tbody tr")
    busiest = max(rows, key=lambda tr: _int(tr.find_element("css selector", 'td[data-figure="left"]').text))
    file_left = _int(busiest.find_element("css selector", 'td[data-figure="left"]').text)
    busiest.find_element("css selector", "td.path a").click()
    browser.wait_for("#diff-tab").click()
    browser.wait_for("table.sbs")
    assert _int(browser.find('#diff-left [data-figure="left"]').text) == file_left > 0
    widths = browser.driver.execute_script("""
        const cell = document.querySelector('table.sbs td.code pre').parentElement;
        const probe = document.createElement('span'); probe.textContent = '0'.repeat(100);
        cell.querySelector('pre').appendChild(probe);
        const perChar = probe.getBoundingClientRect().width / 100; probe.remove();
        const table = document.querySelector('table.sbs').getBoundingClientRect().width;
        return {window: window.innerWidth, table: table, code: cell.getBoundingClientRect().width, perChar: perChar};
    """)
    assert widths["table"] >= 0.93 * widths["window"], widths
    assert widths["code"] >= 0.42 * widths["window"], widths
    assert widths["code"] / widths["perChar"] >= 75, widths  # about 80 characters before a line wraps
    browser.shot("realworld-04-diff")

    # Bulk "Assign to" on the filtered list changes the rows.
    findings_url = reverse("projects:findings", args=[run.pk])
    browser.get(findings_url + "?done=no&severity=error")
    browser.find("#bulk-action").send_keys("Assign to")
    browser.find("#bulk-assignee").send_keys("bob")
    browser.find("#bulk-scope").send_keys("all")
    browser.find("#bulk-form button[type=submit]").click()
    browser.wait_until(lambda: "finding(s) changed" in browser.find(".messages").text)
    assert Finding.objects.filter(run=run, severity="error", mark__assignee__username="bob").count() == left_errors
    assert all("→ bob" in tr.text for tr in browser.find_all("table.findings tbody tr"))
    browser.shot("realworld-05-bulk-assigned")

    # A person marks what is left; the gate passes.
    browser.find("#bulk-action").send_keys("False positive")
    browser.find("#bulk-reason").send_keys("example scripts, not ported")
    browser.find("#bulk-scope").send_keys("all")
    previous_page = browser.find(".messages")  # still says "finding(s) changed" from the assignment
    browser.find("#bulk-form button[type=submit]").click()
    WebDriverWait(browser.driver, 120).until(staleness_of(previous_page))
    browser.wait_until(lambda: "finding(s) changed" in browser.find(".messages").text)
    browser.get(reverse("projects:run", args=[run.pk]))
    gate = browser.find("#quality-gate").text
    assert "Quality gate: Passed" in gate and "0 new error finding(s) left for a person" in gate
    browser.shot("realworld-06-gate-passed")

    # SARIF: valid, converted uses left out, every mark a suppression.
    sarif = json.loads(api.request("GET", f"runs/{run.pk}/report.sarif", raw=True))
    jsonschema.validate(sarif, json.loads(SARIF_SCHEMA.read_text()))
    results = sarif["runs"][0]["results"]
    assert all(r["properties"]["status"] != "converted" for r in results)
    suppressed = [r for r in results if r.get("suppressions")]
    assert len(suppressed) == left_errors
    assert all(r["suppressions"][0]["justification"] == "marked false positive: example scripts, not ported"
               for r in suppressed)
    after = api.request("GET", f"runs/{run.pk}/")["progress"]
    assert sum(1 for r in results if not r.get("suppressions")) == after["left"]
