"""The migration rule catalogue: data (catalogue.py) plus small checks (checks.py)."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from analysis.findings import Severity, UseStatus
from analysis.rules.catalogue import RULES


def parse_version(text: str) -> tuple[int, ...]:
    parts = []
    for piece in str(text).split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts) or (0,)


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    severity: Severity
    status: UseStatus
    message: str
    explanation: str
    autofix: bool
    versions: tuple[str, str | None]  # first release it applies to, first release it no longer applies to
    guide_url: str
    example: tuple[str, str]  # (PyTorch, suggested MindSpore)
    mindspore: str = ""
    trigger: dict = field(default_factory=dict, hash=False, compare=False)
    check: str | None = None
    scope: str = "both"  # "converter": reported by the converter only, never by the scanner

    def applies_to(self, ms_version: str) -> bool:
        v = parse_version(ms_version)
        low, high = self.versions
        return parse_version(low) <= v and (high is None or v < parse_version(high))

    @property
    def versions_text(self) -> str:
        low, high = self.versions
        return f">={low}" + (f",<{high}" if high else "")

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "title": self.title,
            "severity": self.severity.value,
            "status": self.status.value,
            "message": self.message,
            "explanation": self.explanation,
            "autofix": self.autofix,
            "versions": self.versions_text,
            "guide_url": self.guide_url,
            "example": {"pytorch": self.example[0], "mindspore": self.example[1]},
            "mindspore": self.mindspore,
            "scope": self.scope,
        }


@lru_cache(maxsize=1)
def _catalogue() -> dict[str, Rule]:
    rules = {}
    for raw in RULES:
        rule = Rule(
            id=raw["id"],
            title=raw["title"],
            severity=Severity(raw["severity"]),
            status=UseStatus(raw["status"]),
            message=raw["message"],
            explanation=raw["explanation"],
            autofix=raw["autofix"],
            versions=tuple(raw["versions"]),
            guide_url=raw["guide"],
            example=tuple(raw["example"]),
            mindspore=raw.get("mindspore", ""),
            trigger=raw.get("trigger", {}),
            check=raw.get("check"),
            scope=raw.get("scope", "both"),
        )
        if rule.id in rules:
            raise ValueError(f"duplicate rule id {rule.id}")
        rules[rule.id] = rule
    return rules


def all_rules() -> list[Rule]:
    return list(_catalogue().values())


def get_rule(rule_id: str) -> Rule:
    try:
        return _catalogue()[rule_id]
    except KeyError:
        raise KeyError(f"unknown rule {rule_id!r}") from None
