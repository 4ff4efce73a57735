"""Pages. Thin: a selector reads, a service writes, a template renders."""
from __future__ import annotations

from types import SimpleNamespace
from urllib.parse import quote

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, JsonResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.views.decorators.http import require_POST

from analysis.archive import ArchiveError
from porting_site.accounts.models import Membership, Team

from . import catalogue, charts, kb, parity_text, progress, quota, selectors, services, storage
from .forms import ProjectForm, ProjectSettingsForm, UploadForm
from .notebook_view import notebook_cells, render_notebook, source_lines
from .source_view import MARKER, notebook_code, read_text, render_source, side_by_side
from .upload_handlers import TOO_LARGE_ATTR


def _admin_teams(user):
    return Team.objects.filter(memberships__user=user, memberships__role=Membership.Role.ADMIN)


def _team_field(teams):
    return forms.ModelChoiceField(queryset=teams, empty_label=None)


def _wants_json(request) -> bool:
    return request.headers.get("x-requested-with") == "XMLHttpRequest"


@login_required
def project_list(request):
    projects = list(selectors.project_list(user=request.user))
    latest = selectors.latest_runs(projects=projects)
    sparks = selectors.projects_sparklines(projects=projects)
    from porting_site.gates.services import gate_statuses

    gates = gate_statuses(runs=latest.values())
    rows = [
        {"project": p, "latest": latest.get(p.pk), "spark": sparks.get(p.pk, []),
         "gate": gates.get(latest[p.pk].pk) if p.pk in latest else None,
         "spark_points": charts.sparkline_points(sparks.get(p.pk, []))}
        for p in projects
    ]
    teams = _admin_teams(request.user)
    form = ProjectForm()
    form.fields["team"] = _team_field(teams)
    member_of = list(request.user.teams.order_by("name"))
    disks = quota.team_disks(team_ids=[t.pk for t in member_of])
    return render(request, "projects/project_list.html", {
        "rows": rows, "form": form, "can_create": teams.exists(),
        "disks": [{"team": t, "disk": disks[t.pk]} for t in member_of]})


@login_required
@require_POST
def project_create(request):
    form = ProjectForm(request.POST)
    form.fields["team"] = _team_field(_admin_teams(request.user))
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
        form = UploadForm(request.POST, request.FILES, upload_too_large=getattr(request, TOO_LARGE_ATTR, False))
        if form.is_valid():
            try:
                run = services.run_create(project=project, user=request.user, **form.cleaned_data)
            except ArchiveError as exc:
                form.add_error("archive", str(exc))
            else:
                url = reverse("projects:run", args=[run.pk])
                return JsonResponse({"ok": True, "url": url}) if _wants_json(request) else redirect(url)
        if _wants_json(request):
            errors = {field: [str(e) for e in errs] for field, errs in form.errors.items()}
            return JsonResponse({"ok": False, "errors": errors}, status=400)
    else:
        form = UploadForm(initial={"target": project.target, "ms_version": project.ms_version, "device": project.device})
    runs = Paginator(project.runs.select_related("created_by").all(), 25).get_page(request.GET.get("page"))
    from porting_site.gates.services import gate_statuses

    # The runs table's gate column, and the history strip of the latest runs' verdicts.
    history_runs = list(project.runs.order_by("-number")[:20])
    gates = gate_statuses(runs=[*runs, *history_runs])
    for run in runs:
        run.gate_status = gates.get(run.pk)
    gate_history = [{"run": r, "status": gates.get(r.pk)} for r in reversed(history_runs)]
    trend = selectors.project_trend(project=project)
    is_admin = selectors.is_team_admin(user=request.user, team=project.team)
    settings_form = ProjectSettingsForm(instance=project)
    if not is_admin:
        for field in settings_form.fields.values():
            field.disabled = True
    # The current state is the latest finished run: the trend's last point (no extra queries).
    current = None
    if trend:
        last = trend[-1]
        current = dict(last, run=SimpleNamespace(pk=last["id"], number=last["number"], kb_version=last["kb_version"]))
    context = {
        "current": current, "statuses": _statuses(current),
        "findings_base": reverse("projects:findings", args=[current["run"].pk]) + "?" if current else "",
        "project": project, "runs": runs, "form": form, "trend": trend, "trend_figure": charts.trend(trend),
        "latest_point": trend[-1] if trend else None, "settings_form": settings_form, "is_admin": is_admin,
        "max_upload": _max_upload(), "gate_history": gate_history,
        "gate_latest": next((h for h in reversed(gate_history) if h["run"].is_finished), None),
    }
    return render(request, "projects/project_detail.html", context)


def _statuses(figures: dict | None) -> list[tuple[str, int]]:
    return [(s, figures[s]) for s in progress.STATUSES] if figures else []


def _max_upload() -> int:
    from django.conf import settings

    return settings.PORTING_MAX_UPLOAD_BYTES


@login_required
@require_POST
def project_settings(request, team_slug: str, project_slug: str):
    project = selectors.project_get(user=request.user, team_slug=team_slug, project_slug=project_slug)
    if not selectors.is_team_admin(user=request.user, team=project.team):
        messages.error(request, "Only a team admin can change the project's settings.")
        return redirect("projects:detail", team_slug=team_slug, project_slug=project_slug)
    form = ProjectSettingsForm(request.POST, instance=project)
    if form.is_valid():
        form.save()
        messages.success(request, "Settings saved; they apply to the next run.")
    else:
        messages.error(request, "The settings were not saved: " + "; ".join(
            f"{k}: {' '.join(v)}" for k, v in form.errors.items()))
    return redirect("projects:detail", team_slug=team_slug, project_slug=project_slug)


@login_required
def run_detail(request, run_id: int):
    run = selectors.run_get(user=request.user, run_id=run_id)
    summary = selectors.run_summary(run=run) if run.is_finished else None
    if summary:
        for row in summary["by_rule"]:
            row["title"] = catalogue.rule_info(row["rule_id"]).get("title", "")
    figures = None
    recheck = kb.kb_recheck_state(run=run) if summary else {}
    if summary:
        figures = dict(summary["progress"], parity_pass=summary["parity"].get("pass", 0),
                       parity_total=summary["parity_total"])
    context = {
        "figures": figures, "statuses": _statuses(figures),
        # A failed or cancelled run's figures cover what was stored before it stopped: never "100 % done".
        "partial": run.is_finished and run.status != run.Status.DONE,
        "gate": _gate(run),
        "findings_base": reverse("projects:findings", args=[run.pk]) + "?",
        "kb_current": kb.KNOWLEDGE_BASE_VERSION, "kb_recheck": recheck.get("latest"),
        "kb_pending": recheck.get("pending"), "kb_failed": recheck.get("failed"),
        "run": run,
        "project": run.project,
        "progress": selectors.run_progress(run=run),
        "summary": summary,
        "parity_results": run.parity_results.all() if run.is_finished else [],
        "downloads": _downloads(run),
        "previous": run.project.runs.filter(number__lt=run.number).order_by("-number").first(),
    }
    return render(request, "projects/run_detail.html", context)


def _gate(run):
    """The run's gate verdict, read once for the title's badge and the gate panel."""
    from porting_site.gates.services import gate_evaluate

    return gate_evaluate(run=run)


# The REST API (porting_site/api) serves the run's artefacts; link to them when
# its URL names exist, so the page works before and after it lands.
DOWNLOADS = [
    ("Converted repository (zip)", ("api:run-converted", "api:run-converted-zip", "api:run-download")),
    ("Report (JSON)", ("api:run-report", "api:run-report-json")),
    ("SARIF", ("api:run-sarif",)),
    ("JUnit XML", ("api:run-junit",)),
]


def _downloads(run) -> list[dict]:
    links = []
    for label, names in DOWNLOADS:
        for name in names:
            try:
                links.append({"label": label, "url": reverse(name, args=[run.pk])})
                break
            except NoReverseMatch:
                continue
    return links


@login_required
@require_POST
def run_kb_recheck(request, run_id: int):
    """Queue a re-analysis of the run's snapshot with the current knowledge base (members)."""
    run = selectors.run_get(user=request.user, run_id=run_id)
    try:
        recheck = kb.kb_recheck_request(run=run, user=request.user)
    except kb.RecheckUnavailable as exc:
        messages.error(request, f"The run could not be re-checked: {exc}.")
    else:
        messages.success(request, f"Re-check of run #{run.number} with knowledge base {recheck.kb_after} queued; "
                                  "the page shows the result when a worker has done it.")
    back = request.POST.get("next", "")
    return redirect(back if back.startswith("/") and not back.startswith("//") else reverse("projects:run", args=[run.pk]) + "#kb")


@login_required
def run_progress(request, run_id: int):
    run = selectors.run_get(user=request.user, run_id=run_id)
    return JsonResponse(selectors.run_progress(run=run))


@login_required
def file_list(request, run_id: int):
    run = selectors.run_get(user=request.user, run_id=run_id)
    q, order, show = request.GET.get("q", ""), request.GET.get("order", "path"), request.GET.get("show", "")
    files = selectors.file_list(run=run, query=q, order=order, show=show)
    page = Paginator(files, 100).get_page(request.GET.get("page"))
    # "Left for a person" is the one definition (progress.DONE), as on the run page and in the API.
    done = progress.files_progress(file_ids=[f.pk for f in page], keys=(*progress.BRIEF, "converted"))
    rows = [{"file": f, "progress": done.get(f.pk)} for f in page]
    columns = [("path", "Path", ""), ("lines", "Lines", "num"), ("errors", "Errors", "num"),
               ("warnings", "Warnings", "num"), ("infos", "Info", "num hide-narrow")]
    headers = [
        {"key": key, "label": label, "cls": cls,
         "next": f"-{key}" if order == key else key,
         "sorted": "ascending" if order == key else "descending" if order == f"-{key}" else ""}
        for key, label, cls in columns
    ]
    return render(request, "projects/file_list.html", {
        "run": run, "project": run.project, "page": page, "rows": rows, "q": q, "order": order, "show": show,
        "findings_url": reverse("projects:findings", args=[run.pk]),
        "headers": headers, "filters": [("", "all files"), ("errors", "with errors"), ("warnings", "with warnings"),
                                        ("clean", "no errors or warnings"), ("unparsed", "not parsed")],
    })


SHOW_CHOICES = (("left", "left for a person"), ("all", "all uses (done ones closed)"))


@login_required
def file_detail(request, run_id: int, file_id: int):
    run = selectors.run_get(user=request.user, run_id=run_id)
    source_file = selectors.file_get(run=run, file_id=file_id)
    path = storage.source_dir(run.pk) / source_file.path
    if not path.is_file():
        raise Http404("the run's files are no longer on disk")
    raw = read_text(path.read_bytes())
    text, offsets, cells = raw, None, None
    if source_file.path.endswith(".ipynb"):
        text, offsets = notebook_code(raw)
        cells = notebook_cells(raw)
    severity, rule = request.GET.get("severity", ""), request.GET.get("rule", "")
    # What a person opens a file for is what is left; done uses stay one click away.
    show = request.GET.get("show") if request.GET.get("show") in dict(SHOW_CHOICES) else "left"
    view = "diff" if request.GET.get("view") == "diff" else "source"
    converted = _converted(source_file)
    context = {
        "run": run, "project": run.project, "file": source_file, "severity": severity, "rule": rule, "view": view,
        "show": show, "show_choices": SHOW_CHOICES,
        "converted": converted, "rule_counts": selectors.file_rule_counts(source_file=source_file),
        # Both views show the file's figures: "left for a person" is progress.DONE's, never the converter's list.
        "figures": progress.files_progress(file_ids=[source_file.pk], keys=None).get(source_file.pk)
        or progress.empty(),
        "findings_url": reverse("projects:findings", args=[run.pk]) + "?path=" + quote(source_file.path),
        "notebook": cells is not None, "cells": cells,
        "source_lines": source_lines(cells) if cells is not None else source_file.lines,
        "code_cells": sum(1 for c in cells if c.kind == "code") if cells is not None else 0,
    }
    if view == "diff" and converted is not None:
        after = notebook_code(converted.text)[0] if cells is not None else converted.text
        todo = {item.get("line") for item in converted.unconverted
                if isinstance(item, dict) and cells is None}  # notebook items carry cell-relative lines
        context["diff_rows"] = side_by_side(text, after, todo)
        context["todo"] = [
            dict(item, text=item.get("action") or item.get("message") or item.get("description") or "")
            for item in converted.unconverted if isinstance(item, dict)
        ]
        context["marker"] = MARKER
    else:
        every = list(selectors.file_findings(source_file=source_file, severity=severity, rule=rule))
        findings = [f for f in every if not progress.is_done(f)] if show == "left" else every
        assignees = selectors.mark_assignees(source_file=source_file) if any(f.mark_id for f in findings) else {}
        for f in findings:
            f.assignee_name = assignees.get(f.mark_id, "")
        context["finding_count"], context["hidden_done"] = len(findings), len(every) - len(findings)
        urls = {"rules_url": reverse("projects:rules"), "finding_url": reverse("projects:finding", args=[run.pk, 0]),
                "collapse": progress.is_done}
        context["source_html"] = (render_notebook(cells, findings, **urls) if cells is not None
                                  else render_source(text, findings, offsets, **urls))
        from porting_site.triage.views import ACTION_LABELS, _members

        context["actions"], context["members"] = ACTION_LABELS, _members(run.project)
    return render(request, "projects/file_detail.html", context)


@login_required
def file_converted(request, run_id: int, file_id: int):
    """The converted file as a download (a notebook opens in Jupyter as it is)."""
    run = selectors.run_get(user=request.user, run_id=run_id)
    source_file = selectors.file_get(run=run, file_id=file_id)
    converted = _converted(source_file)
    if converted is None:
        raise Http404("this file has no converted version")
    from django.http import HttpResponse

    name = source_file.path.rsplit("/", 1)[-1]
    response = HttpResponse(converted.text, content_type="application/x-ipynb+json" if name.endswith(".ipynb")
                            else "text/x-python; charset=utf-8")
    response["Content-Disposition"] = f"attachment; filename=\"{quote(name)}\""
    return response


def _converted(source_file):
    from .models import ConvertedFile

    return ConvertedFile.objects.filter(file=source_file).only("id", "text", "unconverted").first()


@login_required
def parity_checkpoint(request, run_id: int, result_id: int):
    """The converted cell's weights (transferred from the PyTorch state) as a .ckpt file."""
    run = selectors.run_get(user=request.user, run_id=run_id)
    result = selectors.parity_get(run=run, result_id=result_id)
    name = (result.details or {}).get("checkpoint") if isinstance(result.details, dict) else None
    path = storage.checkpoint_dir(run.pk) / name if name else None
    if path is None or path.name != name or not path.is_file():
        raise Http404("no checkpoint was saved for this entry point")
    return FileResponse(open(path, "rb"), as_attachment=True, filename=name)


@login_required
def parity_detail(request, run_id: int, result_id: int):
    run = selectors.run_get(user=request.user, run_id=run_id)
    result = selectors.parity_get(run=run, result_id=result_id)
    layers = [l for l in result.layers if isinstance(l, dict)]
    details = result.details if isinstance(result.details, dict) else {}
    # Train-mode rows matter on their own: a BatchNorm momentum error passes eval and fails here.
    train_layers = [l for l in details.get("layers_train") or [] if isinstance(l, dict)]
    by_call = {(l.get("path"), l.get("call")): l for l in train_layers}
    for layer in layers:
        layer["train"] = by_call.get((layer.get("path"), layer.get("call")))
    gradients = [g for g in details.get("gradients") or [] if isinstance(g, dict)]
    state = [s for s in details.get("state_after_step") or [] if isinstance(s, dict)]
    mismatches = [m for m in result.config_mismatches if isinstance(m, dict)]
    file_ids = selectors.files_by_path(
        run=run, paths={r.get("file") for r in layers + gradients + state + mismatches if r.get("file")})

    def source_url(row: dict) -> str:
        fid = file_ids.get(row.get("file") or "")
        if not fid:
            return ""
        return reverse("projects:file", args=[run.pk, fid]) + (f"#L{row['line']}" if row.get("line") else "")

    layer_urls = {l["path"]: source_url(l) for l in layers if l.get("path")}
    for rows in (layers, gradients, state, mismatches):
        for row in rows:
            row["source_url"] = source_url(row)
    curve = getattr(result, "loss_curve", None) if _has_curve(result) else None
    loss_extra = details.get("loss_curve") if isinstance(details.get("loss_curve"), dict) else {}
    figures = {
        "layers": charts.layer_errors(layers, result.first_diverging_layer, layer_urls),
        "layers_train": charts.layer_errors(train_layers, result.first_diverging_layer, layer_urls, mode="train"),
        "gradients": charts.gradient_errors(gradients),
        "scatter": charts.output_scatter(details.get("output_sample")),
        "histogram": charts.error_histogram(details.get("abs_error_histogram")),
        "loss": charts.loss_curves(curve.torch_losses, curve.mindspore_losses, loss_extra.get("rtol"),
                                   band=loss_extra.get("allowed_relative"))
        if curve else None,
    }
    figures = {k: v for k, v in figures.items() if v}
    metrics = result.metrics if isinstance(result.metrics, dict) else {}
    context = {
        "run": run, "project": run.project, "result": result, "metrics": metrics,
        "headline": [(k, metrics.get(k)) for k in ("max_abs", "max_rel", "mean_abs", "cosine") if k in metrics],
        "measured": parity_text.headline(result, details),
        "loss_rows": parity_text.loss_description(loss_extra, len(curve.torch_losses) if curve else 0),
        "layers": layers, "has_train_layers": bool(train_layers), "gradients": gradients, "state": state, "mismatches": mismatches,
        "state_failing": sum(1 for s in state if s.get("status") == "fail"),
        "first": next((l for l in layers if l.get("path") == result.first_diverging_layer), None),
        "figures": figures, "weights": details.get("weights") if isinstance(details.get("weights"), dict) else None,
        "others": run.parity_results.exclude(pk=result.pk).only("id", "name", "module", "status"),
        "stderr": details.get("stderr_tail", ""),
    }
    return render(request, "projects/parity_detail.html", context)


def _has_curve(result) -> bool:
    from .models import LossCurve

    try:
        return result.loss_curve is not None
    except LossCurve.DoesNotExist:
        return False


@login_required
def rules(request):
    usage = selectors.rule_usage(user=request.user)
    catalogue_rules = catalogue.all_rules()
    known = {r["id"] for r in catalogue_rules}
    # Rules seen in findings but missing from the catalogue still get a row.
    extra = [catalogue.rule_info(rid) for rid in sorted(usage) if rid not in known]
    severity = request.GET.get("severity", "")
    rows = [dict(r, used=usage.get(r["id"], 0)) for r in catalogue_rules + extra
            if not severity or r.get("severity") == severity]
    return render(request, "projects/rules.html", {"rules": rows, "severity": severity,
                                                   "available": bool(catalogue_rules)})


@login_required
def runs_compare(request, team_slug: str, project_slug: str):
    project = selectors.project_get(user=request.user, team_slug=team_slug, project_slug=project_slug)
    numbers = list(project.runs.order_by("-number").values_list("number", flat=True)[:200])
    newer = selectors.run_by_number(project=project, number=request.GET.get("b") or (numbers[0] if numbers else None))
    older = selectors.run_by_number(
        project=project, number=request.GET.get("a") or (numbers[1] if len(numbers) > 1 else None))
    comparison = None
    if older and newer and older.pk != newer.pk:
        if older.number > newer.number:
            older, newer = newer, older
        comparison = selectors.runs_compare(older=older, newer=newer)
        comparison["kb"] = kb.kb_split(older=older, newer=newer)
    return render(request, "projects/compare.html", {
        "project": project, "numbers": numbers, "older": older, "newer": newer, "cmp": comparison,
    })
