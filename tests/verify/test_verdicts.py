"""The verdict lookup: the worst of the API's, each argument's (by spelling) and the dtype's verdict."""
from __future__ import annotations

import pytest

from analysis.verify import verdicts

DATA = {"apis": {
    "torch.f": {
        "status": "verified", "calls": 6, "positional": ["input", "dim"],
        "params": {
            "input": {"status": "verified", "calls": 2},
            "dim": {"status": "differs", "note": "torch.f(x, dim=1): values differ",
                    "positional": {"status": "verified", "calls": 1},
                    "keyword": {"status": "differs", "note": "torch.f(x, dim=1): values differ"}},
            "out": {"status": "fails", "note": "TypeError"},
        },
        "dtypes": {"float32": {"status": "verified"},
                   "int64": {"status": "no_cpu_kernel", "note": "Unsupported data type"}},
    },
    "torch.g": {"status": "untested", "calls": 0, "note": "no generated call ran in PyTorch"},
}}


@pytest.fixture
def data(monkeypatch):
    monkeypatch.setattr(verdicts, "load_verdicts", lambda path=None: DATA)


def test_verified_only_when_everything_the_call_uses_is(data):
    assert verdicts.verdict("torch.f", ["input", "dim"], "float32").status == "verified"
    assert verdicts.verdict("torch.f", ["input", "dim="]).status == "differs"  # the keyword spelling differs
    assert "values differ" in verdicts.verdict("torch.f", ["dim="]).note


def test_the_worst_part_wins_and_says_which(data):
    v = verdicts.verdict("torch.f", ["input", "out="], "int64")
    assert v.status == "fails" and v.broken and "argument out=" in v.note
    assert verdicts.verdict("torch.f", ["input"], "int64").status == "no_cpu_kernel"


def test_unknown_parts_are_untested(data):
    assert verdicts.verdict("torch.f", ["keepdim="]).status == "untested"
    assert "keepdim= not verified by execution" in verdicts.verdict("torch.f", ["keepdim="]).note
    assert verdicts.verdict("torch.nope").status == "untested"
    assert verdicts.verdict("torch.g").note == "no generated call ran in PyTorch"
    assert verdicts.covered("torch.g") and not verdicts.covered("torch.nope")
    assert verdicts.positional_names("torch.f") == ("input", "dim")


def test_stored_verdicts_cover_every_converted_api():
    from analysis.verify.run import converted_apis

    stored = verdicts.load_verdicts()
    assert set(converted_apis()) <= set(stored["apis"])
    assert stored["calls"] >= 2000
    statuses = {entry["status"] for entry in stored["apis"].values()}
    assert statuses <= set(verdicts.SEVERITY)
    assert sum(1 for e in stored["apis"].values() if e["status"] == "verified") >= 400
