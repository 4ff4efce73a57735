"""The dashboard pages on a finished run with realistic results."""
from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from porting_site.projects.models import Finding, Run
from tests import factories
from tests.site import data

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice_run(settings, tmp_path, client):
    data.use_tmp_storage(settings, tmp_path)
    team, alice = factories.team_with_member("Team A", "alice")
    project = factories.project(team, "Detector")
    run = data.finished_run(project, alice)
    client.login(username="alice", password=factories.PASSWORD)
    return run


def _figure(html: str, figure_id: str) -> dict:
    match = re.search(rf'<script id="{figure_id}" type="application/json">(.*?)</script>', html, re.S)
    assert match, f"figure {figure_id} missing"
    return json.loads(match.group(1))


def test_every_page_renders_for_a_member(client, alice_run):
    project = alice_run.project
    source = alice_run.files.get()
    parity = alice_run.parity_results.get()
    urls = [
        reverse("projects:list"),
        reverse("projects:detail", args=[project.team.slug, project.slug]),
        reverse("projects:run", args=[alice_run.pk]),
        reverse("projects:files", args=[alice_run.pk]),
        reverse("projects:file", args=[alice_run.pk, source.pk]),
        reverse("projects:file", args=[alice_run.pk, source.pk]) + "?view=diff",
        reverse("projects:parity", args=[alice_run.pk, parity.pk]),
        reverse("projects:rules"),
        reverse("projects:compare", args=[project.team.slug, project.slug]),
    ]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, (url, response.content[:3000])


def test_parity_page_links_the_first_diverging_layer_to_its_source_line(client, alice_run):
    parity = alice_run.parity_results.get()
    source = alice_run.files.get()
    html = client.get(reverse("projects:parity", args=[alice_run.pk, parity.pk])).content.decode()
    # The momentum error passes eval and fails in train mode: only the train chart blames bn1.
    eval_bars = _figure(html, "fig-layers")["data"][0]
    assert "#7a0d05" not in eval_bars["marker"]["color"]
    layers = _figure(html, "fig-layers-train")
    assert layers["layout"]["title"]["text"].startswith("Per-layer error (train forward)")
    bars, tolerance = layers["data"]
    assert bars["x"][1].startswith("bn1") and bars["marker"]["color"][1] == "#7a0d05"
    assert bars["customdata"][1] == reverse("projects:file", args=[alice_run.pk, source.pk]) + "#L12"
    assert all(t > 0 for t in tolerance["y"]) and layers["layout"]["yaxis"]["type"] == "log"
    bn1_row = re.search(r'<tr class="first">(.*?)</tr>', html, re.S).group(1)
    assert "st-pass" in bn1_row and "st-fail" in bn1_row  # eval pass, train fail, side by side
    loss = _figure(html, "fig-loss")
    assert [t["name"] for t in loss["data"]] == ["PyTorch", "MindSpore", "relative difference"]
    assert loss["data"][2]["y"][0] <= 1e-11 < loss["data"][2]["y"][-1]  # identical first step, drift later
    gradients = _figure(html, "fig-gradients")
    assert gradients["data"][0]["x"][:2] == ["conv1.weight", "conv1.bias"]
    assert "fig-scatter" in html and "fig-hist" in html


def test_parity_page_survives_a_result_with_almost_nothing_stored(client, alice_run):
    from porting_site.projects.models import ParityResult

    bare = ParityResult.objects.create(run=alice_run, name="Broken", module="m", status="error",
                                       reason="import failed", layers=[{"path": "x"}, "junk"],
                                       metrics={"max_abs": "inf"}, details={"gradients": None})
    response = client.get(reverse("projects:parity", args=[alice_run.pk, bare.pk]))
    assert response.status_code == 200 and b"import failed" in response.content


def test_file_page_filters_by_rule_and_severity(client, alice_run):
    source = alice_run.files.get()
    url = reverse("projects:file", args=[alice_run.pk, source.pk])
    html = client.get(url + "?rule=MS-API-DIFF").content.decode()
    assert set(re.findall(r'data-rule="([^"]+)"', html)) == {"MS-API-DIFF"}
    html = client.get(url + "?severity=error").content.decode()
    assert re.findall(r'data-rule="([^"]+)" data-line="(\d+)"', html) == [("MS-BN-MOMENTUM", "12")]


def test_side_by_side_diff_highlights_what_was_left_for_a_person(client, alice_run):
    source = alice_run.files.get()
    html = client.get(reverse("projects:file", args=[alice_run.pk, source.pk]) + "?view=diff").content.decode()
    row = html.split('id="O12"', 1)[1].split("</tr>", 1)[0]
    assert "todo" in row and "BatchNorm2d" in row and "MIGRATE" in row


def test_trend_counts_come_from_each_finished_run(alice_run):
    from porting_site.projects.selectors import project_trend

    second = data.finished_run(alice_run.project, failing=False, findings=data.FINDINGS[:2])
    points = project_trend(project=alice_run.project)
    assert [p["number"] for p in points] == [1, 2]
    assert (points[0]["found"], points[0]["converted"], points[0]["left_error"]) == (5, 2, 1)
    assert (points[1]["found"], points[1]["left"], points[1]["parity_pass"]) == (2, 1, 1)
    assert second.number == 2


def test_compare_lists_fixed_findings_and_parity_changes(client, alice_run):
    project = alice_run.project
    data.finished_run(project, failing=False, findings=data.FINDINGS[:3])
    html = client.get(reverse("projects:compare", args=[project.team.slug, project.slug]) + "?a=1&b=2").content.decode()
    fixed = html.split("Fixed findings", 2)[2]
    assert "MS-DROPOUT-P" in fixed and "MS-BN-MOMENTUM" not in fixed
    assert 'class="changed"' in html  # LeNet: fail -> pass


def test_page_queries_do_not_grow_with_the_number_of_files(client, alice_run, django_assert_max_num_queries):
    from porting_site.gates.services import gate_evaluate
    from porting_site.projects.models import ConvertedFile, SourceFile

    files = SourceFile.objects.bulk_create(
        SourceFile(run=alice_run, path=f"pkg/m{i:03d}.py", sha256="0" * 64, lines=10, errors=i % 2)
        for i in range(150))
    ConvertedFile.objects.bulk_create(ConvertedFile(run=alice_run, file=f, text="x", unconverted=[{"line": 1}])
                                      for f in files)
    gate_evaluate(run=alice_run)  # as the finalize stage does; reading the verdict is then one query
    for url in (reverse("projects:files", args=[alice_run.pk]) + "?order=-errors",
                reverse("projects:run", args=[alice_run.pk]), reverse("projects:list")):
        with django_assert_max_num_queries(16):
            assert client.get(url).status_code == 200


def test_only_team_admins_change_settings(client, alice_run):
    from porting_site.accounts.models import Membership
    from porting_site.accounts.services import membership_add

    project = alice_run.project
    url = reverse("projects:settings", args=[project.team.slug, project.slug])
    client.post(url, {"description": "", "target": "mint", "ms_version": "2.5", "device": "gpu"})
    project.refresh_from_db()
    assert (project.target, project.ms_version, project.device) == ("mint", "2.5", "gpu")
    bob = factories.user("bob")
    membership_add(team=project.team, user=bob, role=Membership.Role.MEMBER)
    client.login(username="bob", password=factories.PASSWORD)
    client.post(url, {"description": "", "target": "classic", "ms_version": "2.4", "device": "cpu"})
    project.refresh_from_db()
    assert project.target == "mint"


def test_xhr_upload_answers_json_with_the_reason(client, alice_run):
    project = alice_run.project
    url = reverse("projects:detail", args=[project.team.slug, project.slug])
    response = client.post(url, {"archive": factories.upload("repo.tar.gz", b"PK\x03\x04 a zip in disguise"),
                                 "target": "classic", "ms_version": "2.4", "device": "cpu"},
                           HTTP_X_REQUESTED_WITH="XMLHttpRequest")
    assert response.status_code == 400
    assert "not a gzip-compressed tar archive" in response.json()["errors"]["archive"][0]
    assert project.runs.count() == 1
