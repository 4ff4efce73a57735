"""The rule catalogue as the pages show it.

The engine's catalogue (`analysis.rules`) may be absent or still growing; the
pages then fall back to the rule id alone instead of failing.
"""
from __future__ import annotations

from functools import lru_cache

FIELDS = ("id", "title", "severity", "status", "autofix", "guide", "mindspore", "message", "explanation", "example")


def _as_dict(rule) -> dict:
    if rule is None:
        return {}
    if isinstance(rule, dict):
        data = dict(rule)
    else:
        data = {name: getattr(rule, name) for name in FIELDS if hasattr(rule, name)}
    # Enum members (Severity.WARNING) print their class name in templates: keep the plain value.
    for name in ("severity", "status"):
        if hasattr(data.get(name), "value"):
            data[name] = data[name].value
    example = data.get("example")
    if isinstance(example, (list, tuple)) and len(example) == 2:
        data["example"] = {"torch": example[0], "mindspore": example[1]}
    elif isinstance(example, str):
        data["example"] = {"torch": example, "mindspore": ""}
    elif not isinstance(example, dict):
        data["example"] = None
    return {k: v for k, v in data.items() if k in FIELDS}


def all_rules() -> list[dict]:
    """Every rule of the catalogue, sorted by id; [] when there is none."""
    return list(_all_rules())


@lru_cache(maxsize=1)
def _all_rules() -> tuple[dict, ...]:
    try:
        import analysis.rules as rules
    except Exception:  # the engine package is optional for the pages
        return ()
    source = None
    for name in ("all_rules", "rules_list", "catalogue"):
        fn = getattr(rules, name, None)
        if callable(fn):
            try:
                source = fn()
                break
            except Exception:
                source = None
    if source is None:
        source = getattr(rules, "RULES", None)
    if source is None:
        try:
            from analysis.rules.catalogue import RULES as source
        except Exception:
            return ()
    if isinstance(source, dict):
        source = source.values()
    rows = [_as_dict(r) for r in source]
    return tuple(sorted((r for r in rows if r.get("id")), key=lambda r: r["id"]))


@lru_cache(maxsize=512)
def rule_info(rule_id: str) -> dict:
    """Title, explanation, example... of one rule; {"id": rule_id} when unknown."""
    data: dict = {}
    try:
        from analysis.rules import get_rule

        data = _as_dict(get_rule(rule_id))
    except Exception:  # absent catalogue, or an id it does not know
        data = next((r for r in _all_rules() if r["id"] == rule_id), {})
    data = dict(data)
    data.setdefault("id", rule_id)
    return data
