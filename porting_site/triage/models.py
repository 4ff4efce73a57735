"""A person's decision about a finding, and the audit trail of every change.

A Mark belongs to the project, not to one run: each new run of the project
links the finding with the same fingerprint to it (the carry-over), and marks
whose code disappeared are closed (kept, with the run that closed them).
Findings keep the mark's state as of their run (Finding.triage), so a run's
figures stay what they were when it was judged.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models

from porting_site.projects.models import Finding, Project, Run


class State(models.TextChoices):
    OPEN = "", "Open"
    ACCEPTED = "accepted", "Accepted"
    FALSE_POSITIVE = "false_positive", "False positive"
    FIXED = "fixed", "Fixed by hand"


class Mark(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="marks")
    # Where the finding was last seen (for closed marks, where it was before it disappeared).
    path = models.CharField(max_length=1024)
    fingerprint = models.CharField(max_length=40, db_index=True)
    rule_id = models.CharField(max_length=64)
    torch_api = models.CharField(max_length=255, blank=True)
    line = models.PositiveIntegerField(default=0)
    state = models.CharField(max_length=16, choices=State.choices, default=State.OPEN, blank=True)
    reason = models.TextField(blank=True)
    assignee = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="assigned_marks")
    first_run = models.ForeignKey(Run, null=True, on_delete=models.SET_NULL, related_name="+")
    last_run = models.ForeignKey(Run, null=True, on_delete=models.SET_NULL, related_name="+")
    closed_at = models.DateTimeField(null=True, blank=True)  # set when the code it was on disappeared
    closed_in_run = models.ForeignKey(Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["path", "line", "id"]
        indexes = [models.Index(fields=["project", "closed_at"])]

    @property
    def is_open(self) -> bool:
        return self.closed_at is None


class MarkEvent(models.Model):
    """One change of a mark: who, when, old and new state, reason."""

    class Action(models.TextChoices):
        SET = "set", "State changed"
        ASSIGN = "assign", "Assigned"
        CARRY = "carry", "Carried to a new run"
        CLOSE = "close", "Closed: the code disappeared"
        REOPEN = "reopen", "Re-opened: the code came back"

    mark = models.ForeignKey(Mark, on_delete=models.CASCADE, related_name="events")
    finding = models.ForeignKey(Finding, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    run = models.ForeignKey(Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+")  # null: the pipeline
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    action = models.CharField(max_length=10, choices=Action.choices)
    old_state = models.CharField(max_length=16, blank=True)
    new_state = models.CharField(max_length=16, blank=True)
    old_assignee = models.CharField(max_length=150, blank=True)  # usernames: the trail outlives accounts
    new_assignee = models.CharField(max_length=150, blank=True)
    reason = models.TextField(blank=True)

    class Meta:
        ordering = ["at", "id"]
