"""REST endpoints. Thin: an InputSerializer validates, one selector or service
call does the work, an OutputSerializer shapes the answer.

Every object is looked up through the user's teams (the pages' selectors), so
another team's project or run is a 404 and an anonymous request a 401.
"""
from __future__ import annotations

import json
import tempfile
import zipfile

from django.http import FileResponse, HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from porting_site.gates.services import gate_evaluate, gate_policy_get, gate_policy_update
from porting_site.projects import kb, progress, storage
from porting_site.projects.quota import team_disk
from porting_site.projects import selectors as project_selectors
from porting_site.projects.models import (
    MINDSPORE_VERSION,
    ConvertedFile,
    Device,
    Finding,
    ParityResult,
    Project,
    Run,
    Severity,
    SourceFile,
    Target,
)
from porting_site.projects.upload_handlers import TOO_LARGE_ATTR, upload_too_large_message
from porting_site.projects.validators import validate_ms_version
from porting_site.reports import run_junit_xml, run_report_json, run_sarif
from porting_site.triage.models import Mark, MarkEvent
from porting_site.triage.services import ACTIONS as TRIAGE_ACTIONS
from porting_site.triage.services import TriageError, finding_triage, findings_bulk_triage

from . import selectors, services, tokens
from .models import ApiToken
from .pagination import Pagination
from .parsers import RawArchiveParser


def _paginate(view: APIView, request, queryset, serializer_class) -> Response:
    paginator = Pagination()
    page = paginator.paginate_queryset(queryset, request, view=view)
    return paginator.get_paginated_response(serializer_class(page, many=True).data)


# --- shared output shapes ---------------------------------------------------------------


class StageSerializer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()
    status = serializers.CharField()
    done = serializers.IntegerField()
    total = serializers.IntegerField()
    percent = serializers.IntegerField()
    seconds = serializers.FloatField(allow_null=True)
    detail = serializers.CharField()


class GateCheckSerializer(serializers.Serializer):
    name = serializers.CharField()
    passed = serializers.BooleanField()
    message = serializers.CharField()
    value = serializers.JSONField(allow_null=True)
    threshold = serializers.JSONField(allow_null=True)
    url = serializers.CharField(required=False, help_text="the page of what the check judged: the findings list "
                                "filtered to exactly the findings counted, or the run page's parity table")


class GateOutputSerializer(serializers.Serializer):
    status = serializers.CharField()
    baseline = serializers.IntegerField(source="baseline_id", allow_null=True)
    reasons = serializers.ListField(child=serializers.CharField())
    checks = serializers.SerializerMethodField()
    policy = serializers.JSONField()
    evaluated_at = serializers.DateTimeField(allow_null=True)

    @extend_schema_field(GateCheckSerializer(many=True))
    def get_checks(self, gate) -> list[dict]:
        from porting_site.gates.links import checks_with_links

        return GateCheckSerializer(checks_with_links(gate.run_id, gate.checks), many=True).data


class FiguresSerializer(serializers.Serializer):
    found = serializers.IntegerField(help_text="PyTorch uses found")
    done = serializers.IntegerField(help_text="converted, or marked false positive / fixed, or accepted (not unresolved)")
    left = serializers.IntegerField(help_text="found minus done")
    percent = serializers.IntegerField(help_text="done as a percentage of found (100 when nothing was found)")
    converted = serializers.IntegerField()
    review = serializers.IntegerField()
    manual = serializers.IntegerField()
    unresolved = serializers.IntegerField()
    accepted = serializers.IntegerField()
    false_positive = serializers.IntegerField()
    fixed = serializers.IntegerField()


class RunFiguresSerializer(FiguresSerializer):
    """A run's figures as its page shows them (projects.progress: one definition for pages, API and CI)."""

    left_error = serializers.IntegerField(help_text="error findings left for a person")
    left_warning = serializers.IntegerField(help_text="warning findings left for a person")
    left_info = serializers.IntegerField(help_text="info findings left for a person")
    parity_pass = serializers.IntegerField(help_text="entry points whose parity check passed")
    parity_total = serializers.IntegerField(help_text="entry points checked (skipped ones aside)")
    parity_skipped = serializers.IntegerField(help_text="entry points not checked")


class FolderFiguresSerializer(FiguresSerializer):
    path = serializers.CharField()


class RunOutputSerializer(serializers.ModelSerializer):
    project = serializers.IntegerField(source="project_id")
    finished = serializers.BooleanField(source="is_finished")

    class Meta:
        model = Run
        fields = ["id", "project", "number", "status", "finished", "error", "archive_name", "target", "ms_version",
                  "device", "kb_version", "created_at", "started_at", "finished_at"]


# --- tokens ---------------------------------------------------------------------------------


class TokenOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "last_used_at"]


class TokenListApi(APIView):
    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=100, default="default")

    class CreatedSerializer(TokenOutputSerializer):
        key = serializers.CharField(help_text="shown only once")

        class Meta(TokenOutputSerializer.Meta):
            fields = TokenOutputSerializer.Meta.fields + ["key"]

    @extend_schema(responses=TokenOutputSerializer(many=True))
    def get(self, request):
        return Response(TokenOutputSerializer(tokens.token_list(user=request.user), many=True).data)

    @extend_schema(request=InputSerializer, responses={201: CreatedSerializer})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        token, key = tokens.token_create(user=request.user, **data.validated_data)
        token.key = key
        return Response(self.CreatedSerializer(token).data, status=status.HTTP_201_CREATED)


class TokenDetailApi(APIView):
    @extend_schema(responses={204: None})
    def delete(self, request, token_id: int):
        if not tokens.token_revoke(user=request.user, token_id=token_id):
            return Response({"detail": "Not found."}, status=status.HTTP_404_NOT_FOUND)
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- projects -------------------------------------------------------------------------------


class ProjectOutputSerializer(serializers.ModelSerializer):
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True)

    class Meta:
        model = Project
        fields = ["id", "team", "name", "slug", "description", "target", "ms_version", "device", "created_at"]


class ProjectListApi(APIView):
    class FilterSerializer(serializers.Serializer):
        team = serializers.CharField(required=False, help_text="team slug")
        slug = serializers.CharField(required=False, help_text="project slug")

    class InputSerializer(serializers.Serializer):
        team = serializers.SlugField(help_text="slug of a team you administer")
        name = serializers.CharField(max_length=120)
        description = serializers.CharField(required=False, allow_blank=True, default="")
        target = serializers.ChoiceField(choices=Target.choices, default=Target.CLASSIC)
        ms_version = serializers.CharField(max_length=10, validators=[validate_ms_version], default=MINDSPORE_VERSION)
        device = serializers.ChoiceField(choices=Device.choices, default=Device.CPU)

    @extend_schema(parameters=[FilterSerializer], responses=ProjectOutputSerializer(many=True))
    def get(self, request):
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        projects = project_selectors.project_list(user=request.user).order_by("team__slug", "slug")
        if "team" in filters.validated_data:
            projects = projects.filter(team__slug=filters.validated_data["team"])
        if "slug" in filters.validated_data:
            projects = projects.filter(slug=filters.validated_data["slug"])
        return _paginate(self, request, projects, ProjectOutputSerializer)

    @extend_schema(request=InputSerializer, responses={201: ProjectOutputSerializer})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        project = services.project_create_api(user=request.user, team_slug=fields.pop("team"), **fields)
        return Response(ProjectOutputSerializer(project).data, status=status.HTTP_201_CREATED)


class ProjectHistorySerializer(FiguresSerializer):
    """One run of a project's history: its migration figures plus severities, parity and gate."""

    run_id = serializers.IntegerField()
    number = serializers.IntegerField()
    status = serializers.CharField()
    created_at = serializers.DateTimeField()
    errors = serializers.IntegerField()
    warnings = serializers.IntegerField()
    infos = serializers.IntegerField()
    parity_passed = serializers.IntegerField()
    parity_checked = serializers.IntegerField()
    gate = serializers.CharField(allow_null=True)


class TeamDiskSerializer(serializers.Serializer):
    used_bytes = serializers.IntegerField(help_text="what the team's runs hold on disk: archives, source, "
                                                    "converted trees, parity checkpoints")
    limit_bytes = serializers.IntegerField(help_text="the team's disk quota")
    room_bytes = serializers.IntegerField(help_text="what is left; an upload larger than this is refused")


class ProjectDetailApi(APIView):
    class OutputSerializer(ProjectOutputSerializer):
        history = ProjectHistorySerializer(many=True, help_text="the latest runs, oldest first")
        team_disk = TeamDiskSerializer(help_text="the project's team: disk used and its quota")

        class Meta(ProjectOutputSerializer.Meta):
            fields = ProjectOutputSerializer.Meta.fields + ["history", "team_disk"]

    @extend_schema(responses=OutputSerializer)
    def get(self, request, project_id: int):
        project = selectors.project_get_by_id(user=request.user, project_id=project_id)
        project.history = selectors.project_history(project=project)
        project.team_disk = team_disk(team=project.team_id).to_dict()
        return Response(self.OutputSerializer(project).data)


class GatePolicySerializer(serializers.Serializer):
    max_new_errors = serializers.IntegerField(min_value=0, allow_null=True, required=False)
    max_new_warnings = serializers.IntegerField(min_value=0, allow_null=True, required=False)
    min_parity_pass_rate = serializers.FloatField(min_value=0.0, max_value=1.0, allow_null=True, required=False)
    no_parity_regression = serializers.BooleanField(required=False)
    count_accepted = serializers.BooleanField(required=False, help_text="count findings marked accepted")
    count_false_positive = serializers.BooleanField(required=False, help_text="count findings marked false positive")
    count_fixed = serializers.BooleanField(required=False, help_text="count findings marked fixed by hand")


class ProjectGateApi(APIView):
    """The project's quality-gate thresholds (team admins change them)."""

    @extend_schema(responses=GatePolicySerializer)
    def get(self, request, project_id: int):
        project = selectors.project_get_by_id(user=request.user, project_id=project_id)
        return Response(GatePolicySerializer(gate_policy_get(project=project)).data)

    @extend_schema(request=GatePolicySerializer, responses=GatePolicySerializer)
    def put(self, request, project_id: int):
        project = selectors.project_get_by_id(user=request.user, project_id=project_id)
        if not selectors.user_is_team_admin(user=request.user, team_id=project.team_id):
            raise PermissionDenied("only team admins change the quality gate")
        data = GatePolicySerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(GatePolicySerializer(gate_policy_update(project=project, **data.validated_data)).data)


# --- runs -------------------------------------------------------------------------------------


class ProjectRunsApi(APIView):
    parser_classes = [MultiPartParser, FormParser, RawArchiveParser]

    class OptionsSerializer(serializers.Serializer):
        target = serializers.ChoiceField(choices=Target.choices, required=False)
        ms_version = serializers.CharField(max_length=10, validators=[validate_ms_version], required=False)
        device = serializers.ChoiceField(choices=Device.choices, required=False)
        baseline = serializers.RegexField(
            r"^(auto|none|\d{1,18})$", required=False, default="auto",
            help_text="'auto' (the latest completed run before this one), 'none', or a run id of this project",
        )

    class InputSerializer(OptionsSerializer):
        archive = serializers.FileField(help_text="the repository as .tar.gz, .tar or .zip")
        converted_archive = serializers.FileField(
            required=False,
            help_text="optional: your own (hand-edited) MindSpore conversion, same layout and class names; "
            "parity checks it instead of the automatic conversion (multipart only)",
        )

    @extend_schema(responses=RunOutputSerializer(many=True))
    def get(self, request, project_id: int):
        project = selectors.project_get_by_id(user=request.user, project_id=project_id)
        return _paginate(self, request, project.runs.all(), RunOutputSerializer)

    @extend_schema(
        request={"multipart/form-data": InputSerializer, "application/gzip": OpenApiTypes.BINARY},
        parameters=[OptionsSerializer, OpenApiParameter("filename", str, description="name of a raw-body upload")],
        responses={201: RunOutputSerializer},
        description="Upload an archive as multipart (field `archive`, options as fields) or as the raw body "
        "(Content-Type application/gzip, options as query parameters); the pipeline starts at once.",
    )
    def post(self, request, project_id: int):
        project = selectors.project_get_by_id(user=request.user, project_id=project_id)
        raw = "archive" in request.data and not request.content_type.startswith(("multipart/", "application/x-www"))
        fields = {**request.query_params.dict(), "archive": request.data.get("archive")} if raw else request.data
        if getattr(request, TOO_LARGE_ATTR, False):
            return Response({"archive": [upload_too_large_message()]}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
        data = self.InputSerializer(data=fields)
        try:
            data.is_valid(raise_exception=True)
            run = services.run_create_api(project=project, user=request.user, **data.validated_data)
        finally:
            if raw:  # the storage moved the temporary file; closing tells the tempfile not to unlink it later
                request.data["archive"].close()
        return Response(RunOutputSerializer(run).data, status=status.HTTP_201_CREATED)


class RunDetailApi(APIView):
    class OutputSerializer(RunOutputSerializer):
        stages = StageSerializer(many=True)
        counts = serializers.DictField(child=serializers.IntegerField())
        parity = serializers.DictField(child=serializers.IntegerField())
        gate = GateOutputSerializer()
        progress = RunFiguresSerializer(help_text="honest accounting of the run's PyTorch uses, and parity")

        class Meta(RunOutputSerializer.Meta):
            fields = RunOutputSerializer.Meta.fields + ["stages", "counts", "parity", "gate", "progress"]

    @extend_schema(responses=OutputSerializer)
    def get(self, request, run_id: int):
        run = project_selectors.run_get(user=request.user, run_id=run_id)
        summary = project_selectors.run_summary(run=run)
        run.stages_ = project_selectors.run_progress(run=run)["stages"]
        data = RunOutputSerializer(run).data
        data.update(
            stages=StageSerializer(run.stages_, many=True).data,
            counts={s: summary["by_severity"].get(s, 0) for s in Severity.values} | {"files": summary["files"]},
            parity={s: summary["parity"].get(s, 0) for s in ParityResult.Status.values},
            gate=GateOutputSerializer(gate_evaluate(run=run)).data,
            progress=RunFiguresSerializer(summary["progress"]).data,
        )
        return Response(data)


class RunCancelApi(APIView):
    @extend_schema(request=None, responses=RunOutputSerializer)
    def post(self, request, run_id: int):
        run = project_selectors.run_get(user=request.user, run_id=run_id)
        return Response(RunOutputSerializer(services.run_cancel(run=run)).data)


class RunGateApi(APIView):
    @extend_schema(responses=GateOutputSerializer)
    def get(self, request, run_id: int):
        run = project_selectors.run_get(user=request.user, run_id=run_id)
        return Response(GateOutputSerializer(gate_evaluate(run=run)).data)


# --- findings and files -----------------------------------------------------------------------


class MarkSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    state = serializers.CharField(help_text="'' (open), accepted, false_positive or fixed")
    reason = serializers.CharField()
    assignee = serializers.CharField(source="assignee.username", allow_null=True, default=None)
    closed = serializers.SerializerMethodField(help_text="the code it was on disappeared in a later run")
    closed_in_run = serializers.IntegerField(source="closed_in_run.number", allow_null=True, default=None)
    path = serializers.CharField()
    line = serializers.IntegerField()
    rule_id = serializers.CharField()
    torch_api = serializers.CharField()
    fingerprint = serializers.CharField()

    def get_closed(self, obj) -> bool:
        return obj.closed_at is not None


class FindingFilterSerializer(serializers.Serializer):
    file = serializers.CharField(required=False, help_text="exact file path")
    file_id = serializers.IntegerField(required=False, min_value=1)
    path = serializers.CharField(required=False, help_text="a file path, or a folder prefix ending in /")
    rule = serializers.CharField(required=False, help_text="rule id; a trailing * matches a prefix")
    severity = serializers.ChoiceField(choices=Severity.choices, required=False)
    status = serializers.ChoiceField(choices=[(s, s) for s in ("converted", "review", "manual", "unresolved")],
                                     required=False, help_text="the analyzer's status of the use")
    triage = serializers.ChoiceField(choices=[(s, s) for s in ("open", "marked", "accepted", "false_positive",
                                                               "fixed")], required=False,
                                     help_text="a person's mark (open: not marked)")
    done = serializers.ChoiceField(choices=[("yes", "yes"), ("no", "no")], required=False,
                                   help_text="yes: counts as done; no: left for a person")
    assignee = serializers.CharField(required=False, help_text="username the finding is assigned to")
    new = serializers.BooleanField(required=False, allow_null=True, default=None,
                                   help_text="only findings absent from (true) or present in (false) the baseline")
    api = serializers.CharField(required=False, help_text="PyTorch API; a trailing * matches a prefix")
    q = serializers.CharField(required=False, help_text="text in the message, the APIs or the path (any case)")
    gate = serializers.ChoiceField(choices=[("counted", "counted")], required=False,
                                   help_text="counted: only findings the project's quality gate counts")
    page = serializers.IntegerField(required=False, min_value=1)
    page_size = serializers.IntegerField(required=False, min_value=1, max_value=1000)


class FindingOutputSerializer(serializers.ModelSerializer):
    path = serializers.CharField(source="file.path")
    file = serializers.IntegerField(source="file_id")
    mark = MarkSerializer(allow_null=True)

    class Meta:
        model = Finding
        fields = ["id", "file", "path", "line", "column", "end_line", "end_column", "cell", "rule_id", "severity",
                  "status", "triage", "torch_api", "mindspore_api", "category", "confidence", "message", "extra",
                  "fingerprint", "mark"]


class MarkEventSerializer(serializers.Serializer):
    at = serializers.DateTimeField()
    user = serializers.CharField(source="user.username", allow_null=True, default=None,
                                 help_text="null: the pipeline (carry-over, close)")
    action = serializers.CharField()
    old_state = serializers.CharField()
    new_state = serializers.CharField()
    old_assignee = serializers.CharField()
    new_assignee = serializers.CharField()
    reason = serializers.CharField()
    run = serializers.IntegerField(source="run.number", allow_null=True, default=None)
    finding = serializers.IntegerField(source="finding_id", allow_null=True)


class TriageInputSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=[(a, a) for a in TRIAGE_ACTIONS])
    reason = serializers.CharField(required=False, allow_blank=True, default="",
                                   help_text="required to accept or to call a finding a false positive")
    assignee = serializers.CharField(required=False, allow_blank=True, allow_null=True,
                                     help_text="username of a team member (action assign); empty unassigns")


def _triage(call, **kwargs):
    try:
        return call(**kwargs)
    except TriageError as exc:
        raise ValidationError({"detail": str(exc)}) from exc


def _finding_get(request, run_id: int, finding_id: int) -> Finding:
    run = project_selectors.run_get(user=request.user, run_id=run_id)
    return get_object_or_404(Finding.objects.select_related("file", "run__project", "mark__assignee",
                                                            "mark__closed_in_run"), run=run, pk=finding_id)


class RunFindingDetailApi(APIView):
    class OutputSerializer(FindingOutputSerializer):
        events = MarkEventSerializer(many=True, help_text="the mark's audit trail, oldest first")

        class Meta(FindingOutputSerializer.Meta):
            fields = FindingOutputSerializer.Meta.fields + ["events"]

    @extend_schema(responses=OutputSerializer)
    def get(self, request, run_id: int, finding_id: int):
        finding = _finding_get(request, run_id, finding_id)
        finding.events = (MarkEvent.objects.filter(mark_id=finding.mark_id).select_related("user", "run")
                          if finding.mark_id else [])
        return Response(self.OutputSerializer(finding).data)


class RunFindingTriageApi(APIView):
    """Mark one finding (team members): accept, false_positive, fixed, reopen, or assign."""

    @extend_schema(request=TriageInputSerializer, responses=FindingOutputSerializer)
    def post(self, request, run_id: int, finding_id: int):
        finding = _finding_get(request, run_id, finding_id)
        data = TriageInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        if "assignee" in values:
            values["assignee"] = values["assignee"] or None
        _triage(finding_triage, finding=finding, user=request.user, **values)
        return Response(FindingOutputSerializer(_finding_get(request, run_id, finding_id)).data)


class RunFindingsTriageApi(APIView):
    """One action on every finding the filter selects (or on the listed ids)."""

    class InputSerializer(TriageInputSerializer):
        filter = FindingFilterSerializer(required=False, help_text="the findings list's filters")
        ids = serializers.ListField(child=serializers.IntegerField(min_value=1), required=False,
                                    help_text="only these findings (within the filter)")

    class OutputSerializer(serializers.Serializer):
        changed = serializers.IntegerField()
        unchanged = serializers.IntegerField()
        skipped = serializers.IntegerField(help_text="unresolved uses an accept left out")

    @extend_schema(request=InputSerializer, responses=OutputSerializer, operation_id="runs_findings_bulk_triage")
    def post(self, request, run_id: int):
        run = project_selectors.run_get(user=request.user, run_id=run_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        query = {k: v for k, v in (values.pop("filter", None) or {}).items() if k not in ("page", "page_size")}
        findings = selectors.finding_list(run=run, **query)
        ids = values.pop("ids", None)
        if ids is not None:
            findings = findings.filter(pk__in=ids)
        if "assignee" in values:
            values["assignee"] = values["assignee"] or None
        return Response(_triage(findings_bulk_triage, findings=findings, user=request.user, **values))


class RunProgressApi(APIView):
    class OutputSerializer(RunFiguresSerializer):
        folders = FolderFiguresSerializer(many=True)

    @extend_schema(responses=OutputSerializer)
    def get(self, request, run_id: int):
        run = project_selectors.run_get(user=request.user, run_id=run_id)
        data = dict(progress.run_progress(run=run), folders=progress.folders_progress(run=run, limit=10_000, keys=None))
        return Response(self.OutputSerializer(data).data)


class ProjectProgressApi(APIView):
    class OutputSerializer(RunFiguresSerializer):
        run = serializers.IntegerField(allow_null=True, help_text="the latest finished run (the current state)")

    @extend_schema(responses=OutputSerializer)
    def get(self, request, project_id: int):
        project = selectors.project_get_by_id(user=request.user, project_id=project_id)
        current = progress.project_progress(project=project)
        if current is None:
            current = dict(progress.empty(), run=None, parity_pass=0, parity_total=0, parity_skipped=0,
                           left_error=0, left_warning=0, left_info=0)
        else:
            current["run"] = current["run"].pk
        return Response(self.OutputSerializer(current).data)


class ProjectMarksApi(APIView):
    class FilterSerializer(serializers.Serializer):
        closed = serializers.BooleanField(required=False, allow_null=True, default=None,
                                          help_text="true: only closed marks; false: only open ones")
        page = serializers.IntegerField(required=False, min_value=1)
        page_size = serializers.IntegerField(required=False, min_value=1, max_value=1000)

    @extend_schema(parameters=[FilterSerializer], responses=MarkSerializer(many=True))
    def get(self, request, project_id: int):
        project = selectors.project_get_by_id(user=request.user, project_id=project_id)
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        marks = Mark.objects.filter(project=project).select_related("assignee", "closed_in_run").order_by("path", "line", "id")
        closed = filters.validated_data.get("closed")
        if closed is not None:
            marks = marks.filter(closed_at__isnull=not closed)
        return _paginate(self, request, marks, MarkSerializer)


class KbRecheckSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    run = serializers.IntegerField(source="run_id")
    status = serializers.CharField(help_text="queued, running, done or failed")
    error = serializers.CharField(help_text="why it failed")
    kb_before = serializers.CharField()
    kb_after = serializers.CharField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    counts = serializers.DictField(child=serializers.IntegerField(), help_text="empty until done")
    changes = serializers.JSONField(help_text="empty until done")


class RunKbRecheckApi(APIView):
    """The run's snapshot analysed again with the current knowledge base, by a worker."""

    class OutputSerializer(serializers.Serializer):
        kb_version = serializers.CharField(help_text="the knowledge base the run was analysed with")
        kb_current = serializers.CharField(help_text="this server's knowledge base")
        recheck = KbRecheckSerializer(allow_null=True, help_text="the latest finished re-check with kb_current")
        pending = KbRecheckSerializer(allow_null=True, help_text="a queued or running re-check with kb_current")

    def _body(self, run) -> dict:
        return self.OutputSerializer({"kb_version": run.kb_version, "kb_current": kb.KNOWLEDGE_BASE_VERSION,
                                      "recheck": kb.kb_latest_recheck(run=run),
                                      "pending": kb.kb_pending_recheck(run=run)}).data

    @extend_schema(responses=OutputSerializer)
    def get(self, request, run_id: int):
        run = project_selectors.run_get(user=request.user, run_id=run_id)
        return Response(self._body(run))

    @extend_schema(request=None, responses={202: OutputSerializer})
    def post(self, request, run_id: int):
        """Queue a re-check (a pending one is reused); poll GET until `pending` is null."""
        run = project_selectors.run_get(user=request.user, run_id=run_id)
        try:
            kb.kb_recheck_request(run=run, user=request.user)
        except kb.RecheckUnavailable as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(self._body(run), status=status.HTTP_202_ACCEPTED)


class RunFindingsApi(APIView):
    @extend_schema(parameters=[FindingFilterSerializer], responses=FindingOutputSerializer(many=True))
    def get(self, request, run_id: int):
        run = project_selectors.run_get(user=request.user, run_id=run_id)
        filters = FindingFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        query = {k: v for k, v in filters.validated_data.items() if k not in ("page", "page_size")}
        return _paginate(self, request, selectors.finding_list(run=run, **query), FindingOutputSerializer)


class FileOutputSerializer(serializers.ModelSerializer):
    converted = serializers.SerializerMethodField()

    class Meta:
        model = SourceFile
        fields = ["id", "path", "sha256", "lines", "parse_error", "errors", "warnings", "infos", "converted"]

    def get_converted(self, obj) -> bool:
        return hasattr(obj, "converted")


class RunFilesApi(APIView):
    class FilterSerializer(serializers.Serializer):
        path = serializers.CharField(required=False, help_text="only paths starting with this")
        page = serializers.IntegerField(required=False, min_value=1)
        page_size = serializers.IntegerField(required=False, min_value=1, max_value=1000)

    @extend_schema(parameters=[FilterSerializer], responses=FileOutputSerializer(many=True))
    def get(self, request, run_id: int):
        run = project_selectors.run_get(user=request.user, run_id=run_id)
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        files = selectors.file_list(run=run, path_prefix=filters.validated_data.get("path", ""))
        return _paginate(self, request, files, FileOutputSerializer)


class RunFileDetailApi(APIView):
    class OutputSerializer(FileOutputSerializer):
        converted_text = serializers.CharField(allow_null=True)
        diff = serializers.CharField(allow_null=True)
        changes = serializers.JSONField(allow_null=True)
        unconverted = serializers.JSONField(allow_null=True)

        class Meta(FileOutputSerializer.Meta):
            fields = FileOutputSerializer.Meta.fields + ["converted_text", "diff", "changes", "unconverted"]

    @extend_schema(responses=OutputSerializer)
    def get(self, request, run_id: int, file_id: int):
        run = project_selectors.run_get(user=request.user, run_id=run_id)
        source = project_selectors.file_get(run=run, file_id=file_id)
        converted = ConvertedFile.objects.filter(file=source).first()
        source.converted_text = converted.text if converted else None
        source.diff = converted.diff if converted else None
        source.changes = converted.changes if converted else None
        source.unconverted = converted.unconverted if converted else None
        return Response(self.OutputSerializer(source).data)


class RunConvertedZipApi(APIView):
    @extend_schema(responses={(200, "application/zip"): OpenApiTypes.BINARY})
    def get(self, request, run_id: int):
        run = project_selectors.run_get(user=request.user, run_id=run_id)
        root = storage.converted_dir(run.pk)
        # Spooled: small trees stay in memory, big ones go to a temporary file.
        buffer = tempfile.SpooledTemporaryFile(max_size=32 * 1024 * 1024)
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            if root.is_dir():
                for path in sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink()):
                    archive.write(path, path.relative_to(root).as_posix())
            else:  # the tree was cleaned up: the converted Python files are still in the database
                for row in ConvertedFile.objects.filter(run=run).select_related("file"):
                    archive.writestr(row.file.path, row.text)
                for path, text in run.support_files.items():  # the helpers those files import
                    archive.writestr(path, text)
        if not archive.filelist:
            buffer.close()
            return Response({"detail": "the run has no converted files"}, status=status.HTTP_404_NOT_FOUND)
        buffer.seek(0)
        name = f"{run.project.slug}-run{run.number}-mindspore.zip"
        return FileResponse(buffer, as_attachment=True, filename=name, content_type="application/zip")


# --- parity --------------------------------------------------------------------------------


class RunParityApi(APIView):
    class OutputSerializer(serializers.ModelSerializer):
        loss_curve = serializers.SerializerMethodField()

        class Meta:
            model = ParityResult
            fields = ["id", "name", "module", "status", "reason", "device", "first_diverging_layer", "metrics",
                      "config_mismatches", "layers", "details", "loss_curve"]

        def get_loss_curve(self, obj) -> dict | None:
            curve = getattr(obj, "loss_curve", None)
            return {"torch": curve.torch_losses, "mindspore": curve.mindspore_losses} if curve else None

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request, run_id: int):
        run = project_selectors.run_get(user=request.user, run_id=run_id)
        results = ParityResult.objects.filter(run=run).select_related("loss_curve")
        return Response(self.OutputSerializer(results, many=True).data)


# --- reports -----------------------------------------------------------------------------------


class RunSarifApi(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("converted", OpenApiTypes.BOOL, required=False,
                                     description="also report uses the converter rewrote (left out by default)")],
        responses={(200, "application/sarif+json"): OpenApiTypes.OBJECT})
    def get(self, request, run_id: int):
        run = project_selectors.run_get(user=request.user, run_id=run_id)
        everything = request.query_params.get("converted", "").lower() in ("1", "true", "yes")
        body = json.dumps(run_sarif(run=run, include_converted=everything), indent=1)
        response = HttpResponse(body, content_type="application/sarif+json")
        response["Content-Disposition"] = f'attachment; filename="run-{run.pk}.sarif"'
        return response


class RunJunitApi(APIView):
    @extend_schema(responses={(200, "application/xml"): OpenApiTypes.STR})
    def get(self, request, run_id: int):
        run = project_selectors.run_get(user=request.user, run_id=run_id)
        gate = gate_evaluate(run=run)
        response = HttpResponse(run_junit_xml(run=run, gate=gate), content_type="application/xml")
        response["Content-Disposition"] = f'attachment; filename="run-{run.pk}-junit.xml"'
        return response


class RunReportApi(APIView):
    @extend_schema(responses=inline_serializer("RunReport", {
        "run": serializers.JSONField(), "progress": StageSerializer(many=True), "summary": serializers.JSONField(),
        "gate": GateOutputSerializer(allow_null=True), "files": serializers.JSONField(),
        "parity": serializers.JSONField(),
    }))
    def get(self, request, run_id: int):
        run = project_selectors.run_get(user=request.user, run_id=run_id)
        return Response(run_report_json(run=run, gate=gate_evaluate(run=run)))


# JSON bodies for the gate and token endpoints; the runs endpoint declares its own parsers.
for _view in (TokenListApi, ProjectListApi, ProjectGateApi, RunFindingTriageApi, RunFindingsTriageApi):
    _view.parser_classes = [JSONParser, FormParser, MultiPartParser]


def _name_nested_serializers() -> None:
    """Components named after their view (ProjectListApi.InputSerializer -> ProjectListInput)."""
    for view in list(globals().values()):
        if isinstance(view, type) and issubclass(view, APIView) and view.__name__.endswith("Api"):
            for attr, value in vars(view).items():
                if isinstance(value, type) and issubclass(value, serializers.BaseSerializer):
                    name = view.__name__[:-3] + attr.removesuffix("Serializer")
                    extend_schema_serializer(component_name=name)(value)


_name_nested_serializers()
