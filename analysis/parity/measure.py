"""Child side of the measurement channel: each pair of tensors the checks
take (PyTorch's, MindSpore's) is sent to the parent as it is taken, with
what the parent needs to judge it (its role, the layer, its op kind,
PyTorch's own float32 round-off there). The rows of the child's result
point at pairs by number; they carry no status.

A tensor is sent as `compare.Capture` keeps it: whole up to
FULL_ELEMENTS, else a strided sample with exact statistics.
"""
from __future__ import annotations

import math

ROLES = ("output", "layer", "input", "gradient", "input_gradient", "state")


def _meta(capture) -> dict:
    return {"shape": list(capture.shape), "dtype": capture.dtype, "sampled": bool(capture.sampled),
            "stats": capture.stats}


class Sink:
    def __init__(self, send, key: str) -> None:
        self.send, self.key = send, key
        self.count = 0

    def pair(self, role: str, reference, candidate, noise=None, *, kind: str = "", layer: str | None = None,
             figures: bool = False) -> dict:
        number = self.count
        self.count += 1
        noise = float(noise) if noise is not None and math.isfinite(float(noise)) else None
        self.send({"event": "pair", "key": self.key, "id": number, "role": role, "kind": str(kind), "layer": layer,
                   "noise": noise, "figures": figures, "torch": _meta(reference), "mindspore": _meta(candidate)},
                  {"torch": reference.values, "mindspore": candidate.values})
        return {"pair": number}
