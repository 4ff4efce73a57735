"""Turn the scanner's uses into findings: mapping accounting plus the rule catalogue."""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache

from analysis.findings import Severity, UseStatus
from analysis.knowledge.mapping import ApiEntry, load_mapping
from analysis.rules import Rule, all_rules, get_rule, parse_version
from analysis.rules import checks
from analysis.scan.names import SUPPLEMENT
from analysis.scan.types import NONLIT, Use

UNRESOLVED_BELOW = 0.5  # confidence under which a use's kind is a guess


@dataclass
class Hit:
    use: Use
    rule: Rule
    message: str
    status: UseStatus
    torch_api: str
    mindspore_api: str = ""
    category: str = ""
    extra: dict | None = None


class _Fields(dict):
    def __missing__(self, key):
        return ""


@lru_cache(maxsize=1)
def _rule_index():
    apis, prefixes, methods, events = defaultdict(list), [], defaultdict(list), defaultdict(list)
    for rule in all_rules():
        trig = rule.trigger
        for name in trig.get("apis", ()):
            apis[name].append(rule)
        for prefix in trig.get("prefixes", ()):
            prefixes.append((prefix, rule))
        spec = trig.get("methods")
        if spec:
            for name in spec["names"]:
                methods[name].append((rule, frozenset(spec["receivers"])))
        for name in trig.get("events", ()):
            events[name].append(rule)
    return dict(apis), prefixes, dict(methods), dict(events)


def matching_rules(use: Use) -> list[Rule]:
    apis, prefixes, methods, events = _rule_index()
    if use.kind == "event":
        return list(events.get(use.name, ()))
    if use.kind == "method":
        method = use.name.rsplit(".", 1)[-1]
        return [rule for rule, receivers in methods.get(method, ()) if use.receiver in receivers]
    found = list(apis.get(use.name, ()))
    found += [rule for prefix, rule in prefixes if use.name.startswith(prefix) and rule not in found]
    return found


@lru_cache(maxsize=4)
def _namespaces(target: str) -> frozenset[str]:
    """Every dotted prefix of a mapped API: these are modules, not APIs."""
    spaces = set()
    for entry in load_mapping(target):
        parts = entry.torch.split(".")
        for i in range(1, len(parts)):
            spaces.add(".".join(parts[:i]))
    for name in SUPPLEMENT:
        parts = name.split(".")
        for i in range(1, len(parts)):
            spaces.add(".".join(parts[:i]))
    spaces.update({"torch.nn.functional", "torch.nn.init", "torch.utils.data", "torch.optim.lr_scheduler"})
    return frozenset(spaces)


_SIG_NAMES = re.compile(r"\(([^()]*(?:\([^()]*\)[^()]*)*)\)")


@lru_cache(maxsize=2048)
def _positional_names(signature: str) -> tuple[str, ...]:
    match = _SIG_NAMES.search(signature or "")
    if not match:
        return ()
    names = []
    for part in match.group(1).split(","):
        name = part.split("=")[0].split(":")[0].strip()
        if not name or name.startswith("*") or name == "/":
            if name.startswith("*"):
                break
            continue
        if name in ("self",):
            continue
        names.append(name)
    return tuple(names)


def differing_args(entry: ApiEntry, use: Use) -> dict:
    """Arguments this call passes whose MindSpore counterpart differs, and unpassed defaults that differ."""
    if not entry.params:
        return {}
    keywords = set(use.kwargs)
    used = list(use.kwargs)
    positional = _positional_names(entry.torch_signature)
    for i, _ in enumerate(use.args):
        if i < len(positional):
            used.append(positional[i])
    diffs, renames = [], {}
    for name in used:
        row = entry.param(name)
        if row is None or not row.differs:
            continue
        if row.relation == "default_differs":
            continue  # the value is given explicitly, the default does not matter
        if row.relation in ("renamed", "renamed_default_differs") and name not in keywords:
            continue  # positional: the name does not appear in the code
        diffs.append({"arg": name, "mindspore": row.mindspore, "relation": row.relation})
        if row.relation in ("renamed", "renamed_default_differs") and row.mindspore:
            renames[name] = row.mindspore
    defaults = [
        {"arg": p.torch, "mindspore": p.mindspore, "torch_default": entry.torch_defaults.get(p.torch, ""),
         "mindspore_default": entry.mindspore_defaults.get(p.mindspore, "")}
        for p in entry.params
        if p.kind == "param" and p.torch and p.relation in ("default_differs", "renamed_default_differs")
        and p.torch not in used
    ]
    out: dict = {}
    if diffs:
        out["differing_args"] = diffs
    if renames:
        out["renamed_args"] = renames
    if defaults:
        out["defaults_differ"] = defaults
    return out


def _mapping_hit(use: Use, entry: ApiEntry | None, target: str, covered: bool) -> Hit | None:
    """The API-mapping finding for a use; `entry` is its row in the target's table (None: not listed)."""
    name = use.name
    if use.kind == "event" or use.context == "base":
        return None
    if use.kind == "method" and use.receiver not in ("tensor", "unknown"):
        return None
    status_guess = use.confidence < UNRESOLVED_BELOW
    if entry is None:
        if name in SUPPLEMENT:
            rule = get_rule("MS-API-MAPPED")
            return Hit(use, rule, f"{name} maps to {SUPPLEMENT[name]}", UseStatus.UNRESOLVED if status_guess
                       else UseStatus.CONVERTED, name, SUPPLEMENT[name], "consistent", {})
        if covered or name in _namespaces(target) or use.kind == "method" and use.receiver == "unknown":
            return None
        rule = get_rule("MS-API-UNMAPPED")
        message, extra = rule.message.format_map(_Fields(api=name)), {}
        other = "mint" if target == "classic" else "classic"
        elsewhere = load_mapping(other).get(name)
        if elsewhere is not None and elsewhere.primary:
            message += f" for the {target} target (the {other} table lists {elsewhere.primary})"
            extra["other_target"] = {"target": other, "mindspore": elsewhere.primary}
        return Hit(use, rule, message, UseStatus.UNRESOLVED if status_guess else rule.status, name, "", "unmapped",
                   extra)
    extra = differing_args(entry, use) if use.call else {}
    only_renames = all(d["relation"] in ("renamed",) for d in extra.get("differing_args", ()))
    consistent = entry.category == "consistent" or (entry.category == "param_names_differ" and only_renames)
    if consistent and not extra.get("differing_args") or consistent and only_renames:
        rule = get_rule("MS-API-MAPPED")
        message = rule.message.format_map(_Fields(api=name, mindspore=entry.rewritten_as))
    else:
        rule = get_rule("MS-API-DIFF")
        args = ""
        if extra.get("differing_args"):
            args = "; arguments used that differ: " + ", ".join(
                f"{d['arg']}->{d['mindspore'] or '(none)'}" for d in extra["differing_args"])
        message = rule.message.format_map(_Fields(api=name, mindspore=entry.rewritten_as, args=args))
    status = UseStatus.UNRESOLVED if status_guess else rule.status
    if entry.mindspore[1:]:
        extra["alternatives"] = list(entry.mindspore[1:])
    return Hit(use, rule, message, status, name, entry.primary, entry.category, extra)


def classify(uses: list[Use], facts: set[str], *, target: str, ms_version: str) -> list[Hit]:
    version = parse_version(ms_version)
    ctx = checks.Context(facts, version)
    hits: list[Hit] = []
    for use in uses:
        rules = matching_rules(use)
        entry = load_mapping(target).get(use.name) if use.kind != "event" else None
        if entry is not None and (entry.constant or entry.passthrough or entry.template):
            # A curated rewrite handles this exact API: a rule matched by namespace only (torch.jit.*) is moot.
            rules = [r for r in rules if use.name in r.trigger.get("apis", ())]
        if entry is not None:
            # A rule about one argument's MindSpore name is moot where the mapped counterpart keeps the name
            # (experimental.optim.AdamW takes lr, as PyTorch's does).
            rules = [r for r in rules if not _keeps_name(entry, RENAME_RULES.get(r.id))]
        mapping_hit = _mapping_hit(use, entry, target, covered=bool(rules))
        first = len(hits)
        if mapping_hit is not None:
            hits.append(mapping_hit)
        for rule in rules:
            if not rule.applies_to(ms_version):
                continue
            fields = {}
            if rule.check:
                fields = getattr(checks, rule.check)(use, ctx)
                if fields is None:
                    continue
            values = _Fields(api=use.name, method=use.name.rsplit(".", 1)[-1],
                             cls=use.detail.get("class", ""), attr=use.name.split(":", 1)[-1].rsplit(".", 1)[-1])
            values.update(use.detail)
            values.update(fields)
            if use.kind == "event" and use.name.startswith("forward:"):
                values["api"] = use.detail.get("api", "")
            status = UseStatus.UNRESOLVED if use.confidence < UNRESOLVED_BELOW else rule.status
            extra = {k: v for k, v in fields.items() if v is not NONLIT}
            torch_api = use.name if use.kind != "event" else use.detail.get("api", "")
            hits.append(Hit(use, rule, rule.message.format_map(values), status, torch_api, rule.mindspore, "", extra))
            if rule.id in SUPERSEDES_MAPPING and mapping_hit is not None and hits[first] is mapping_hit:
                hits.pop(first)  # the use is removed by the converter: the API mapping is moot
                mapping_hit = None
    return hits


# Rules that report a PyTorch argument's other name in MindSpore -> that argument.
RENAME_RULES = {"MS-OPTIM-LR": "lr"}


def _keeps_name(entry: ApiEntry, arg: str | None) -> bool:
    row = entry.param(arg) if arg else None
    return row is not None and row.mindspore == arg


# Rules whose finding replaces the generic mapping finding of the same use.
SUPERSEDES_MAPPING = frozenset({"MS-DEVICE-TO", "MS-DEVICE-CUDA", "MS-DEVICE-TORCH-DEVICE", "MS-NO-GRAD", "MS-TENSOR-NUMPY"})
