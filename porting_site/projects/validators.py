"""Field rules shared by the upload form, the project settings form and the API."""
from __future__ import annotations

from django.core.validators import RegexValidator

# A release number such as 2.10 or 2.4.1: it picks the knowledge base's version rules.
validate_ms_version = RegexValidator(
    r"^\d+\.\d+(\.\d+)?$", message="Enter a MindSpore version number such as 2.10 or 2.4.1.", code="ms_version"
)
