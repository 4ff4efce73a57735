from django.urls import path

from porting_site.triage import views as triage_views

from . import views

app_name = "projects"

urlpatterns = [
    path("", views.project_list, name="list"),
    path("projects/new/", views.project_create, name="create"),
    path("rules/", views.rules, name="rules"),
    path("t/<slug:team_slug>/<slug:project_slug>/", views.project_detail, name="detail"),
    path("t/<slug:team_slug>/<slug:project_slug>/settings/", views.project_settings, name="settings"),
    path("t/<slug:team_slug>/<slug:project_slug>/compare/", views.runs_compare, name="compare"),
    path("runs/<int:run_id>/", views.run_detail, name="run"),
    path("runs/<int:run_id>/progress.json", views.run_progress, name="run-progress"),
    path("runs/<int:run_id>/files/", views.file_list, name="files"),
    path("runs/<int:run_id>/files/<int:file_id>/", views.file_detail, name="file"),
    path("runs/<int:run_id>/files/<int:file_id>/converted", views.file_converted, name="file-converted"),
    path("runs/<int:run_id>/parity/<int:result_id>/", views.parity_detail, name="parity"),
    path("runs/<int:run_id>/parity/<int:result_id>/checkpoint.ckpt", views.parity_checkpoint,
         name="parity-checkpoint"),
    path("runs/<int:run_id>/findings/", triage_views.finding_list, name="findings"),
    path("runs/<int:run_id>/findings/triage/", triage_views.finding_list_triage, name="findings-triage"),
    path("runs/<int:run_id>/findings/<int:finding_id>/", triage_views.finding_detail, name="finding"),
    path("runs/<int:run_id>/findings/<int:finding_id>/mark/", triage_views.finding_mark, name="finding-mark"),
    path("runs/<int:run_id>/kb-recheck/", views.run_kb_recheck, name="kb-recheck"),
]
