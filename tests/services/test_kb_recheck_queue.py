"""A knowledge-base re-check asked for on the run page or the API is queued for
a worker: the request returns at once, the page says it is queued, and the
result shows once the worker's task has done it. The management command still
does it on the spot."""
from __future__ import annotations

import io
import shutil
import time

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from porting_site.projects import storage
from porting_site.projects.models import Finding, KbRecheck, Run
from tests import factories
from tests.triage import repo
from workers.tasks import kb_recheck_run


@pytest.fixture
def old_kb_run(run_dirs):
    """A finished run that looks analysed by an older knowledge base: one finding it did
    not know about, one it classified differently; the snapshot on disk is unchanged."""
    team, alice = factories.team_with_member("Vision", "alice")
    run = repo.analysed_run(factories.project(team, "Detector"), alice, repo.files_v1())
    Run.objects.filter(pk=run.pk).update(kb_version="2025.06.0")
    Finding.objects.get(run=run, rule_id="MS-DEVICE-DATAPARALLEL").delete()
    Finding.objects.filter(run=run, rule_id="MS-DEVICE-ENV").update(status="review")
    run.refresh_from_db()
    return run


def _api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.mark.django_db
def test_page_queues_the_recheck_and_shows_the_result_once_the_task_ran(client, old_kb_run):
    client.login(username="alice", password=factories.PASSWORD)
    url = reverse("projects:kb-recheck", args=[old_kb_run.pk])
    response = client.post(url, follow=True)
    recheck = KbRecheck.objects.get(run=old_kb_run)
    assert recheck.status == KbRecheck.Status.QUEUED and recheck.counts == {} and recheck.changes == []
    page = response.content.decode()
    assert "queued" in page and 'id="kb-pending"' in page and 'id="kb-result"' not in page
    # A second press while it waits reuses the queued re-check.
    client.post(url)
    assert KbRecheck.objects.filter(run=old_kb_run).count() == 1

    kb_recheck_run(recheck_id=recheck.pk)  # what the worker runs

    recheck.refresh_from_db()
    assert recheck.status == KbRecheck.Status.DONE and recheck.finished_at is not None
    assert {(c["kind"], c["rule_id"]) for c in recheck.changes} == {
        ("added", "MS-DEVICE-DATAPARALLEL"), ("changed", "MS-DEVICE-ENV")}
    assert (recheck.counts["added"], recheck.counts["changed"], recheck.counts["removed"]) == (1, 1, 0)
    page = client.get(reverse("projects:run", args=[old_kb_run.pk])).content.decode()
    assert 'id="kb-pending"' not in page
    assert '<p id="kb-result">' in page and "<strong>1</strong> added" in page
    # Delivered again (a redelivery after a worker restart): nothing is redone.
    kb_recheck_run(recheck_id=recheck.pk)
    assert KbRecheck.objects.get(pk=recheck.pk).finished_at == recheck.finished_at


@pytest.mark.django_db
def test_api_answers_202_with_the_pending_recheck_then_the_result(old_kb_run):
    url = reverse("api:run-kb-recheck", args=[old_kb_run.pk])
    api = _api(old_kb_run.created_by)
    started = time.monotonic()
    queued = api.post(url)
    assert time.monotonic() - started < 5  # answered without analysing anything
    assert queued.status_code == 202
    body = queued.json()
    assert body["recheck"] is None and body["pending"]["status"] == "queued" and body["pending"]["counts"] == {}
    kb_recheck_run(recheck_id=body["pending"]["id"])
    done = api.get(url).json()
    assert done["pending"] is None
    assert done["recheck"]["status"] == "done" and done["recheck"]["counts"]["added"] == 1


@pytest.mark.django_db
def test_a_snapshot_gone_before_or_while_queued_is_said_plainly(client, old_kb_run):
    api = _api(old_kb_run.created_by)
    url = reverse("api:run-kb-recheck", args=[old_kb_run.pk])
    pending = api.post(url).json()["pending"]
    shutil.rmtree(storage.source_dir(old_kb_run.pk))  # removed while the task waited in the queue
    kb_recheck_run(recheck_id=pending["id"])
    failed = KbRecheck.objects.get(pk=pending["id"])
    assert failed.status == KbRecheck.Status.FAILED and "no longer on disk" in failed.error
    client.login(username="alice", password=factories.PASSWORD)
    page = client.get(reverse("projects:run", args=[old_kb_run.pk])).content.decode()
    assert 'id="kb-failed"' in page and "no longer on disk" in page
    # Asked again now, the request itself is refused at once.
    refused = api.post(url)
    assert refused.status_code == 409 and "no longer on disk" in refused.json()["detail"]


@pytest.mark.django_db
def test_management_command_still_rechecks_on_the_spot(old_kb_run):
    out = io.StringIO()
    call_command("kb_recheck", str(old_kb_run.pk), stdout=out)
    assert "1 added, 0 removed, 1 changed" in out.getvalue()
    assert KbRecheck.objects.get(run=old_kb_run).status == KbRecheck.Status.DONE


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_does_the_queued_recheck(old_kb_run, live_worker):
    api = _api(old_kb_run.created_by)
    url = reverse("api:run-kb-recheck", args=[old_kb_run.pk])
    assert api.post(url).status_code == 202
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        body = api.get(url).json()
        if body["pending"] is None:
            break
        time.sleep(0.5)
    else:
        raise AssertionError("the worker did not finish the re-check:\n" + live_worker.log_tail())
    assert body["recheck"]["status"] == "done", KbRecheck.objects.get(run=old_kb_run).error
    assert body["recheck"]["counts"]["added"] == 1 and body["recheck"]["counts"]["changed"] == 1


@pytest.mark.django_db
def test_compare_page_says_the_recheck_is_queued_then_splits_the_changes(client, old_kb_run):
    newer = repo.analysed_run(old_kb_run.project, old_kb_run.created_by, repo.files_v2())
    client.login(username="alice", password=factories.PASSWORD)
    url = reverse("projects:compare", args=[old_kb_run.project.team.slug, old_kb_run.project.slug])
    query = {"a": old_kb_run.number, "b": newer.number}
    client.post(reverse("projects:kb-recheck", args=[old_kb_run.pk]), {"next": url})
    page = client.get(url, query).content.decode()
    assert 'id="kb-pending"' in page and "kb_recheck.js" in page and 'id="kb-new"' not in page
    kb_recheck_run(recheck_id=KbRecheck.objects.get(run=old_kb_run).pk)
    page = client.get(url, query).content.decode()
    assert 'id="kb-pending"' not in page and 'id="kb-new">1<' in page
