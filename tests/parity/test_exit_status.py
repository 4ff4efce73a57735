"""The parity command's exit status, the contract a CI step relies on (see
analysis/cli/parity.py): 1 fail/error, 3 nothing checked, 4 checked ones pass but
another entry's original PyTorch code fails (or, with --strict, one was skipped)."""
from __future__ import annotations

import pytest

from analysis.cli.parity import exit_status


def _report(*statuses, error=None):
    return {"error": error, "entry_points": [{"status": s} for s in statuses]}


@pytest.mark.parametrize("statuses,strict,code", [
    (("pass", "pass"), False, 0),
    (("pass", "skipped"), False, 0),
    (("pass", "skipped"), True, 4),
    (("pass", "torch_fail"), False, 4),
    (("pass", "torch_fail", "error"), False, 1),
    (("pass", "fail"), False, 1),
    (("skipped", "torch_fail"), False, 3),
    ((), False, 3),
])
def test_exit_status(statuses, strict, code):
    assert exit_status(_report(*statuses), strict=strict) == code


def test_a_report_level_error_is_a_failure():
    assert exit_status(_report("pass", error="the box could not be built")) == 1
