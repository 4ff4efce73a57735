"""The gate thresholds page: members see them, team admins change them."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render

from porting_site.api.selectors import project_get_by_id, user_is_team_admin

from .forms import GatePolicyForm
from .services import gate_policy_get, gate_policy_update


@login_required
def gate_page(request, project_id: int):
    project = project_get_by_id(user=request.user, project_id=project_id)
    is_admin = user_is_team_admin(user=request.user, team_id=project.team_id)
    policy = gate_policy_get(project=project)
    if request.method == "POST":
        if not is_admin:
            raise PermissionDenied("only team admins change the quality gate")
        form = GatePolicyForm(request.POST, instance=policy)
        if form.is_valid():
            gate_policy_update(project=project, **form.cleaned_data)
            messages.success(request, "The quality gate was saved; it applies to runs judged from now on.")
            return redirect("api:gate-page", project_id=project.pk)
    else:
        form = GatePolicyForm(instance=policy)
    return render(request, "gates/gate_page.html", {"project": project, "form": form, "is_admin": is_admin})
