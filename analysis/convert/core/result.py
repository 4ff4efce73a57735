"""Result records of one conversion: what changed, what is left, which layers exist."""
from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field


@dataclass
class Change:
    """One rewrite the converter made."""

    line: int  # 1-based, in the original source
    rule_id: str
    torch_api: str
    mindspore_api: str
    description: str


@dataclass
class Unconverted:
    """One PyTorch use left as it was, marked with a MIGRATE comment."""

    line: int  # 1-based, in the original source
    rule_id: str
    torch_api: str
    action: str  # what a person has to do


@dataclass
class LayerRecord:
    """One layer constructed in a cell's __init__, as converted."""

    class_name: str
    attribute: str  # path inside the class: "conv1", "layers.2"
    torch_api: str
    mindspore_api: str
    line: int
    kwargs: dict[str, str] = field(default_factory=dict)  # MindSpore keyword -> source text
    args: list[str] = field(default_factory=list)  # positional arguments left positional


@dataclass
class ConversionResult:
    path: str
    text: str
    diff: str
    changes: list[Change] = field(default_factory=list)
    unconverted: list[Unconverted] = field(default_factory=list)
    layer_map: list[LayerRecord] = field(default_factory=list)
    parse_error: str = ""
    support_names: list[str] = field(default_factory=list)  # helpers the text imports from the support module

    @property
    def changed(self) -> bool:
        return bool(self.diff)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class TreeConversion:
    src: str
    dst: str
    target: str
    files: list[ConversionResult] = field(default_factory=list)
    copied: list[str] = field(default_factory=list)  # non-Python files, relative paths
    support: list[str] = field(default_factory=list)  # copies of the support module written (support/placement.py)
    seconds: float = 0.0

    @property
    def unconverted_count(self) -> int:
        return sum(len(f.unconverted) for f in self.files)

    def summary(self) -> dict:
        return {
            "src": self.src,
            "dst": self.dst,
            "target": self.target,
            "python_files": len(self.files),
            "copied_files": len(self.copied),
            "changed_files": sum(1 for f in self.files if f.changed),
            "changes": sum(len(f.changes) for f in self.files),
            "unconverted": self.unconverted_count,
            "parse_errors": sum(1 for f in self.files if f.parse_error),
            "seconds": round(self.seconds, 3),
        }

    def to_dict(self) -> dict:
        data = self.summary()
        data["files"] = [
            {k: v for k, v in f.to_dict().items() if k not in ("text",)} for f in self.files
        ]
        data["copied"] = list(self.copied)
        data["support"] = list(self.support)
        return data


@dataclass
class KeptConversion:
    """One file's conversion made before the tree's (the analyzer converts each file so that its
    findings agree with the converter), kept with what it was made from: convert_tree takes it
    instead of converting the file again only for the same text, helper import and settings."""

    text_sha256: str
    support: str | None
    target: str
    ms_version: str
    result: ConversionResult

    @classmethod
    def of(cls, text: str, *, support: str | None, target: str, ms_version: str,
           result: ConversionResult) -> KeptConversion:
        return cls(text_digest(text), support, target, ms_version, result)

    def fits(self, text: str, *, support: str | None, target: str, ms_version: str) -> bool:
        return (self.support, self.target, self.ms_version) == (support, target, ms_version) \
            and self.text_sha256 == text_digest(text)


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
