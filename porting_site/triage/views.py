"""Pages: the findings list behind every figure (with bulk actions), one finding
with its mark and audit trail, and the forms that mark findings."""
from __future__ import annotations

from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from porting_site.accounts.models import Membership
from porting_site.projects import progress, selectors
from porting_site.projects.models import Finding, Severity

from .models import MarkEvent, State
from .services import ACTIONS, TriageError, finding_triage, findings_bulk_triage

ACTION_LABELS = [("accept", "Accept (the difference is fine here)"), ("false_positive", "False positive"),
                 ("fixed", "Fixed by hand"), ("reopen", "Re-open"), ("assign", "Assign to")]
DONE_LABELS = {"accept": "accepted", "false_positive": "marked a false positive", "fixed": "marked fixed by hand",
               "reopen": "re-opened", "assign": "assigned to"}
STATUS_CHOICES = [("", "any")] + [(s, s) for s in progress.STATUSES]
TRIAGE_CHOICES = [("", "any"), ("open", "not marked"), ("marked", "marked"),
                  *[(s.value, s.label.lower()) for s in State if s.value]]


class FilterForm(forms.Form):
    q = forms.CharField(required=False, label="Text", help_text="in the message, API or path",
                        widget=forms.TextInput(attrs={"placeholder": "scatter", "size": 14, "type": "search"}))
    api = forms.CharField(required=False, label="PyTorch API", help_text="an API, or a prefix ending in *",
                          widget=forms.TextInput(attrs={"placeholder": "torch.nn.*", "size": 16}))
    status = forms.ChoiceField(choices=STATUS_CHOICES, required=False)
    triage = forms.ChoiceField(choices=TRIAGE_CHOICES, required=False, label="Mark")
    done = forms.ChoiceField(choices=[("", "any"), ("yes", "done"), ("no", "left")], required=False)
    severity = forms.ChoiceField(choices=[("", "any")] + list(Severity.choices), required=False)
    rule = forms.CharField(required=False, help_text="an id, or a prefix ending in *",
                           widget=forms.TextInput(attrs={"placeholder": "MS-DEVICE-*", "size": 14}))
    path = forms.CharField(required=False, help_text="a file, or a folder ending in /",
                           widget=forms.TextInput(attrs={"placeholder": "scripts/", "size": 16}))
    assignee = forms.CharField(required=False, widget=forms.TextInput(attrs={"size": 10}))
    new = forms.ChoiceField(choices=[("", "any"), ("true", "new"), ("false", "not new")], required=False,
                            label="Versus baseline")
    gate = forms.ChoiceField(choices=[("", "any"), ("counted", "counted by the gate")], required=False,
                             label="Gate")


def _members(project):
    return list(Membership.objects.filter(team_id=project.team_id).select_related("user")
                .order_by("user__username").values_list("user__username", flat=True))


def _filters(data) -> dict:
    form = FilterForm(data)
    form.is_valid()
    return {k: v for k, v in form.cleaned_data.items() if v}


@login_required
def finding_list(request, run_id: int):
    run = selectors.run_get(user=request.user, run_id=run_id)
    form = FilterForm(request.GET)
    filters = _filters(request.GET)
    findings = (selectors.finding_query(run=run, **filters).select_related("file", "mark__assignee")
                .order_by("file__path", "line", "column", "id"))
    page = Paginator(findings, 100).get_page(request.GET.get("page"))
    baseline = None
    if filters.get("new"):
        from porting_site.gates.services import run_baseline

        baseline = run_baseline(run=run)
    return render(request, "triage/finding_list.html", {
        "baseline": baseline,
        "run": run, "project": run.project, "form": form, "page": page, "filters": filters,
        "query": urlencode(filters), "figures": progress.of(selectors.finding_query(run=run, **filters)),
        "actions": ACTION_LABELS, "members": _members(run.project),
    })


def _back(request, fallback: str) -> str:
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        return target
    return fallback


@login_required
@require_POST
def finding_list_triage(request, run_id: int):
    """A bulk action on the findings the posted filter selects (or on the ticked ones)."""
    run = selectors.run_get(user=request.user, run_id=run_id)
    filters = _filters(request.POST)
    findings = selectors.finding_query(run=run, **filters)
    ids = [int(i) for i in request.POST.getlist("ids") if i.isdigit()]
    if request.POST.get("scope") != "all":
        findings = findings.filter(pk__in=ids)
    back = _back(request, reverse("projects:findings", args=[run.pk]) + "?" + urlencode(filters))
    action = request.POST.get("action", "")
    # The new assignee is "assign_to": "assignee" is the list's filter, posted back as a hidden field.
    kwargs = {"assignee": request.POST.get("assign_to", "")} if action == "assign" else {}
    try:
        counts = findings_bulk_triage(findings=findings, user=request.user, action=action,
                                      reason=request.POST.get("reason", ""), **kwargs)
    except TriageError as exc:
        messages.error(request, str(exc))
        return redirect(back)
    note = f"{counts['changed']} finding(s) changed"
    if counts["unchanged"]:
        note += f", {counts['unchanged']} already so"
    if counts["skipped"]:
        note += f", {counts['skipped']} unresolved left out (an unresolved use cannot be accepted)"
    messages.success(request, note + ".")
    return redirect(back)


@login_required
def finding_detail(request, run_id: int, finding_id: int):
    run = selectors.run_get(user=request.user, run_id=run_id)
    finding = get_object_or_404(Finding.objects.select_related("file", "mark__assignee", "mark__closed_in_run"),
                                run=run, pk=finding_id)
    events = (MarkEvent.objects.filter(mark_id=finding.mark_id).select_related("user", "run")
              if finding.mark_id else MarkEvent.objects.none())
    return render(request, "triage/finding_detail.html", {
        "run": run, "project": run.project, "finding": finding, "events": events, "actions": ACTION_LABELS,
        "excerpt": _excerpt(run, finding),
        "members": _members(run.project), "done": Finding.objects.filter(pk=finding.pk).filter(progress.DONE).exists(),
        "later": Finding.objects.filter(mark_id=finding.mark_id, run__number__gt=run.number)
        .select_related("run").order_by("run__number") if finding.mark_id else [],
    })


def _excerpt(run, finding) -> list[dict]:
    """The code the finding is about (empty when the run's tree was cleaned up)."""
    from porting_site.projects import storage
    from porting_site.projects.source_view import finding_excerpt, notebook_code, read_text

    path = storage.source_dir(run.pk) / finding.file.path
    if not path.is_file():
        return []
    text, offsets = read_text(path.read_bytes()), None
    if finding.file.path.endswith(".ipynb"):
        text, offsets = notebook_code(text)
    return finding_excerpt(text, finding, offsets)


@login_required
@require_POST
def finding_mark(request, run_id: int, finding_id: int):
    run = selectors.run_get(user=request.user, run_id=run_id)
    finding = get_object_or_404(Finding.objects.select_related("file", "run__project", "mark__assignee"),
                                run=run, pk=finding_id)
    action = request.POST.get("action", "")
    kwargs = {"assignee": request.POST.get("assignee", "")} if action == "assign" else {}
    try:
        finding_triage(finding=finding, user=request.user, action=action, reason=request.POST.get("reason", ""),
                       **kwargs)
    except TriageError as exc:
        messages.error(request, str(exc))
    else:
        done = DONE_LABELS.get(action, action)
        messages.success(request, f"{finding.rule_id} at {finding.file.path}:{finding.line} {done}"
                         + (f" {kwargs['assignee'] or 'nobody'}" if action == "assign" else "") + ".")
    return redirect(_back(request, reverse("projects:finding", args=[run.pk, finding.pk])))


assert set(dict(ACTION_LABELS)) == set(ACTIONS)
