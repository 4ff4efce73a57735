"""{% load gates %}{% gate_panel run %}: the run's gate verdict and its reasons, for run pages."""
from __future__ import annotations

from django import template

from porting_site.gates.services import gate_evaluate, gate_policy_get, gate_scope

register = template.Library()


@register.inclusion_tag("gates/gate_panel.html")
def gate_panel(run):
    gate = gate_evaluate(run=run)
    return {"run": run, "gate": gate, "scope": gate_scope(gate.policy or gate_policy_get(project=run.project))}
