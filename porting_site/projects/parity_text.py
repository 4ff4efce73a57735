"""Words for the parity page: which tensor a headline figure measures, under which
tolerance, and what a loss curve trained (data, loss, optimizer, steps).

Everything comes from the parity report the run stored (analysis/parity/README.md);
a key the report lacks is left out of the sentence, never guessed.
"""
from __future__ import annotations


def _g(value) -> str:
    return f"{value:.3g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


def _shape(shape) -> str:
    return "×".join(str(n) for n in shape) if isinstance(shape, (list, tuple)) and shape else ""


def tolerance_text(row: dict) -> str:
    """"atol 1e-05 + rtol 0.0001 × |PyTorch value| (default)" from a report row."""
    tol = row.get("tolerance") if isinstance(row.get("tolerance"), dict) else {}
    atol, rtol = tol.get("atol", row.get("atol")), tol.get("rtol", row.get("rtol"))
    parts = []
    if atol is not None:
        parts.append(f"atol {_g(atol)}")
    if rtol is not None:
        parts.append(f"rtol {_g(rtol)} × |PyTorch value|")
    if not parts:
        return ""
    source = tol.get("source")
    where = {"manifest": "from porting.toml", "op-kind": "for this kind of operation", "default": "default"}
    note = where.get(source, source) if source else ""
    if tol.get("pattern"):
        note = f"porting.toml, {tol['pattern']}"
    return " + ".join(parts) + (f" ({note})" if note else "")


def headline(result, details: dict) -> dict:
    """The tensor the headline figures measure and its tolerance."""
    metrics = result.metrics if isinstance(result.metrics, dict) else {}
    outputs = [o for o in details.get("outputs") or [] if isinstance(o, dict)]
    shape = _shape(metrics.get("shape_torch"))
    index = outputs[0].get("index") if len(outputs) == 1 else None
    tensor = f"output of {result.name}.forward" + (f" #{index}" if len(outputs) > 1 and index is not None else "")
    if len(outputs) > 1:
        tensor = f"the {len(outputs)} outputs of {result.name}.forward (worst one)"
    inputs = details.get("inputs") if isinstance(details.get("inputs"), list) else []
    shapes = ", ".join(_shape(i.get("shape")) for i in inputs if isinstance(i, dict) and i.get("shape"))
    return {
        "tensor": tensor, "shape": shape, "mode": "eval mode",
        "inputs": shapes, "input_source": details.get("input_source") or "",
        "tolerance": tolerance_text(metrics), "label": metrics.get("label") or "",
    }


def _optimizer(opt) -> str:
    if not isinstance(opt, dict):
        return str(opt) if opt else ""
    torch_side = opt.get("torch") if isinstance(opt.get("torch"), dict) else {}
    name = torch_side.get("name") or opt.get("name") or ""
    settings = ", ".join(f"{k} {_g(v)}" for k, v in torch_side.items() if k != "name" and v is not None)
    text = name + (f" ({settings})" if settings else "")
    if opt.get("mindspore_class"):
        text += f" → {opt['mindspore_class']}"
    if opt.get("scheduler"):
        text += f", scheduler {opt['scheduler'] if isinstance(opt['scheduler'], str) else opt['scheduler'].get('name', '')}"
    return text


def _batches(batches) -> str:
    if not isinstance(batches, dict):
        return ""
    count = batches.get("count")
    source = batches.get("source")
    if source == "dataset":
        what = f"batches of the repository's dataset {batches.get('class') or ''}".rstrip()
        if batches.get("batch_size"):
            what += f" (batch size {batches['batch_size']})"
    else:
        specs = [s for s in batches.get("spec") or [] if isinstance(s, dict)]
        shapes = ", ".join(f"{_shape(s.get('shape'))} {s.get('dtype', '')}".strip() for s in specs)
        what = "random batches" + (f" of {shapes}" if shapes else "") + " (the same on both sides)"
    return (f"{count} " if count else "") + what


def loss_description(extra: dict, points: int) -> list[tuple[str, str]]:
    """(label, text) rows saying what the loss curves trained: steps, data, loss, optimizer, tolerance."""
    rows = []
    steps = extra.get("steps") or points
    if steps:
        rows.append(("Steps", str(steps)))
    data = _batches(extra.get("batches"))
    if data:
        cycle = ""
        count = (extra.get("batches") or {}).get("count") if isinstance(extra.get("batches"), dict) else None
        if count and steps and count < steps:
            cycle = f"; the {count} batches repeat in turn"
        rows.append(("Data", data + cycle))
    if extra.get("loss"):
        loss = extra["loss"]
        rows.append(("Loss", loss if isinstance(loss, str) else loss.get("name", str(loss))))
    opt = _optimizer(extra.get("optimizer"))
    if opt:
        rows.append(("Optimizer", opt))
    if extra.get("rtol") is not None:
        rows.append(("Tolerance", f"relative difference of the losses at most {_g(extra['rtol'])} per step"))
    return rows
