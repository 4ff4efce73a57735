"""Issue #19 on the triage pages: bulk "Assign to" changes the rows (its field no
longer collides with the list's assignee filter), and a finding's page shows its code."""
from __future__ import annotations

import pytest
from django.urls import reverse

from porting_site.accounts.services import membership_add
from porting_site.projects.models import Finding
from tests import factories
from tests.triage import repo

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(run_dirs):
    team, alice = factories.team_with_member("Vision", "alice")
    membership_add(team=team, user=factories.user("bob"), role="member")
    return repo.analysed_run(factories.project(team, "Detector"), alice, repo.files_v1())


def _assigned(run, username):
    return Finding.objects.filter(run=run, mark__assignee__username=username).count()


def test_bulk_assign_from_the_list_form_changes_rows(client, world):
    client.login(username="alice", password=factories.PASSWORD)
    url = reverse("projects:findings-triage", args=[world.pk])
    devices = Finding.objects.filter(run=world, rule_id__startswith="MS-DEVICE-")
    # Exactly what the list page's form posts: the filter as hidden fields, the action's own fields.
    listing = client.get(reverse("projects:findings", args=[world.pk]), {"rule": "MS-DEVICE-*"}).content.decode()
    assert 'name="assign_to"' in listing and listing.count('name="assignee"') == 1  # the filter's only
    client.post(url, {"rule": "MS-DEVICE-*", "scope": "all", "action": "assign", "assign_to": "bob", "reason": ""})
    assert _assigned(world, "bob") == devices.count() > 0
    # Filtered by assignee (bob) and re-assigned to alice: the filter is bob, the new assignee alice.
    one = devices.first()
    client.post(url, {"assignee": "bob", "scope": "selected", "ids": [one.pk], "action": "assign",
                      "assign_to": "alice"})
    assert _assigned(world, "alice") == 1 and _assigned(world, "bob") == devices.count() - 1


def test_finding_page_shows_its_code_line(client, world):
    client.login(username="bob", password=factories.PASSWORD)
    finding = Finding.objects.filter(run=world, rule_id="MS-DEVICE-ENV").first()
    page = client.get(reverse("projects:finding", args=[world.pk, finding.pk])).content.decode()
    assert 'id="finding-code"' in page
    hit = page[page.index('id="finding-code"'):]
    hit = hit[hit.index(" hit"):]
    source = (world.files.get(pk=finding.file_id).path)
    line = repo.files_v1()[source].splitlines()[finding.line - 1].strip()
    import html
    import re
    text = html.unescape(re.sub(r"<[^>]+>", "", hit[:hit.index("</pre>")]))
    assert line.split("(")[0] in text
