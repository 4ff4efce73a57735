"""Read access to the generated API mapping tables (see build.py)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

DATA_DIR = Path(__file__).parent / "data"

# Relation codes written by build.py, and what each means for a user.
RELATION_TEXT = {
    "same": "same meaning",
    "renamed": "same meaning under another name",
    "default_differs": "same name, different default",
    "renamed_default_differs": "another name and a different default",
    "torch_only": "no MindSpore counterpart; drop it or rewrite",
    "mindspore_only": "MindSpore-only argument",
    "differs": "different semantics; check the difference table",
    "none": "",
}


@dataclass(frozen=True)
class ParamDiff:
    kind: str  # param | input | output
    torch: str
    mindspore: str
    relation: str
    # torch literal -> MindSpore literal, where the two spell one setting differently (unbiased=True -> ddof=1)
    values: tuple[tuple[str, str], ...] = ()
    note: str = ""  # what to do instead, shown when the converter refuses this argument
    scalar_only: bool = False  # MindSpore reads a literal tuple/list here differently: refuse those

    def value_for(self, torch_text: str) -> str | None:
        """The MindSpore spelling of a PyTorch literal; the literal itself when no table applies."""
        if not self.values:
            return torch_text
        table = dict(self.values)
        if torch_text in table:
            return table[torch_text]
        # "bilinear" and 'bilinear' are one literal: the tables list string values single-quoted
        if len(torch_text) >= 2 and torch_text[0] == torch_text[-1] == '"' and "'" not in torch_text:
            single = f"'{torch_text[1:-1]}'"
            if single in table:
                return torch_text if table[single] == single else table[single]
        return None

    @property
    def differs(self) -> bool:
        return self.relation not in ("same", "none", "mindspore_only")


@dataclass(frozen=True)
class ApiEntry:
    torch: str
    mindspore: tuple[str, ...]
    category: str  # consistent / param_names_differ / ... / diff / other
    section: str
    params: tuple[ParamDiff, ...] = ()
    torch_defaults: dict = field(default_factory=dict, hash=False, compare=False)
    mindspore_defaults: dict = field(default_factory=dict, hash=False, compare=False)
    torch_signature: str = ""
    mindspore_signature: str = ""
    # set when the counterpart is a primitive: built from the other arguments, then called on these
    primitive_inputs: tuple[str, ...] = ()
    # curated rewrites that are no plain call (see classic_supplement.json's "about")
    constant: str = ""  # the argument-less call is this expression: torch.jit.is_scripting() -> False
    passthrough: str = ""  # the call is this argument of its own: torch.compile(m) -> m
    fixed: tuple[tuple[str, str], ...] = ()  # MindSpore keywords always written: pad_mode='pad'
    optional_first: tuple[str, tuple[str, ...]] | None = None  # randint(high, size): (first's default, later ones)
    note: str = ""  # what a user should know about the curated rewrite (shown with the change)
    template: str = ""  # the call is this expression, {name} slots filled: randperm(n) -> shuffle(arange(n))
    helper: str = ""  # the call goes to this local function of PyTorch's signature (convert/support/helper_source.py)

    @property
    def primary(self) -> str:
        """The counterpart to suggest first ('' when the table names none)."""
        return self.mindspore[0] if self.mindspore else ""

    @property
    def rewritten_as(self) -> str:
        """What the call becomes, in words, also for curated rewrites that name no MindSpore API."""
        if self.primary:
            return self.primary
        if self.constant:
            return f"the constant {self.constant}"
        if self.passthrough:
            return f"its argument {self.passthrough}"
        if self.template:
            return self.template
        if self.helper:
            return f"a local function {self.helper}()"
        return "(see mapping)"

    def param(self, torch_name: str) -> ParamDiff | None:
        for row in self.params:
            if row.kind == "param" and row.torch == torch_name:
                return row
        return None

    def arg_renames(self) -> dict[str, str]:
        """torch keyword -> MindSpore keyword, for rows that only rename."""
        return {
            p.torch: p.mindspore
            for p in self.params
            if p.kind == "param" and p.relation in ("renamed", "renamed_default_differs") and p.torch and p.mindspore
        }

    def dropped_args(self) -> set[str]:
        return {p.torch for p in self.params if p.kind == "param" and p.relation == "torch_only" and p.torch}


class ApiMapping:
    """All PyTorch APIs MindSpore documents a counterpart for, for one target."""

    def __init__(self, target: str, payload: dict):
        self.target = target
        self.digest = payload["source_digest"]
        self._entries: dict[str, ApiEntry] = {}
        # APIs with no counterpart, each with what to write instead (curated, see build.py)
        self.manual: dict[str, str] = dict(payload.get("manual", {}))
        # decorators that do nothing outside PyTorch (torch.jit.ignore): a converted function drops them
        self.no_op_decorators: frozenset[str] = frozenset(payload.get("no_op_decorators", ()))
        for name, raw in payload["apis"].items():
            diff = raw.get("diff") or {}
            self._entries[name] = ApiEntry(
                torch=name,
                mindspore=tuple(raw["mindspore"]),
                category=raw["category"],
                section=raw["section"],
                params=tuple(_param(p) for p in diff.get("params", [])),
                torch_defaults=diff.get("torch_defaults", {}),
                mindspore_defaults=diff.get("mindspore_defaults", {}),
                torch_signature=diff.get("torch_signature", ""),
                mindspore_signature=diff.get("mindspore_signature", ""),
                primitive_inputs=tuple(raw.get("primitive_inputs", ())),
                constant=raw.get("constant", ""),
                passthrough=raw.get("passthrough", ""),
                fixed=tuple(sorted((raw.get("fixed") or {}).items())),
                optional_first=_optional_first(raw.get("optional_first")),
                note=raw.get("note", ""),
                template=raw.get("template", ""),
                helper=raw.get("helper", ""),
            )

    def get(self, torch_name: str) -> ApiEntry | None:
        return self._entries.get(torch_name)

    def __contains__(self, torch_name: str) -> bool:
        return torch_name in self._entries

    def __iter__(self):
        return iter(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)


def _param(raw: dict) -> ParamDiff:
    return ParamDiff(kind=raw["kind"], torch=raw["torch"], mindspore=raw["mindspore"], relation=raw["relation"],
                     values=tuple(sorted((raw.get("values") or {}).items())), note=raw.get("note", ""),
                     scalar_only=bool(raw.get("scalar_only")))


def _optional_first(raw: dict | None) -> tuple[str, tuple[str, ...]] | None:
    return (raw["value"], tuple(raw["then"])) if raw else None


def signature_parameters(signature: str) -> list[str]:
    """The raw items of a signature's first parenthesised list: 'x', 'dim=None', '*args'."""
    start = signature.find("(")
    if start < 0:
        return []
    depth, items, current = 0, [], []
    for ch in signature[start + 1:]:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        if ch == "," and depth == 0:
            items.append("".join(current))
            current = []
        else:
            current.append(ch)
    items.append("".join(current))
    return items


@dataclass(frozen=True)
class Signature:
    """Both frameworks' signatures for one API and how their parameters correspond (see build.py).
    A parameter is (name, kind, default, type): kind p positional-or-keyword, o positional-only,
    k keyword-only, v *args, w **kwargs; default the source text or None when required."""

    torch: tuple[tuple, ...]  # PyTorch's overloads
    mindspore_name: str
    mindspore: tuple  # the MindSpore overload the correspondence was drawn against
    map: dict = field(hash=False, compare=False)  # torch name -> MindSpore name ('' = no counterpart)
    transforms: dict = field(default_factory=dict, hash=False, compare=False)  # torch name -> {literal: literal}
    computed: dict = field(default_factory=dict, hash=False, compare=False)  # stride=None means kernel_size
    pad_mode: str = ""  # MindSpore's pad_mode default, where its padding= needs pad_mode='pad'

    def mindspore_param(self, name: str) -> tuple | None:
        return next((p for p in self.mindspore if p[0] == name), None)


class Signatures:
    """Signatures per PyTorch API name, parsed on first use (the file holds ~800)."""

    def __init__(self, payload: dict) -> None:
        self._raw = payload.get("apis", {})
        self._parsed: dict[str, Signature | None] = {}

    def get(self, torch_name: str) -> Signature | None:
        if torch_name not in self._parsed:
            raw = self._raw.get(torch_name)
            self._parsed[torch_name] = None if raw is None else Signature(
                torch=tuple(tuple(tuple(p) for p in sig) for sig in raw["torch"]),
                mindspore_name=raw["mindspore_name"],
                mindspore=tuple(tuple(p) for p in raw["mindspore"]),
                map=raw["map"], transforms=raw.get("transforms", {}), computed=raw.get("computed", {}),
                pad_mode=raw.get("pad_mode", ""))
        return self._parsed[torch_name]

    def __len__(self) -> int:
        return len(self._raw)


@lru_cache(maxsize=None)
def load_signatures(target: str = "classic") -> Signatures:
    path = DATA_DIR / f"signatures_{target}.json"
    return Signatures(json.loads(path.read_text(encoding="utf-8")) if path.exists() else {})


@lru_cache(maxsize=None)
def load_mapping(target: str = "classic") -> ApiMapping:
    path = DATA_DIR / f"api_mapping_{target}.json"
    if not path.exists():
        raise ValueError(f"unknown target {target!r}: expected one of classic, mint")
    return ApiMapping(target, json.loads(path.read_text(encoding="utf-8")))
