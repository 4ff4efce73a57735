"""Live detail of long stages: the convert stage counts files as batches finish, the parity
stage names the entry being checked and each entry's status as it finishes."""
from __future__ import annotations

import shutil

import pytest

from analysis.convert import convert_tree
from porting_site.projects.live import ParityProgress, converted_so_far
from porting_site.projects.models import Stage
from porting_site.projects.services import stage_begin
from tests import factories
from tests.api.conftest import make_run
from tests.site import data


@pytest.fixture
def running_run(db, settings, tmp_path):
    data.use_tmp_storage(settings, tmp_path)
    team, alice = factories.team_with_member("Vision", "alice")
    run = make_run(factories.project(team), alice, {})
    Stage.objects.filter(run=run).update(status=Stage.Status.PENDING, done=0, total=0, detail="")
    return run


def _stage(run, name):
    return Stage.objects.get(run=run, name=name)


def test_convert_tree_reports_files_as_batches_finish(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for i in range(40):
        (src / f"m{i:02}.py").write_text(f"import torch\nx{i} = torch.zeros({i + 1})\n")
    seen = []
    convert_tree(src, tmp_path / "out", jobs=1, on_converted=lambda done, total: seen.append((done, total)))
    assert seen == [(10, 40), (20, 40), (30, 40), (40, 40)]  # about four reports per worker


def test_the_convert_stage_counts_files_converted_so_far(running_run):
    stage_begin(run_id=running_run.pk, name=Stage.Name.CONVERT, total=79)
    converted_so_far(running_run.pk)(32, 79)
    stage = _stage(running_run, Stage.Name.CONVERT)
    assert (stage.done, stage.total, stage.detail) == (32, 79, "32 of 79 files converted so far")


def test_the_parity_stage_names_the_running_entry_and_each_result(running_run):
    stage_begin(run_id=running_run.pk, name=Stage.Name.PARITY, total=1)
    tell = ParityProgress(running_run.pk)
    tell({"event": "planned", "entries": ["pkg.a.A", "pkg.b.B", "pkg.c.C"]})
    stage = _stage(running_run, Stage.Name.PARITY)
    assert (stage.done, stage.total, stage.detail) == (0, 3, "3 entry points to check")
    tell({"event": "running", "entries": ["pkg.a.A"]})
    assert _stage(running_run, Stage.Name.PARITY).detail == "checking pkg.a.A (1 of 3)"
    tell({"event": "finished", "entry": "pkg.a.A", "status": "pass"})
    tell({"event": "running", "entries": ["pkg.b.B"]})
    stage = _stage(running_run, Stage.Name.PARITY)
    assert (stage.done, stage.detail) == (1, "checking pkg.b.B (2 of 3) · finished: pkg.a.A pass")
    tell({"event": "finished", "entry": "pkg.b.B", "status": "error"})
    assert _stage(running_run, Stage.Name.PARITY).detail == "3 entry points to check · finished: pkg.a.A pass, pkg.b.B error"


def test_a_finished_stage_is_not_rewritten_by_a_late_event(running_run):
    stage_begin(run_id=running_run.pk, name=Stage.Name.PARITY, total=1)
    Stage.objects.filter(run=running_run, name=Stage.Name.PARITY).update(status=Stage.Status.DONE, detail="1/1 pass")
    ParityProgress(running_run.pk)({"event": "planned", "entries": ["pkg.a.A"]})
    assert _stage(running_run, Stage.Name.PARITY).detail == "1/1 pass"


@pytest.mark.slow
def test_a_real_parity_check_reports_each_entry_as_it_finishes(request):
    """The sample repository's modules, checked in the bubblewrap box: the events come in order and
    the last status of each entry is the one the report stores."""
    if not shutil.which("bwrap"):
        pytest.skip("bubblewrap is not installed")
    report, events = request.getfixturevalue("sample_parity")  # the run tests/parity/test_models.py reads too
    entries = [f"{e['module']}.{e['name']}" for e in report["entry_points"]]
    assert entries and events[0] == {"event": "planned", "entries": entries}
    assert events[1]["event"] == "running" and events[1]["entries"][0] == entries[0]
    finished = {e["entry"]: e["status"] for e in events if e["event"] == "finished"}
    assert finished == {f"{e['module']}.{e['name']}": e["status"] for e in report["entry_points"]}
