"""Pages. Thin: a selector reads, a service writes, a template renders."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from analysis.archive import ArchiveError
from porting_site.accounts.models import Membership, Team

from . import selectors, services, storage
from .forms import ProjectForm, UploadForm
from .models import Finding
from .source_view import annotate, notebook_code, read_text


@login_required
def project_list(request):
    projects = list(selectors.project_list(user=request.user))
    latest = selectors.latest_runs(projects=projects)
    rows = [{"project": p, "latest": latest.get(p.pk)} for p in projects]
    teams = Team.objects.filter(memberships__user=request.user, memberships__role=Membership.Role.ADMIN)
    form = ProjectForm()
    form.fields["team"] = _team_field(teams)
    return render(request, "projects/project_list.html", {"rows": rows, "form": form, "can_create": teams.exists()})


def _team_field(teams):
    from django import forms

    return forms.ModelChoiceField(queryset=teams, empty_label=None)


@login_required
@require_POST
def project_create(request):
    teams = Team.objects.filter(memberships__user=request.user, memberships__role=Membership.Role.ADMIN)
    form = ProjectForm(request.POST)
    form.fields["team"] = _team_field(teams)
    if not form.is_valid():
        messages.error(request, "The project could not be created: " + "; ".join(
            f"{k}: {' '.join(v)}" for k, v in form.errors.items()))
        return redirect("projects:list")
    data = form.cleaned_data
    project = services.project_create(
        team=data["team"], name=data["name"], description=data["description"], target=data["target"],
        device=data["device"],
    )
    return redirect("projects:detail", team_slug=project.team.slug, project_slug=project.slug)


@login_required
def project_detail(request, team_slug: str, project_slug: str):
    project = selectors.project_get(user=request.user, team_slug=team_slug, project_slug=project_slug)
    if request.method == "POST":
        form = UploadForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                run = services.run_create(project=project, user=request.user, **form.cleaned_data)
            except ArchiveError as exc:
                form.add_error("archive", str(exc))
            else:
                return redirect("projects:run", run_id=run.pk)
    else:
        form = UploadForm(initial={"target": project.target, "ms_version": project.ms_version, "device": project.device})
    runs = project.runs.all()[:50]
    return render(request, "projects/project_detail.html", {"project": project, "runs": runs, "form": form})


@login_required
def run_detail(request, run_id: int):
    run = selectors.run_get(user=request.user, run_id=run_id)
    context = {
        "run": run,
        "project": run.project,
        "progress": selectors.run_progress(run=run),
        "summary": selectors.run_summary(run=run),
        "parity_results": run.parity_results.select_related("loss_curve").all(),
    }
    return render(request, "projects/run_detail.html", context)


@login_required
def run_progress(request, run_id: int):
    run = selectors.run_get(user=request.user, run_id=run_id)
    return JsonResponse(selectors.run_progress(run=run))


@login_required
def file_list(request, run_id: int):
    run = selectors.run_get(user=request.user, run_id=run_id)
    files = selectors.file_list(run=run, query=request.GET.get("q", ""), order=request.GET.get("order", "path"))
    page = Paginator(files, 100).get_page(request.GET.get("page"))
    return render(request, "projects/file_list.html", {"run": run, "project": run.project, "page": page,
                                                       "q": request.GET.get("q", ""),
                                                       "order": request.GET.get("order", "path")})


@login_required
def file_detail(request, run_id: int, file_id: int):
    run = selectors.run_get(user=request.user, run_id=run_id)
    source_file = selectors.file_get(run=run, file_id=file_id)
    path = storage.source_dir(run.pk) / source_file.path
    if not path.is_file():
        raise Http404("the run's files are no longer on disk")
    text = read_text(path.read_bytes())
    offsets = None
    if source_file.path.endswith(".ipynb"):
        text, offsets = notebook_code(text)
    findings = Finding.objects.filter(file=source_file)
    severity = request.GET.get("severity", "")
    if severity:
        findings = findings.filter(severity=severity)
    converted = getattr(source_file, "converted", None)
    context = {
        "run": run,
        "project": run.project,
        "file": source_file,
        "lines": annotate(text, findings, offsets),
        "finding_count": findings.count(),
        "severity": severity,
        "converted": converted,
        "view": request.GET.get("view", "source"),
    }
    return render(request, "projects/file_detail.html", context)
