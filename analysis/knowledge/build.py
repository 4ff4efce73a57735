"""Generate the project's knowledge-base data files from MindSpore's mapping tables.

Run from the project root whenever ../shared/reference changes:

    python -m analysis.knowledge.build [--reference ../shared/reference]

The product never reads ../shared at run time; it reads the JSON files this
script writes into analysis/knowledge/data/. Only facts are carried over (API
names, parameter correspondences, signatures, categories); the documentation's
free-text notes are reduced to a small set of relation codes so every sentence a
user sees is written by this project (see analysis/knowledge/mapping.py).

The classic table is then overlaid with data/classic_supplement.json (and the files of
data/classic_supplement/, in name order, each of the same shape): entries this
project curated by hand (APIs the tables omit, names that do not exist in the
MindSpore release we target, parameter correspondences the tables leave out), each
checked against MindSpore on CPU. A supplement entry replaces the table's entry. Its
"manual" section names APIs with no counterpart on MindSpore's CPU kernels and what to
write instead; the converter shows that action where it leaves such a call marked.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
from pathlib import Path

from analysis.knowledge.mapping import signature_parameters

DATA_DIR = Path(__file__).parent / "data"
TARGETS = ("classic", "mint")
SUPPLEMENTS = {"classic": DATA_DIR / "classic_supplement.json"}
# more curated files of the same shape, merged after SUPPLEMENTS in name order: one per family of APIs, so
# that work on separate families does not edit one file
SUPPLEMENT_DIRS = {"classic": DATA_DIR / "classic_supplement"}


def supplement_files(target: str) -> list[Path]:
    """The curated files overlaid on `target`'s table, in the order they are merged (a later entry wins)."""
    main = SUPPLEMENTS.get(target)
    folder = SUPPLEMENT_DIRS.get(target)
    extra = sorted(folder.glob("*.json")) if folder is not None and folder.is_dir() else []
    return ([main] if main is not None else []) + extra
# optional fields a supplement entry / parameter row may carry into the tables (see mapping.py)
ENTRY_EXTRAS = ("primitive_inputs", "constant", "passthrough", "fixed", "optional_first", "note", "template",
                "helper")
ROW_EXTRAS = ("values", "note", "scalar_only")
SECTIONS = ("torch.nn.functional", "torch.nn", "torch.Tensor", "torch.optim", "torch.utils", "torch")

# Row kinds in the source tables are spelled many ways; keep three.
_KIND = {
    "parameters": "param",
    "parameter": "param",
    "param": "param",
    "input": "input",
    "inputs": "input",
    "output": "output",
    "returns": "output",
}


def _relation(torch_name: str, ms_name: str, note: str) -> str:
    """Classify one parameter row into a relation code (facts, not prose)."""
    text = note.lower()
    t_missing = torch_name in ("", "-")
    m_missing = ms_name in ("", "-")
    if t_missing and m_missing:
        return "none"
    if m_missing or "not supported by mindspore" in text or "mindspore does not have" in text:
        return "torch_only"
    if t_missing or "pytorch does not have" in text:
        return "mindspore_only"
    if "refer" in text or "difference" in text:
        return "differs"  # the doc explains a semantic difference, not a rename
    renamed = torch_name != ms_name
    default = "default" in text
    if renamed and default:
        return "renamed_default_differs"
    if default:
        return "default_differs"
    if renamed:
        return "renamed"
    if text in ("-", "", "consistent", "consistent function", "no difference", "same function"):
        return "same"
    return "differs"


def _clean_name(name: str) -> str:
    return name.strip().strip("`").strip()


def _convert_diff(doc: dict) -> dict:
    rows = []
    for row in doc.get("rows", []):
        kind = _KIND.get(row.get("kind", "").strip().lower())
        if kind is None:
            continue
        torch_name = _clean_name(row.get("torch", ""))
        ms_name = _clean_name(row.get("mindspore", ""))
        rows.append(
            {
                "kind": kind,
                "torch": "" if torch_name == "-" else torch_name,
                "mindspore": "" if ms_name == "-" else ms_name,
                "relation": _relation(torch_name, ms_name, row.get("note", "")),
            }
        )
    return {
        "torch_signature": doc.get("torch_signature", ""),
        "mindspore_signature": doc.get("mindspore_signature", ""),
        "params": rows,
    }


def _signature_defaults(signature: str) -> dict[str, str]:
    """Parameter defaults written in a signature, e.g. {'has_bias': 'False'}."""
    parts = signature_parameters(signature)
    defaults = {}
    for part in parts:
        if "=" in part:
            name, value = part.split("=", 1)
            defaults[name.strip().lstrip("*")] = value.strip()
    return defaults


def _supplement_entry(name: str, raw: dict) -> dict:
    """One hand-curated entry in the generated tables' shape (see classic_supplement.json)."""
    section = next((s for s in SECTIONS if name == s or name.startswith(s + ".")), "torch")
    diff = None
    if raw.get("params") or raw.get("torch_signature"):
        diff = {
            "torch_signature": raw.get("torch_signature", ""),
            "mindspore_signature": raw.get("mindspore_signature", ""),
            "params": [
                {"kind": p.get("kind", "param"), "torch": p["torch"], "mindspore": p["mindspore"], "relation": p["relation"],
                 **{key: p[key] for key in ROW_EXTRAS if p.get(key)}}
                for p in raw.get("params", [])
            ],
        }
        diff["torch_defaults"] = _signature_defaults(diff["torch_signature"])
        diff["mindspore_defaults"] = _signature_defaults(diff["mindspore_signature"])
    entry = {"section": section, "mindspore": list(raw["mindspore"]), "category": raw["category"], "diff": diff,
             "origin": "supplement"}
    for key in ENTRY_EXTRAS:
        if raw.get(key):
            entry[key] = raw[key]
    return entry


def build(reference_dir: Path, out_dir: Path = DATA_DIR, introspect: bool = True) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for target in TARGETS:
        source = reference_dir / f"mindspore_api_mapping_{target}.json"
        raw = json.loads(source.read_text(encoding="utf-8"))
        apis: dict[str, dict] = {}
        for row in raw["mappings"]:
            entry = apis.setdefault(
                row["torch"],
                {"section": row["section"], "mindspore": [], "category": row["category"], "diff": None},
            )
            for name in row["mindspore"]:
                if name not in entry["mindspore"]:
                    entry["mindspore"].append(name)
            doc = raw["diffs"].get(row["diff_doc"]) if row.get("diff_doc") else None
            if doc and entry["diff"] is None:
                diff = _convert_diff(doc)
                diff["torch_defaults"] = _signature_defaults(diff["torch_signature"])
                diff["mindspore_defaults"] = _signature_defaults(diff["mindspore_signature"])
                entry["diff"] = diff
        digest = hashlib.sha256(source.read_bytes())
        manual: dict[str, str] = {}  # APIs with no counterpart -> what to write instead
        decorators: list[str] = []  # of those, decorators that do nothing outside PyTorch
        for supplement in supplement_files(target):
            digest.update(supplement.read_bytes())
            curated = json.loads(supplement.read_text(encoding="utf-8"))
            for name, raw in curated.get("apis", {}).items():
                apis[name] = _supplement_entry(name, raw)
                manual.pop(name, None)  # a later file's rewrite supersedes an earlier file's instruction
            for name, raw in curated.get("manual", {}).items():
                manual[name] = raw["action"]
                if raw.get("refuse"):  # the tables map it, but the counterpart computes something else
                    apis.pop(name, None)
                if raw.get("decorator"):
                    decorators.append(name)
        payload = {
            "target": target,
            "source_digest": digest.hexdigest()[:16],
            "apis": dict(sorted(apis.items())),
        }
        if manual:
            payload["manual"] = dict(sorted(manual.items()))
        if decorators:
            payload["no_op_decorators"] = sorted(decorators)
        path = out_dir / f"api_mapping_{target}.json"
        path.write_text(json.dumps(payload, indent=1, sort_keys=False) + "\n", encoding="utf-8")
        written.append(path)
        if target == "classic" and introspect:
            written.append(build_signatures(payload["apis"], out_dir / f"signatures_{target}.json"))
    return written


def build_signatures(apis: dict[str, dict], path: Path) -> Path:
    """Both frameworks' signatures per mapped API, introspected from the installed torch and
    MindSpore, with the parameter correspondence the converter binds calls through (see
    correspond.py; the product reads only the file written here)."""
    import mindspore  # noqa: F401 - both frameworks are needed at build time only
    import torch

    from analysis.knowledge import correspond, introspect

    out: dict[str, dict] = {}
    for name, entry in apis.items():
        if not entry["mindspore"] or not name.startswith("torch."):
            continue
        torch_sigs, torch_source = introspect.torch_signatures(name)
        ms_name = entry["mindspore"][0]
        ms_sigs, ms_source = introspect.mindspore_signatures(ms_name)
        diff = entry.get("diff") or {}
        if not torch_sigs and diff.get("torch_signature"):
            parsed = introspect.parse_params(",".join(signature_parameters(diff["torch_signature"])))
            if parsed:
                torch_sigs, torch_source = [[p for p in parsed if p[0] != "self"]], "table"
        if ms_source == "doc" and entry.get("origin") == "supplement" and diff.get("mindspore_signature"):
            # a Tensor method's documented names are its newer overloads; the supplement's signature was
            # checked on CPU, where 2.10 dispatches some methods to older ones (nansum: axis=, not dim=)
            ms_sigs = []
        if not ms_sigs and diff.get("mindspore_signature"):
            parsed = introspect.parse_params(",".join(signature_parameters(diff["mindspore_signature"])))
            if parsed is not None:
                ms_sigs, ms_source = [[p for p in parsed if p[0] != "self"]], "table"
        if not torch_sigs or not ms_sigs:
            continue
        ms_sig = correspond.choose_mindspore(torch_sigs, ms_sigs)
        rows = diff.get("params", [])
        method = name.startswith("torch.Tensor.")
        corr = correspond.correspondence(torch_sigs, ms_sig, rows, diff.get("torch_signature", ""), method)
        record = {"torch": torch_sigs, "torch_source": torch_source, "mindspore_name": ms_name,
                  "mindspore": ms_sig, "mindspore_source": ms_source, "map": corr}
        values = correspond.transforms(corr, rows)
        if values:
            record["transforms"] = values
        names = {p[0]: p for sig in torch_sigs for p in sig}
        computed = {k: v for k, v in correspond.COMPUTED_DEFAULTS.items()
                    if k in names and v in names and names[k][2] == "None" and "pool" in name.lower()}
        if computed:
            record["computed"] = computed
        ms_names = {p[0] for p in ms_sig}
        if {"padding", "pad_mode"} <= ms_names and "padding" in names and "pad_mode" not in names:
            # MindSpore reads padding= only under pad_mode='pad'; PyTorch's 'same'/'valid' are modes there
            record["pad_mode"] = next(p[2] for p in ms_sig if p[0] == "pad_mode")
        out[name] = record
    payload = {"torch_version": torch.__version__.split("+")[0], "mindspore_version": mindspore.__version__,
               "apis": out}
    path.write_text(json.dumps(payload, indent=0, sort_keys=False) + "\n", encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_ref = Path(__file__).resolve().parents[2].parent / "shared" / "reference"
    parser.add_argument("--reference", type=Path, default=default_ref)
    args = parser.parse_args()
    for path in build(args.reference):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
