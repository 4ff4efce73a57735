"""Gate tags for pages: {% gate_panel run %} (the verdict, each check linked to what it judged)
and {% gate_badge gate %} (a verdict as one badge, for tables)."""
from __future__ import annotations

from django import template

from porting_site.gates.links import checks_with_links
from porting_site.gates.services import gate_evaluate, gate_policy_get, gate_scope

register = template.Library()


@register.inclusion_tag("gates/gate_panel.html")
def gate_panel(run, gate=None):
    """gate: the run's verdict when the view already read it (saves a query)."""
    gate = gate or gate_evaluate(run=run)
    return {"run": run, "gate": gate, "checks": checks_with_links(run.pk, gate.checks),
            "scope": gate_scope(gate.policy or gate_policy_get(project=run.project))}


@register.inclusion_tag("gates/gate_badge.html")
def gate_badge(status, run_id=None):
    """status: a RunGate status ("passed", "failed", "pending") or None when never judged."""
    return {"status": status or "", "run_id": run_id}
