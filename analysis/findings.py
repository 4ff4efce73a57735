"""Shared result types of the engine: what the analyzer reports about one file.

Every stage (analysis, conversion, the dashboard, SARIF/JUnit writers) speaks
these types, so they stay small, flat and JSON-friendly.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum


class Severity(str, Enum):
    ERROR = "error"  # will not run, or silently computes something else
    WARNING = "warning"  # a documented difference a person should review
    INFO = "info"  # consistent mapping, recorded for accounting


class UseStatus(str, Enum):
    """How far one PyTorch use is from done (the honest accounting)."""

    CONVERTED = "converted"  # rewritten, no behavioural difference left
    REVIEW = "review"  # rewritten, a documented difference remains
    MANUAL = "manual"  # left as it was, marked with MIGRATE
    UNRESOLVED = "unresolved"  # the analyzer could not tell what it is


@dataclass
class Finding:
    path: str  # relative to the analysed root, forward slashes
    line: int  # 1-based
    column: int  # 0-based, like Python's ast
    rule_id: str  # stable id, e.g. MS-DROPOUT-P
    severity: Severity
    message: str
    torch_api: str = ""  # fully qualified, e.g. torch.nn.Conv2d
    mindspore_api: str = ""  # suggested counterpart, "" when none
    end_line: int = 0
    end_column: int = 0
    category: str = ""  # mapping category from the knowledge base
    confidence: float = 1.0  # < 1 when the use was inferred (tensor methods)
    status: UseStatus = UseStatus.UNRESOLVED
    cell: int | None = None  # notebook code cell index, when from .ipynb
    extra: dict = field(default_factory=dict)  # e.g. differing args
    fingerprint: str = ""  # position-free identity across uploads (analysis.fingerprint), "" until computed

    def to_dict(self) -> dict:
        data = asdict(self)
        data["severity"] = self.severity.value
        data["status"] = self.status.value
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "Finding":
        data = dict(data)
        data["severity"] = Severity(data["severity"])
        data["status"] = UseStatus(data.get("status", UseStatus.UNRESOLVED.value))
        return cls(**data)


@dataclass
class FileReport:
    """Everything the analyzer says about one file."""

    path: str
    sha256: str
    lines: int
    findings: list[Finding] = field(default_factory=list)
    parse_error: str = ""  # non-empty when the file could not be parsed

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "sha256": self.sha256,
            "lines": self.lines,
            "parse_error": self.parse_error,
            "findings": [f.to_dict() for f in self.findings],
        }
