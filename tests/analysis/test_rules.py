"""Every rule: catalogue fields, and one positive and one negative real source."""
from __future__ import annotations

import pytest

from analysis.findings import Severity, UseStatus
from analysis.rules import all_rules, get_rule
from analysis.scan import analyze_source
from tests.analysis.rule_cases import CASES

# Rules that only apply to some MindSpore releases are exercised on one they apply to.
VERSION_FOR = {"MS-DEFAULT-WEIGHT-INIT": "2.2"}


def rule_ids(source: str, ms_version: str = "2.4") -> list[str]:
    return [f.rule_id for f in analyze_source(source, "case.py", ms_version=ms_version).findings]


def test_catalogue_is_complete_and_well_formed():
    rules = all_rules()
    assert len({r.id for r in rules}) == len(rules) >= 60
    for rule in rules:
        assert rule.id.startswith("MS-") and rule.id == rule.id.upper()
        assert rule.title and rule.message and len(rule.explanation) > 40
        assert rule.guide_url.startswith("https://www.mindspore.cn/")
        assert isinstance(rule.severity, Severity) and isinstance(rule.status, UseStatus)
        assert rule.example[0] and rule.example[1]
        assert rule.applies_to(rule.versions[0])
    assert get_rule("MS-DROPOUT-P").autofix is True
    with pytest.raises(KeyError):
        get_rule("MS-NOPE")


def test_every_rule_has_cases():
    # rules of scope "converter" are reported by the converter only (tests/convert/test_rule_ids.py)
    assert set(CASES) == {r.id for r in all_rules() if r.scope != "converter"}


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_fires_on_positive_case(rule_id):
    positive, _ = CASES[rule_id]
    assert rule_id in rule_ids(positive, VERSION_FOR.get(rule_id, "2.4"))


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_silent_on_negative_case(rule_id):
    _, negative = CASES[rule_id]
    assert rule_id not in rule_ids(negative, VERSION_FOR.get(rule_id, "2.4"))


def test_version_bounds():
    source = CASES["MS-DEFAULT-WEIGHT-INIT"][0]
    assert "MS-DEFAULT-WEIGHT-INIT" in rule_ids(source, "1.8")
    assert "MS-DEFAULT-WEIGHT-INIT" not in rule_ids(source, "2.4")


def test_dropout_fix_depends_on_version():
    source = "import torch.nn as nn\nd = nn.Dropout(0.2)\nk = nn.Dropout(p=0.2)\n"
    old = [f for f in analyze_source(source, "d.py", ms_version="1.8").findings if f.rule_id == "MS-DROPOUT-P"]
    new = [f for f in analyze_source(source, "d.py", ms_version="2.4").findings if f.rule_id == "MS-DROPOUT-P"]
    assert [f.extra["fix"] for f in old] == ["keep_prob=0.8", "keep_prob=0.8"]
    assert [f.extra["fix"] for f in new] == ["p=0.2"]  # p= keeps PyTorch's meaning from 2.0 on


def test_bn_momentum_suggests_complement():
    f = next(f for f in analyze_source("import torch.nn as nn\nb = nn.BatchNorm1d(4, momentum=0.3)\n", "b.py").findings
             if f.rule_id == "MS-BN-MOMENTUM")
    # converted by the converter (1 - m written): info, never an error (issue 27)
    assert f.extra["fixed"] == 0.7 and f.severity is Severity.INFO and f.status is UseStatus.CONVERTED
