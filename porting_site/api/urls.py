from django.urls import path
from rest_framework.permissions import AllowAny
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from porting_site.gates import views as gate_views

from . import apis, views

app_name = "api"

urlpatterns = [
    # The schema and its docs describe the API, not anyone's data: readable without logging in.
    path("schema/", SpectacularAPIView.as_view(permission_classes=[AllowAny]), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema", permission_classes=[AllowAny]), name="docs"),
    path("client/porting_ci.py", views.client_script, name="client-script"),
    path("tokens/", apis.TokenListApi.as_view(), name="tokens"),
    path("tokens/<int:token_id>/", apis.TokenDetailApi.as_view(), name="token"),
    path("account/tokens/", views.token_page, name="token-page"),
    path("account/projects/<int:project_id>/gate/", gate_views.gate_page, name="gate-page"),
    path("projects/", apis.ProjectListApi.as_view(), name="projects"),
    path("projects/<int:project_id>/", apis.ProjectDetailApi.as_view(), name="project"),
    path("projects/<int:project_id>/gate/", apis.ProjectGateApi.as_view(), name="project-gate"),
    path("projects/<int:project_id>/runs/", apis.ProjectRunsApi.as_view(), name="project-runs"),
    path("runs/<int:run_id>/", apis.RunDetailApi.as_view(), name="run"),
    path("runs/<int:run_id>/cancel/", apis.RunCancelApi.as_view(), name="run-cancel"),
    path("runs/<int:run_id>/gate/", apis.RunGateApi.as_view(), name="run-gate"),
    path("runs/<int:run_id>/findings/", apis.RunFindingsApi.as_view(), name="run-findings"),
    path("runs/<int:run_id>/findings/triage/", apis.RunFindingsTriageApi.as_view(), name="run-findings-triage"),
    path("runs/<int:run_id>/findings/<int:finding_id>/", apis.RunFindingDetailApi.as_view(), name="run-finding"),
    path("runs/<int:run_id>/findings/<int:finding_id>/triage/", apis.RunFindingTriageApi.as_view(),
         name="run-finding-triage"),
    path("runs/<int:run_id>/progress/", apis.RunProgressApi.as_view(), name="run-progress"),
    path("runs/<int:run_id>/kb-recheck/", apis.RunKbRecheckApi.as_view(), name="run-kb-recheck"),
    path("projects/<int:project_id>/progress/", apis.ProjectProgressApi.as_view(), name="project-progress"),
    path("projects/<int:project_id>/marks/", apis.ProjectMarksApi.as_view(), name="project-marks"),
    path("runs/<int:run_id>/files/", apis.RunFilesApi.as_view(), name="run-files"),
    path("runs/<int:run_id>/files/<int:file_id>/", apis.RunFileDetailApi.as_view(), name="run-file"),
    path("runs/<int:run_id>/converted.zip", apis.RunConvertedZipApi.as_view(), name="run-converted-zip"),
    path("runs/<int:run_id>/parity/", apis.RunParityApi.as_view(), name="run-parity"),
    path("runs/<int:run_id>/report.sarif", apis.RunSarifApi.as_view(), name="run-sarif"),
    path("runs/<int:run_id>/report.junit.xml", apis.RunJunitApi.as_view(), name="run-junit"),
    path("runs/<int:run_id>/report.json", apis.RunReportApi.as_view(), name="run-report"),
]
