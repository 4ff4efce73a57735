"""Turn the scanner's uses into findings: mapping accounting plus the rule catalogue."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from functools import lru_cache

from analysis.findings import Severity, UseStatus
from analysis.knowledge.mapping import RELATION_TEXT, ApiEntry, load_mapping
from analysis.knowledge.placement_keywords import harmless
from analysis.rules import Rule, all_rules, get_rule, parse_version
from analysis.rules import checks
from analysis.scan.names import SUPPLEMENT
from analysis.scan.types import NONLIT, Use
from analysis.verify import verdicts

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


def unmapped_name(name: str, target: str = "classic") -> bool:
    """Whether a torch name used as a value (not called) gets the analyzer's MS-API-UNMAPPED finding: no
    table entry, no dedicated rule, not a module. The converter marks the same names (convert/calls.py)."""
    if load_mapping(target).get(name) is not None or name in SUPPLEMENT or name in _namespaces(target):
        return False
    apis, prefixes, _, _ = _rule_index()
    return name not in apis and not any(name.startswith(prefix) for prefix, _ in prefixes)


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


def _positional_names(signature: str) -> tuple[str, ...]:
    return verdicts.signature_positionals(signature)


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


def _mapping_hit(use: Use, entry: ApiEntry | None, target: str, covered: bool,
                 dedicated: frozenset[str] = frozenset()) -> Hit | None:
    """The API-mapping finding for a use; `entry` is its row in the target's table (None: not listed).
    `dedicated`: words of the findings a dedicated rule made for the same use (Dropout's p, Conv's
    padding): an argument they name is theirs, not reported again as a generic difference."""
    name = use.name
    if use.kind == "event" or use.context == "base":
        return None
    if use.kind == "method" and use.receiver not in ("tensor", "unknown"):
        return None
    status_guess = use.confidence < UNRESOLVED_BELOW
    if entry is None:
        if name in SUPPLEMENT:
            rule, message, status, extra = get_rule("MS-API-MAPPED"), f"{name} maps to {SUPPLEMENT[name]}", \
                UseStatus.CONVERTED, {}
            checked = _supplement_verdict(name, use)
            if checked is not None:
                extra["verified"] = {"status": checked.status, **({"note": checked.note} if checked.note else {})}
                if checked.status != verdicts.VERIFIED:
                    rule = get_rule("MS-API-BROKEN" if checked.broken else "MS-API-DIFF")
                    status = UseStatus.MANUAL if checked.broken or checked.status == verdicts.MARKED \
                        else UseStatus.REVIEW
                    message += f"; {checked.note or 'not verified by execution'}"
            return Hit(use, rule, message, UseStatus.UNRESOLVED if status_guess else status, name,
                       SUPPLEMENT[name], "consistent", extra)
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
    differs_here = [(text, kind) for text, kind in _differences_here(entry, extra)
                    if text.split(" ", 1)[0] not in dedicated]
    checked = execution_verdict(entry, use)
    if checked is None:  # outside verification by execution: the mapping table's word stands
        checked = verdicts.Verdict(verdicts.VERIFIED, "")
    else:
        checked = replace(checked, note=harness_free(checked.note))
        extra["verified"] = {"status": checked.status, **({"note": checked.note} if checked.note else {})}
    if checked.status == verdicts.VERIFIED and "verified" in extra:
        # a default or a dropped switch the converter handles, and the run agrees: nothing left to review;
        # a table row about every call's inputs (torch.cat's mixed dtypes, torch.log's integer input)
        # that calls like this one ran through without a difference is kept as a note, not a finding
        # (the generated calls pass every argument by position and keyword, with non-default values, in
        # float32/float64/int64: a difference in what an argument means would have shown as 'differs')
        handled = [text for text, _ in differs_here]
        if handled:
            extra["handled"] = handled
        differs_here = []
    differs_here = [text for text, _ in differs_here]
    mindspore = entry.rewritten_as
    if checked.status in (verdicts.NO_CPU_KERNEL, verdicts.FAILS):
        rule, status = get_rule("MS-API-BROKEN"), UseStatus.MANUAL
        message = rule.message.format_map(_Fields(api=name, mindspore=mindspore, args=f" ({checked.note})"))
    elif checked.status in (verdicts.DIFFERS, verdicts.MARKED) or differs_here:
        rule = get_rule("MS-API-DIFF")
        status = UseStatus.MANUAL if checked.status == verdicts.MARKED else UseStatus.REVIEW
        said = []
        if differs_here:
            said.append("differs for this call: " + "; ".join(differs_here))
        if checked.status == verdicts.DIFFERS:
            said.append(f"running both differs: {checked.note}")
        elif checked.status == verdicts.MARKED:
            said.append(f"the converter leaves it marked: {checked.note}")
        elif checked.status == verdicts.UNTESTED:
            said.append(checked.note or "not verified by execution")
        message = rule.message.format_map(_Fields(api=name, mindspore=mindspore, args="; " + "; ".join(said)))
        if differs_here:
            extra["differs_here"] = differs_here  # agree.py says them again next to what the converter wrote
    else:
        rule = get_rule("MS-API-MAPPED")
        message = rule.message.format_map(_Fields(api=name, mindspore=mindspore))
        if checked.status == verdicts.VERIFIED:
            status = UseStatus.CONVERTED
        else:  # nothing documented differs, but no generated call reached what this one uses
            status = UseStatus.REVIEW
            message += f" ({checked.note or 'not verified by execution'})"
    if status_guess:
        status = UseStatus.UNRESOLVED
    if entry.mindspore[1:]:
        extra["alternatives"] = list(entry.mindspore[1:])
    return Hit(use, rule, message, status, name, entry.primary, entry.category, extra)


def _differences_here(entry: ApiEntry, extra: dict) -> list[tuple[str, str]]:
    """What the mapping table says differs for this call, in words: the arguments it passes whose
    meaning differs (a keyword that only changes its name is the converter's job, not a difference),
    the defaults it relies on that differ, and differences of every call's inputs or outputs."""
    out = []
    for d in extra.get("differing_args", ()):
        if d["relation"] in ("renamed", "renamed_default_differs"):
            continue  # passed explicitly: its default does not matter and the name is the converter's job
        what = RELATION_TEXT.get(d["relation"], d["relation"])
        kind = "dropped" if d["relation"] == "torch_only" else "default" if "default" in d["relation"] else "semantics"
        out.append((f"{d['arg']} ({what}{', MindSpore ' + d['mindspore'] if d['mindspore'] else ''})", kind))
    for d in extra.get("defaults_differ", ()):
        torch_default = d.get("torch_default") or "?"
        ms_default = d.get("mindspore_default") or "?"
        out.append((f"default of {d['arg']} ({torch_default} in PyTorch, {ms_default} in MindSpore)", "default"))
    for row in entry.params:
        if row.kind in ("input", "output") and row.relation == "differs":
            out.append((f"{row.kind} {row.torch or row.mindspore} ({row.note or 'different semantics'})", "io"))
    return out


HARNESS_WORDS = ("no generated call ran",)  # the harness could not build a call: nothing about the user's


def harness_free(note: str) -> str:
    """A verdict's note as a finding may say it: the verification harness's own failure (an exception
    raised while generating inputs) is not about the user's call, so it reads 'not verified'."""
    parts = [part.strip() for part in note.split(";")] if note else []
    kept = [part for part in parts if part and not any(word in part for word in HARNESS_WORDS)]
    if parts and len(kept) < len(parts) and not any("not verified" in part for part in kept):
        kept.insert(0, "not verified by execution")
    return "; ".join(kept)


def _supplement_verdict(name: str, use: Use) -> verdicts.Verdict | None:
    if not verdicts.covered(name) or not use.call:
        return None
    names = verdicts.positional_names(name)
    params = [names[i] for i in range(min(len(use.args), len(names)))] + [f"{k}=" for k in use.kwargs]
    found = verdicts.verdict(name, params)
    return replace(found, note=harness_free(found.note)) if found is not None else None


def execution_verdict(entry: ApiEntry, use: Use) -> verdicts.Verdict | None:
    """What running calls like this one in both frameworks showed (see analysis.verify); None for
    an API outside verification by execution."""
    # a placement keyword with a harmless value is dropped by the converter: no verdict about passing it applies
    keywords = [k for k, v in use.kwargs.items() if not harmless(k, None if v is NONLIT else repr(v))] \
        if use.call else ()
    return verdicts.call_verdict(entry.torch, len(use.args) if use.call else 0, keywords, entry.torch_signature)


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
        first = len(hits)
        hits.append(None)  # the mapping finding's place, filled once the dedicated rules have spoken
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
        own = hits[first + 1:]
        if any(hit.rule.id in SUPERSEDES_MAPPING for hit in own):
            hits.pop(first)  # the use is removed by the converter: the API mapping is moot
            continue
        words = frozenset(w.strip(".,;:()'\"") for hit in own for w in hit.message.replace("=", " ").split())
        mapping_hit = _mapping_hit(use, entry, target, covered=bool(rules), dedicated=words)
        if mapping_hit is None:
            hits.pop(first)
        else:
            hits[first] = mapping_hit
    return hits


# Rules that report a PyTorch argument's other name in MindSpore -> that argument.
RENAME_RULES = {"MS-OPTIM-LR": "lr"}


def _keeps_name(entry: ApiEntry, arg: str | None) -> bool:
    row = entry.param(arg) if arg else None
    return row is not None and row.mindspore == arg


# Rules whose finding replaces the generic mapping finding of the same use.
SUPERSEDES_MAPPING = frozenset({"MS-DEVICE-TO", "MS-DEVICE-CUDA", "MS-DEVICE-TORCH-DEVICE", "MS-NO-GRAD", "MS-TENSOR-NUMPY"})
