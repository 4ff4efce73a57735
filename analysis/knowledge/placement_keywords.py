"""PyTorch-only keywords whose value changes no value computed, with the values for which that holds
(None: any value). device/non_blocking/pin_memory: MindSpore places data by context, not per tensor;
memory_format: strides only (MindSpore tensors have none; the values are the same); layout: only the dense
layout is what MindSpore has; requires_grad=False is the default (True asks for a gradient, which MindSpore
takes from value_and_grad: a person must decide).

The converter drops such an argument where MindSpore's call does not take it (convert/apis/target_args.py),
so a verdict about passing it (analysis/verify) says nothing of the converted call: the analyzer and the
converter both leave it out when they read one (verdicts.call_verdict)."""
from __future__ import annotations

HARMLESS: dict[str, frozenset[str] | None] = {
    "device": None,
    "non_blocking": None,
    "pin_memory": None,
    "memory_format": None,
    "layout": frozenset({"torch.strided"}),
    "requires_grad": frozenset({"False", "None"}),
}


def harmless(name: str, value: str | None) -> bool:
    """Whether keyword `name` with value `value` (its source text, torch names written in full; None when
    not known) can be dropped without changing a value computed."""
    if name not in HARMLESS:
        return False
    allowed = HARMLESS[name]
    return allowed is None or value in allowed
