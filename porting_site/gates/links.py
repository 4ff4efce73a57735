"""Where each gate check leads: the exact findings or parity rows it judged.

Computed when shown (not stored with the verdict), so verdicts judged before
links existed get them too. A finding check's link filters the findings list
with the gate's own definition (new versus the baseline, the severity, only
what the gate counts), so the list holds exactly the findings counted.
"""
from __future__ import annotations

from urllib.parse import urlencode

from django.urls import reverse

SEVERITY_CHECKS = {"new_errors": "error", "new_warnings": "warning"}
# Run-page anchors of the other checks.
ANCHORS = {"run_completed": "#run-error", "parity_pass_rate": "#parity", "parity_regression": "#parity",
           "parity_not_required": "#parity"}


def check_filters(name: str) -> dict | None:
    """The findings-list filters of a finding check, or None for other checks."""
    severity = SEVERITY_CHECKS.get(name)
    return {"new": "true", "severity": severity, "gate": "counted"} if severity else None


def check_url(run_id: int, name: str) -> str:
    filters = check_filters(name)
    if filters:
        return reverse("projects:findings", args=[run_id]) + "?" + urlencode(filters)
    anchor = ANCHORS.get(name)
    return reverse("projects:run", args=[run_id]) + anchor if anchor else ""


def checks_with_links(run_id: int, checks: list[dict]) -> list[dict]:
    return [dict(check, url=check_url(run_id, check.get("name", ""))) for check in checks]
