"""A team's migration work: projects, their runs (one per upload), and what each
stage of a run stored: files, findings, converted files, parity results."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from porting_site.accounts.models import Team


# The MindSpore version new projects and runs target by default: the one the parity
# workers run (pyproject.toml pins mindspore 2.10.0), so analysis, conversion and the
# numerical check speak of the same release (tests/site/test_defaults.py keeps them equal).
MINDSPORE_VERSION = "2.10"


class Target(models.TextChoices):
    CLASSIC = "classic", "Classic API (mindspore.nn / ops)"
    MINT = "mint", "mindspore.mint (Ascend)"


class Device(models.TextChoices):
    CPU = "cpu", "CPU"
    GPU = "gpu", "GPU"
    ASCEND = "ascend", "Ascend"


class Project(models.Model):
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="projects")
    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=120)
    description = models.TextField(blank=True)
    target = models.CharField(max_length=10, choices=Target.choices, default=Target.CLASSIC)
    ms_version = models.CharField(max_length=10, default=MINDSPORE_VERSION)
    device = models.CharField(max_length=10, choices=Device.choices, default=Device.CPU)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "slug"], name="project_slug_per_team")]
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Run(models.Model):
    """One upload of a repository, and the pipeline's work on that snapshot."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="runs")
    number = models.PositiveIntegerField()
    archive = models.FileField(upload_to="archives/%Y/%m/")
    archive_name = models.CharField(max_length=255, blank=True)
    # Optional: the team's own (hand-edited) MindSpore tree; parity checks it instead of our conversion.
    converted_archive = models.FileField(upload_to="archives/%Y/%m/", blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    error = models.TextField(blank=True)  # why the run failed, shown to the user
    target = models.CharField(max_length=10, choices=Target.choices, default=Target.CLASSIC)
    ms_version = models.CharField(max_length=10, default=MINDSPORE_VERSION)
    device = models.CharField(max_length=10, choices=Device.choices, default=Device.CPU)
    kb_version = models.CharField(max_length=20, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Counts that never change once the findings are stored (by file/rule/API/severity, rule,
    # status, severity); written at finalize, backfilled on first use (see tallies.py).
    tallies = models.JSONField(default=dict, blank=True)
    # The support module(s) the converter wrote into the converted tree ({path: text}): converted
    # files import their helpers from it, so a download must carry it even after the tree is gone.
    support_files = models.JSONField(default=dict, blank=True)
    # What this run holds on the host's disk (archives, unpacked source, converted tree, checkpoints),
    # measured after each stage that writes there; a team's sum is checked against its quota (quota.py).
    disk_bytes = models.BigIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "number"], name="run_number_per_project")]
        ordering = ["-number"]

    def __str__(self) -> str:
        return f"{self.project} #{self.number}"

    @property
    def is_finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED, self.Status.CANCELLED)


class Stage(models.Model):
    """Progress and timing of one pipeline stage of a run."""

    class Name(models.TextChoices):
        UNPACK = "unpack", "Unpack"
        ANALYZE = "analyze", "Analyze"
        CONVERT = "convert", "Convert"
        PARITY = "parity", "Parity"
        FINALIZE = "finalize", "Finalize"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    ORDER = [Name.UNPACK, Name.ANALYZE, Name.CONVERT, Name.PARITY, Name.FINALIZE]

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="stages")
    name = models.CharField(max_length=10, choices=Name.choices)
    position = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    detail = models.TextField(blank=True)
    # Celery ids of the tasks that worked on this stage, so cancelling can stop them.
    task_ids = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "name"], name="one_stage_row_per_run")]
        ordering = ["position"]

    @property
    def seconds(self) -> float | None:
        if self.started_at and self.finished_at:
            return (self.finished_at - self.started_at).total_seconds()
        return None


class SourceFile(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="files")
    path = models.CharField(max_length=1024)
    sha256 = models.CharField(max_length=64)
    lines = models.PositiveIntegerField(default=0)
    parse_error = models.TextField(blank=True)
    # Denormalised counts so file tables of big runs render without aggregation.
    errors = models.PositiveIntegerField(default=0)
    warnings = models.PositiveIntegerField(default=0)
    infos = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "path"], name="one_row_per_path")]
        ordering = ["path"]

    def __str__(self) -> str:
        return self.path


class Severity(models.TextChoices):
    ERROR = "error", "Error"
    WARNING = "warning", "Warning"
    INFO = "info", "Info"


class Finding(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="findings")
    file = models.ForeignKey(SourceFile, on_delete=models.CASCADE, related_name="findings")
    line = models.PositiveIntegerField()
    column = models.PositiveIntegerField(default=0)
    end_line = models.PositiveIntegerField(default=0)
    end_column = models.PositiveIntegerField(default=0)
    cell = models.IntegerField(null=True, blank=True)
    rule_id = models.CharField(max_length=64, db_index=True)
    severity = models.CharField(max_length=10, choices=Severity.choices, db_index=True)
    status = models.CharField(max_length=12, default="unresolved", db_index=True)
    torch_api = models.CharField(max_length=255, blank=True)
    mindspore_api = models.CharField(max_length=255, blank=True)
    category = models.CharField(max_length=40, blank=True)
    confidence = models.FloatField(default=1.0)
    message = models.TextField()
    extra = models.JSONField(default=dict, blank=True)
    # Identity across uploads (analysis.fingerprint): rule + API + statement + enclosing definition.
    fingerprint = models.CharField(max_length=40, blank=True, db_index=True)
    # A person's mark as of this run ("" open, accepted, false_positive, fixed); see porting_site.triage.
    triage = models.CharField(max_length=16, blank=True, default="", db_index=True)
    mark = models.ForeignKey("triage.Mark", null=True, blank=True, on_delete=models.SET_NULL, related_name="findings")

    class Meta:
        ordering = ["file_id", "line", "column"]
        indexes = [models.Index(fields=["run", "severity"]), models.Index(fields=["file", "line"])]

    TRIAGE_LABELS = {"accepted": "accepted", "false_positive": "false positive", "fixed": "fixed by hand"}

    @property
    def triage_label(self) -> str:
        return self.TRIAGE_LABELS.get(self.triage, self.triage)


class ConvertedFile(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="converted_files")
    file = models.OneToOneField(SourceFile, on_delete=models.CASCADE, related_name="converted")
    text = models.TextField()
    diff = models.TextField(blank=True)
    changes = models.JSONField(default=list, blank=True)
    unconverted = models.JSONField(default=list, blank=True)


class ParityResult(models.Model):
    class Status(models.TextChoices):
        PASS = "pass", "Pass"
        FAIL = "fail", "Fail"
        SKIPPED = "skipped", "Skipped"
        ERROR = "error", "Error"
        # The original PyTorch forward fails on the inputs given: checked, proves nothing, counted like an error.
        TORCH_FAIL = "torch_fail", "PyTorch fails"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="parity_results")
    name = models.CharField(max_length=255)  # class name
    module = models.CharField(max_length=255, blank=True)  # import path
    status = models.CharField(max_length=10, choices=Status.choices)
    reason = models.TextField(blank=True)
    device = models.CharField(max_length=10, default="cpu")
    first_diverging_layer = models.CharField(max_length=255, blank=True)
    metrics = models.JSONField(default=dict, blank=True)
    config_mismatches = models.JSONField(default=list, blank=True)
    layers = models.JSONField(default=list, blank=True)
    details = models.JSONField(default=dict, blank=True)  # gradients, state after a step...

    class Meta:
        ordering = ["module", "name"]


class LossCurve(models.Model):
    parity_result = models.OneToOneField(ParityResult, on_delete=models.CASCADE, related_name="loss_curve")
    torch_losses = models.JSONField(default=list)
    mindspore_losses = models.JSONField(default=list)


class KbRecheck(models.Model):
    """A run's snapshot analysed again with the current knowledge base.

    The code is the same, so every difference from the run's stored findings
    comes from the knowledge base (mapping tables, rule catalogue, analyzer).
    A re-check asked for on a page or the API is queued and done by a worker;
    counts, changes and grouped are filled in when it is done.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="kb_rechecks")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    error = models.TextField(blank=True)  # why it failed, shown to the user
    finished_at = models.DateTimeField(null=True, blank=True)
    kb_before = models.CharField(max_length=20, blank=True)
    kb_after = models.CharField(max_length=20)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    counts = models.JSONField(default=dict)  # {"added", "removed", "changed", "unchanged"}
    changes = models.JSONField(default=list)  # [{"kind", "path", "line", "rule_id", "torch_api", "before", "after"}]
    # The re-analysis's findings grouped like runs_compare: [[path, rule, api, severity, n], ...]
    grouped = models.JSONField(default=list)

    class Meta:
        ordering = ["-created_at", "-id"]

    @property
    def is_pending(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)
