"""The keyword names PyTorch's Tensor methods take, to tell a tensor's method from a namesake of another
type on a receiver whose type the file does not say: `items.sort(key=len, reverse=True)` passes keywords
no torch.Tensor.sort takes, so it is a list's sort, and no tensor rule (nor marker) applies to it.

Data (tensor_keywords.json), written from the installed torch by
`python -m analysis.convert.apis.tensor_keywords`: for each public torch.Tensor method, the union of the
parameter names torch.overrides lists for the method and for its torch.* namesake, those of the signature
lines of its docstring (overloads: x.to(device=...)), and those the sample verdicts' generator varied
(analysis/verify); a method taking **kwargs by its overrides' signature is left out (anything fits)."""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

import libcst as cst

PATH = Path(__file__).with_name("tensor_keywords.json")


@lru_cache(maxsize=1)
def _data() -> dict[str, frozenset[str]]:
    if not PATH.exists():
        return {}
    return {name: frozenset(words) for name, words in json.loads(PATH.read_text(encoding="utf-8"))["methods"].items()}


def foreign_keyword(call: cst.Call, method: str) -> str | None:
    """A keyword of the call that torch.Tensor.<method> does not take, or None (also when unknown)."""
    known = _data().get(method)
    if known is None:
        return None
    return next((a.keyword.value for a in call.args if a.keyword is not None and a.keyword.value not in known), None)


def build() -> dict:
    import inspect

    import torch
    from torch.overrides import get_testing_overrides

    from analysis.verify.verdicts import load_verdicts

    overrides = get_testing_overrides()
    varied = load_verdicts()["apis"]
    methods = {}
    for name in dir(torch.Tensor):
        if name.startswith("_") or not callable(getattr(torch.Tensor, name, None)):
            continue
        words: set[str] = set()
        for owner in (torch.Tensor, torch):
            function = overrides.get(getattr(owner, name, None))
            if function is None:
                continue
            parameters = inspect.signature(function).parameters.values()
            if any(p.kind is p.VAR_KEYWORD for p in parameters):
                break
            words |= {p.name for p in parameters}
        else:
            for line in (getattr(torch.Tensor, name).__doc__ or "").splitlines():
                found = re.match(rf"\s*(?:\.\. method:: )?{name}\(([^)]*)\)", line)
                for part in found.group(1).split(",") if found else ():
                    word = re.match(r"\s*\**(\w+)", part)  # the name before a default or annotation
                    if word and not part.strip().startswith("**"):  # **kwargs of a generic overload: no name
                        words.add(word.group(1))
            entry = varied.get(f"torch.Tensor.{name}", {})
            words |= set(entry.get("positional", ())) | set(entry.get("params", {}))
            if words:
                methods[name] = sorted(words)
    return {"about": "Keyword names torch.Tensor's methods take (torch.overrides' signatures of the method and of "
                     "its torch.* namesake, and the verdict generator's parameters). Written by "
                     "`python -m analysis.convert.apis.tensor_keywords`; read by tensor_keywords.py.",
            "torch": torch.__version__, "methods": dict(sorted(methods.items()))}


if __name__ == "__main__":
    data = build()
    PATH.write_text(json.dumps(data, indent=0) + "\n", encoding="utf-8")
    print(f"keywords of {len(data['methods'])} torch.Tensor methods written to {PATH}")
