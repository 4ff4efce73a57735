"""A project's quality-gate thresholds, and each run's gate verdict.

Kept beside the projects app (keyed one-to-one) so the gate can evolve
without touching the core models.
"""
from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from porting_site.projects.models import Project, Run


class GatePolicy(models.Model):
    """Thresholds; a null threshold is not checked."""

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="gate_policy")
    max_new_errors = models.PositiveIntegerField(
        null=True, blank=True, default=0, help_text="error findings not in the baseline run (null: not checked)"
    )
    max_new_warnings = models.PositiveIntegerField(
        null=True, blank=True, default=None, help_text="warning findings not in the baseline run (null: not checked)"
    )
    min_parity_pass_rate = models.FloatField(
        null=True, blank=True, default=None, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="share of checked entry points (skipped ones aside) that must pass, 0..1 (null: not checked)",
    )
    no_parity_regression = models.BooleanField(
        default=True, help_text="an entry point that passed in the baseline run must still pass"
    )
    # Findings a person marked: counted as new findings only when the project says so.
    count_accepted = models.BooleanField(default=False, help_text="count findings marked accepted")
    count_false_positive = models.BooleanField(default=False, help_text="count findings marked false positive")
    count_fixed = models.BooleanField(default=False, help_text="count findings marked fixed by hand")
    updated_at = models.DateTimeField(auto_now=True)


class RunGate(models.Model):
    """The baseline a run is compared with, and the gate's verdict once it finished."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"  # the run has not finished
        PASSED = "passed", "Passed"
        FAILED = "failed", "Failed"

    run = models.OneToOneField(Run, on_delete=models.CASCADE, related_name="gate")
    baseline = models.ForeignKey(Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    checks = models.JSONField(default=list, blank=True)  # [{"name", "passed", "message", "value", "threshold"}]
    policy = models.JSONField(default=dict, blank=True)  # the thresholds it was judged by
    evaluated_at = models.DateTimeField(null=True, blank=True)

    @property
    def reasons(self) -> list[str]:
        return [c["message"] for c in self.checks if not c["passed"]]
