"""Keywords PyTorch's parser takes under another name than its documentation: torch.linalg.cholesky is
documented as `cholesky(A, *, upper=False)`, but the builtin binds ATen's schema, whose first tensor is
`input` (`torch.linalg.cholesky(input=a)` runs; `A=a` raises). The knowledge base and the helpers use the
documented names, so before any rewrite sees such a call its keyword is renamed to the documented one
(`torch.linalg.cholesky(input=a)` is `torch.linalg.cholesky(a)` to every later step).

Data (keyword_aliases.json), written from the installed torch by
`python -m analysis.convert.apis.keyword_aliases`: for each mapped PyTorch builtin, the parameter names
its ATen schemas take at a position (self read as `input`) where the knowledge base knows another name
and none of the schema's; only names torch accepts and the knowledge base does not know are listed."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import libcst as cst

PATH = Path(__file__).with_name("keyword_aliases.json")


@lru_cache(maxsize=1)
def _data() -> dict[str, dict[str, str]]:
    if not PATH.exists():
        return {}
    return json.loads(PATH.read_text(encoding="utf-8"))["apis"]


def canonical(api: str, call: cst.Call) -> cst.Call:
    """The call with each keyword PyTorch takes under its ATen name written under the documented name."""
    aliases = _data().get(api)
    if not aliases or not any(a.keyword is not None and a.keyword.value in aliases for a in call.args):
        return call
    written = {a.keyword.value for a in call.args if a.keyword is not None}
    args = []
    for arg in call.args:
        name = arg.keyword.value if arg.keyword is not None else None
        if name in aliases and aliases[name] not in written:  # both spelled: PyTorch raises; leave it so
            arg = arg.with_changes(keyword=cst.Name(aliases[name]))
        args.append(arg)
    return call.with_changes(args=args)


def _known_names(entry, signature) -> list[list[str]]:
    """The knowledge base's parameter lists for an API: the entry's documented signature, then each overload."""
    from analysis.knowledge.mapping import signature_parameters

    lists = []
    if entry is not None and entry.torch_signature:
        names = []
        for item in signature_parameters(entry.torch_signature):
            name = item.partition("=")[0].split(":")[0].strip()
            if name == "*":
                break  # keyword-only from here: no position to pair with
            if name and name not in ("/", "self") and not name.startswith("*"):
                names.append(name)
        lists.append(names)
    if signature is not None:
        lists += [[p[0] for p in overload if p[1] in "po"] for overload in signature.torch]
    return lists


def build() -> dict:
    import inspect

    import torch

    from analysis.knowledge import introspect
    from analysis.knowledge.mapping import load_mapping, load_signatures, signature_parameters

    signatures = load_signatures("classic")
    apis = {}
    for entry in load_mapping("classic"):
        api = entry.torch
        if not api.startswith("torch.") or api.startswith("torch.Tensor."):
            continue
        obj = introspect.resolve(api)
        if obj is None or inspect.isclass(obj) or inspect.isfunction(obj):
            continue  # defined in Python: its own signature is what the parser takes
        schemas = introspect._aten_schemas(introspect._aten_name(api, api.rsplit(".", 1)[1]), False)
        known_lists = _known_names(entry, signatures.get(api))
        known = {name for names in known_lists for name in names}
        if entry.torch_signature:
            known |= {item.partition("=")[0].split(":")[0].strip().lstrip("*")
                      for item in signature_parameters(entry.torch_signature)}
        aliases = {}
        for schema in schemas:
            positional = [p[0] for p in schema if p[1] == "p"]
            for index, name in enumerate(positional):
                if name in known:
                    continue
                documented = {names[index] for names in known_lists if index < len(names)}
                if len(documented) == 1 and not documented & {p[0] for p in schema}:
                    aliases[name] = documented.pop()
        if aliases:
            apis[api] = dict(sorted(aliases.items()))
    return {"about": "Keyword names PyTorch builtins take (their ATen schema's, self read as input) where the "
                     "knowledge base documents another name at that position: accepted name -> documented name. "
                     "Written by `python -m analysis.convert.apis.keyword_aliases`; read by keyword_aliases.py.",
            "torch": torch.__version__, "apis": dict(sorted(apis.items()))}


if __name__ == "__main__":
    data = build()
    PATH.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"keyword aliases of {len(data['apis'])} PyTorch builtins written to {PATH}")
