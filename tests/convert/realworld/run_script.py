"""Run one training script unmodified and record its losses: `python run_script.py FRAMEWORK SCRIPT OUT
MAX_STEPS [SCRIPT OPTIONS...]`, in the working directory the script expects (its data beside it).

The script is not edited. Its losses are read where every step passes: PyTorch's Tensor.backward
(the PyTorch side) or the function mindspore.value_and_grad returns (the converted side). After
MAX_STEPS losses the run is stopped from there, so a script whose epochs are fixed in its code still
ends after a few steps. The script's folder is on sys.path, as when it is run from its folder."""
from __future__ import annotations

import json
import os
import runpy
import sys
import traceback


class Enough(Exception):
    """Raised from the loss recorder once MAX_STEPS losses were seen."""


def main() -> None:
    framework, script, out = sys.argv[1:4]
    limit = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    sys.argv = [script, *sys.argv[5:]]  # the script's own command-line options
    losses: list[float] = []

    def record(value) -> None:
        losses.append(float(value))
        if len(losses) >= limit:
            raise Enough()

    import numpy as np
    np.random.seed(0)
    if framework == "torch":
        import torch
        torch.manual_seed(0)
        backward = torch.Tensor.backward

        def recording_backward(self, *args, **kwargs):
            if self.numel() == 1:
                record(self.detach().item())
            return backward(self, *args, **kwargs)

        torch.Tensor.backward = recording_backward
    else:
        import mindspore
        mindspore.set_seed(0)
        value_and_grad = mindspore.value_and_grad

        def recording_value_and_grad(fn, *args, **kwargs):
            inner = value_and_grad(fn, *args, **kwargs)

            def run(*a, **k):
                result = inner(*a, **k)
                value = result[0][0] if kwargs.get("has_aux") else result[0]
                record(value.asnumpy().item() if hasattr(value, "asnumpy") else value)
                return result
            return run

        mindspore.value_and_grad = recording_value_and_grad
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    status = "finished"
    try:
        runpy.run_path(script, run_name="__main__")
    except Enough:
        status = f"stopped after {limit} steps"
    except BaseException as exc:  # noqa: BLE001 - the failure is the result
        status = "error: " + "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()[-1][:400]
        tb = traceback.format_exc().splitlines()
        status += " | " + " / ".join(line.strip() for line in tb[-6:-1])[:600]
    with open(out, "w") as f:
        json.dump({"losses": losses, "status": status}, f)


if __name__ == "__main__":
    main()
