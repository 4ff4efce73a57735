"""Concurrent uploads to one project get distinct, consecutive run numbers."""
from __future__ import annotations

import threading

import pytest
from django.db import connection

from porting_site.projects.models import Run
from porting_site.projects.services import run_create
from tests import factories


@pytest.mark.django_db(transaction=True)
def test_concurrent_uploads_get_distinct_numbers(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    team, _ = factories.team_with_member("Team", "alice")
    project = factories.project(team)
    barrier = threading.Barrier(6)
    errors = []

    def upload(i: int):
        try:
            barrier.wait()
            run_create(project=project, archive=factories.upload(f"r{i}.zip", b"PK"), enqueue=False)
        except Exception as exc:  # collected and asserted below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=upload, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(Run.objects.filter(project=project).values_list("number", flat=True)) == [1, 2, 3, 4, 5, 6]
