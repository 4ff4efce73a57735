"""Parameter correspondence between a PyTorch signature and its MindSpore counterpart's (build time).

Which MindSpore parameter receives each PyTorch parameter, decided in this order:
1. the same name on both sides (a keyword reaches it), unless a row says it has no counterpart
   (the supplement refuses output_padding: same name, other values on CPU);
2. the mapping tables' rows (facts from MindSpore's documentation, and the supplement's), their
   PyTorch names aligned by position with the introspected names where the tables spell them
   differently (the tables write torch.broadcast_to(input, shape); the binding accepts size=);
3. a known synonym (dim -> axis, keepdim -> keepdims, correction -> ddof ...);
4. a required parameter at the same position of both signatures, both still unmatched.
Anything else has no counterpart: the converter drops it only when the value passed is a no-op.
"""
from __future__ import annotations

import ast

from analysis.knowledge.introspect import parse_params
from analysis.knowledge.mapping import signature_parameters

SYNONYMS = {
    "input": ("x", "input_x", "a", "logits", "inputs", "self"),
    "self": ("input", "x"),
    "dim": ("axis",),
    "dims": ("axis", "axes", "dim"),
    "dim0": ("axis0",),
    "dim1": ("axis1",),
    "dim2": ("axis2",),
    "keepdim": ("keepdims", "keep_dims"),
    "other": ("y", "x2"),
    "correction": ("ddof",),
    "unbiased": ("ddof", "correction"),
    "size": ("shape",),
    "shape": ("size",),
    "exponent": ("other",),
    "tensors": ("inputs", "tensors"),
    "indices_or_sections": ("sections", "indices"),
}
# PyTorch literal -> MindSpore literal where two parameters spell one setting differently
TRANSFORMS = {("unbiased", "ddof"): {"True": "1", "False": "0"}, ("unbiased", "correction"): {"True": "1", "False": "0"}}
# PyTorch defaults of None that mean another argument's value (documented: "Default: kernel_size")
COMPUTED_DEFAULTS = {"stride": "kernel_size"}


def _names(sig: list[list]) -> list[str]:
    return [p[0] for p in sig]


def _table_names(signature: str) -> list[str]:
    params = parse_params(",".join(signature_parameters(signature))) or []
    return [p[0] for p in params if p[0] != "self"]


def choose_mindspore(torch_sigs: list[list[list]], ms_sigs: list[list[list]]) -> list[list]:
    """The MindSpore overload whose names match PyTorch's best (ties: the first listed)."""
    wanted = {p[0] for sig in torch_sigs for p in sig}
    best, score = ms_sigs[0], -1
    for sig in ms_sigs:
        s = sum(1 for p in sig if p[0] in wanted)
        if s > score:
            best, score = sig, s
    return best


def correspondence(torch_sigs: list[list[list]], ms_sig: list[list], rows: list[dict],
                   table_signature: str, method: bool) -> dict[str, str]:
    """torch parameter name -> MindSpore parameter name ('' = no counterpart)."""
    ms_names = _names(ms_sig)
    ms_kwargs = any(p[1] == "w" for p in ms_sig)
    torch_names: list[str] = []
    for sig in torch_sigs:
        torch_names += [n for n in _names(sig) if n not in torch_names]
    aliases: dict[str, str] = {}  # table name -> introspected name
    table = _table_names(table_signature)
    if method and table and table[0] in ("input", "self") and (not torch_names or torch_names[0] != table[0]):
        table = table[1:]  # the table writes torch.float_power(input, exponent) for the method
    for sig in torch_sigs:
        for i, name in enumerate(table):
            if name not in torch_names and i < len(sig) and sig[i][0] not in table:
                aliases.setdefault(name, sig[i][0])
    corr: dict[str, str] = {}
    together = {n: {m for sig in torch_sigs if n in _names(sig) for m in _names(sig)} for n in torch_names}
    claims: dict[str, set[str]] = {}  # MindSpore name -> the PyTorch names mapped onto it

    class _Claimed:
        """A MindSpore name is taken for a PyTorch name when one overload also holds its claimant
        (unbiased= and correction= both become ddof=: no overload has both)."""

        def __init__(self) -> None:
            self.current = ""

        def __contains__(self, ms: str) -> bool:
            return any(other in together.get(self.current, {self.current}) for other in claims.get(ms, ()))

        def add(self, ms: str) -> None:
            claims.setdefault(ms, set()).add(self.current)

    claimed = _Claimed()
    refused = {aliases.get(r["torch"], r["torch"]) for r in rows if r.get("relation") == "torch_only" and r.get("torch")}
    for name in torch_names:  # one name on both sides: a keyword reaches that parameter (unless a row refuses it)
        if name in ms_names and name not in refused:
            claimed.current = name
            corr[name] = name
            claimed.add(name)
    for row in rows:
        if row.get("kind") not in ("param", "input") or not row.get("torch"):
            continue
        name = aliases.get(row["torch"], row["torch"])
        if name not in torch_names or name in corr:
            continue
        target = row.get("mindspore") or ""
        if row.get("relation") == "torch_only":
            corr[name] = ""
        elif target in ms_names or (ms_kwargs and target):
            claimed.current = name
            corr[name] = target
            claimed.add(target)
    for name in torch_names:
        if name in corr:
            continue
        claimed.current = name
        if name in ms_names and name not in claimed:
            corr[name] = name
            claimed.add(name)
            continue
        for other in SYNONYMS.get(name, ()):
            if other in ms_names and other not in claimed:
                corr[name] = other
                claimed.add(other)
                break
    for sig in torch_sigs:
        for i, p in enumerate(sig):
            if p[0] in corr or p[2] is not None or p[1] not in "po" or i >= len(ms_sig):
                continue
            claimed.current = p[0]
            q = ms_sig[i]
            if q[0] not in claimed and q[2] is None and q[1] in "po":
                corr[p[0]] = q[0]
                claimed.add(q[0])
    return {name: corr.get(name, "") for name in torch_names}


def transforms(corr: dict[str, str], rows: list[dict]) -> dict[str, dict[str, str]]:
    found = {t: dict(v) for (t, m), v in TRANSFORMS.items() if corr.get(t) == m}
    for row in rows:
        if row.get("values") and row.get("torch") in corr:
            found[row["torch"]] = dict(row["values"])
    return found


def same_literal(a: str | None, b: str | None) -> bool:
    if a == b:
        return True
    if a is None or b is None:
        return False
    try:
        return ast.literal_eval(a) == ast.literal_eval(b)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
