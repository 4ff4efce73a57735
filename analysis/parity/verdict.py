"""Parent side of a parity check: judge what the box measured.

The box sends data (`measure.py`): pairs of tensors as they are taken, then
one result whose rows point at those pairs. Everything that decides an
outcome happens here, in the worker, from that data and from the parent's
own job (its manifest's tolerances): each comparison's metrics and status,
which layer is at fault, the loss curve's band, the entry's status and
reason. A status, a reason or a first diverging layer written by the child
is never read: those keys are dropped from what it sent, and a result that
does not follow the schema is an error, never a pass.

The child may still declare an entry "skipped", "error" or "torch_fail"
(its model would not import or build; the original PyTorch forward fails on
the given inputs): that can only lower a verdict, never make one a pass.
"""
from __future__ import annotations

import math

import numpy as np

from . import tables
from .compare import Tolerances, metrics, output_figures, spec_text, summary

ROOT_LAYER = "(root)"  # how the report names the entry module's own forward
MAX_PAIRS = 100_000  # per entry: far above any real model's layer calls, gradients and state
CHILD_OUTCOMES = ("skipped", "error", "torch_fail")
JUDGED_KEYS = ("status", "reason", "first_diverging_layer", "metrics", "metrics_train")
REQUIRED = {"inputs": list, "layers": list, "outputs": list, "weights": dict, "config_mismatches": list}
ROLES = {"output", "layer", "input", "gradient", "input_gradient", "state"}


class SchemaError(ValueError):
    """What the box sent does not have the shape of a measurement."""


class _Side:
    """One side of a pair, as compare.metrics reads a Capture."""

    __slots__ = ("shape", "dtype", "stats", "values", "sampled")

    def __init__(self, meta, values: np.ndarray) -> None:
        if not isinstance(meta, dict):
            raise SchemaError("a pair side without its description")
        shape = meta.get("shape")
        if not isinstance(shape, list) or not all(type(d) is int and d >= 0 for d in shape):
            raise SchemaError("a pair with a malformed shape")
        self.shape = tuple(shape)
        self.dtype = str(meta.get("dtype", ""))[:32]
        self.sampled = meta.get("sampled") is True
        if values.dtype.kind != "f" or values.ndim != 1:
            raise SchemaError("pair values must be flat floating-point arrays")
        count = int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1
        if not self.sampled and values.size != count:
            raise SchemaError("a whole tensor whose values do not match its shape")
        self.values = values
        # Whole tensors: the statistics are recomputed here; a sample's come from the box (data, shown only).
        self.stats = summary(values.astype(np.float64)) if not self.sampled else _numbers(meta.get("stats"))


def _numbers(stats) -> dict:
    if not isinstance(stats, dict):
        return {}
    return {str(k)[:16]: v for k, v in list(stats.items())[:8] if isinstance(v, (int, float)) or v is None}


class Judge:
    """Judges one entry: pairs as they arrive (their arrays dropped once
    measured), then the result."""

    def __init__(self, job: dict) -> None:
        self.tols = Tolerances(job.get("tolerance"), job.get("layer_tolerance"))
        self.loss_rtol = float((job.get("tolerance") or {}).get("loss_rtol", tables.LOSS_CURVE_RTOL))
        self.rows: dict[int, dict] = {}
        self.figures: dict = {}
        self.error = ""

    def pair(self, record: dict, arrays: dict) -> None:
        if self.error:
            return
        try:
            self._pair(record, arrays)
        except Exception as exc:  # hostile data: whatever cannot be judged makes the entry an error
            self.error = f"{type(exc).__name__}: {str(exc)[:300]}"

    def _pair(self, record: dict, arrays: dict) -> None:
        number = record.get("id")
        if type(number) is not int or number in self.rows or len(self.rows) >= MAX_PAIRS:
            raise SchemaError("a pair with a missing, repeated or excess number")
        role = record.get("role")
        if role not in ROLES or set(arrays) != {"torch", "mindspore"}:
            raise SchemaError("a pair of an unknown role or without both tensors")
        reference = _Side(record.get("torch"), arrays["torch"])
        candidate = _Side(record.get("mindspore"), arrays["mindspore"])
        noise = record.get("noise")
        noise = float(noise) if isinstance(noise, (int, float)) and math.isfinite(noise) and noise >= 0 else None
        layer = record.get("layer") if isinstance(record.get("layer"), str) else None
        kind = str(record.get("kind") or "")[:200]
        atol, rtol, used = self._tolerance(role, kind, reference.dtype, layer)
        # The noise band catches what an op's generic floor hides; a tolerance a person set in the
        # manifest is the difference they accept, so it is not second-guessed by the band.
        row = metrics(reference, candidate, atol, rtol, noise, band_check=used.get("source") != "manifest")
        row["tolerance"] = used
        self.rows[number] = row
        if record.get("figures") is True and not self.figures:
            self.figures = output_figures(reference.values, candidate.values)

    def _tolerance(self, role: str, kind: str, dtype: str, layer: str | None):
        if role == "layer":
            return self.tols.pick(kind, dtype, layer)
        if role in ("input", "output"):
            return self.tols.pick(role, dtype)
        if role == "input_gradient":
            return self.tols.pick("input", "float32", None, tables.GRADIENT_FACTOR)
        return self.tols.pick(kind, dtype, layer, tables.GRADIENT_FACTOR)  # gradient, state

    def judge(self, sent) -> dict:
        """The entry's result from the child's result record (or an error saying why not)."""
        if self.error:
            return {"status": "error", "reason": f"the box's measurements were refused: {self.error}"}
        if not isinstance(sent, dict):
            return {"status": "error", "reason": "the box sent no result"}
        result = {k: v for k, v in sent.items() if k not in JUDGED_KEYS}
        declared = sent.get("status")
        if declared in CHILD_OUTCOMES and not any(k in sent for k in ("outputs", "layers")):
            result.update(status=declared, reason=str(sent.get("reason", ""))[:20000])
            return result
        try:
            self._fill(result)
        except (SchemaError, KeyError, TypeError, ValueError, AttributeError) as exc:
            return {"status": "error", "reason": f"the box's result did not follow the measurement schema "
                                                 f"({type(exc).__name__}: {str(exc)[:200]})",
                    "inputs": sent.get("inputs") if isinstance(sent.get("inputs"), list) else None}
        return result

    def resolve_rows(self, rows: list) -> list[dict]:
        """Rows that point at pairs, with those pairs' metrics and statuses."""
        return [self._resolve(row) for row in rows]

    # -- the result, judged --------------------------------------------------------------------------------------

    def _resolve(self, row: dict) -> dict:
        """A row pointing at a pair, with that pair's metrics (status included)."""
        if not isinstance(row, dict):
            raise SchemaError("a row that is not an object")
        clean = {k: v for k, v in row.items() if k not in ("pair", "status", "label")}
        number = row.get("pair")
        if number not in self.rows:
            raise SchemaError("a row pointing at no measured pair")
        clean.update(self.rows[number])
        return clean

    def _outputs(self, rows: list) -> list[dict]:
        out = []
        for row in rows:
            if not isinstance(row, dict):
                raise SchemaError("an output row that is not an object")
            if row.get("crash"):
                out.append({"index": row.get("index", 0), "status": "fail", "label": str(row["crash"])[:400]})
            elif row.get("missing") == "mindspore":
                out.append({"index": row.get("index"), "status": "fail", "label": "missing in MindSpore output"})
            elif row.get("missing") == "torch":
                out.append({"index": row.get("index"), "status": "fail", "label": "extra MindSpore output"})
            else:
                out.append(self._resolve(row))
        return out

    def _layers(self, rows: list) -> tuple[list[dict], str | None]:
        """Layer calls in PyTorch's order with statuses, and the first layer at fault."""
        layers, first = [], None
        for sent in rows:
            if not isinstance(sent, dict) or not isinstance(sent.get("path"), str):
                raise SchemaError("a layer row without a path")
            row = {k: v for k, v in sent.items() if k not in ("out", "in", "status", "label", "missing", "no_tensor")}
            path = row["path"]
            if sent.get("missing"):
                row.update(status="missing", label="not called (this many times) in MindSpore")
            elif sent.get("no_tensor"):
                row.update(status="skipped", label="no tensor output")
            else:
                out = self._resolve({"pair": sent.get("out")})
                status = out.pop("status")
                if "in" in sent:
                    inm = self._resolve({"pair": sent.get("in")})
                    row["input_max_abs"] = inm.get("max_abs")
                    if status == "fail" and inm["status"] != "pass":
                        status = "propagated"  # its input already differed: not this layer's fault
                row.update(out, status=status)
            if row["status"] == "fail" and any(
                    l["status"] == "fail" and (not path or l["path"].startswith(path + ".")) for l in layers):
                # A container (the root included) whose own child already failed inherits that fault.
                row["status"] = "propagated"
            layers.append(row)
            if row["status"] == "fail" and first is None:
                first = path or ROOT_LAYER
        return layers, first

    def _fill(self, result: dict) -> None:
        for key, kind in REQUIRED.items():
            if not isinstance(result.get(key), kind):
                raise SchemaError(f"no {key}")
        result["outputs"] = self._outputs(result["outputs"])
        result["metrics"] = headline(result["outputs"])
        result["layers"], _ = self._layers(result["layers"])
        result.update(self.figures)
        if "layers_train" in result:
            result["layers_train"], _ = self._layers(result["layers_train"])
            result["outputs_train"] = self._outputs(result.get("outputs_train") or [])
            result["metrics_train"] = headline(result.pop("outputs_train"))
        for key in ("gradients", "input_gradients", "state_after_step"):
            if key in result:
                result[key] = [self._resolve(row) for row in result[key]]
        curve = result.get("loss_curve")
        if isinstance(curve, dict):
            result["loss_curve"] = self._curve(curve)
        verdict(result)

    def _curve(self, sent: dict) -> dict:
        curve = {k: v for k, v in sent.items() if k not in ("status", "reason", "skipped")}
        if sent.get("skipped"):
            curve.update(status="skipped", reason=str(sent["skipped"])[:400])
            return curve
        t_curve, m_curve = _floats(sent.get("torch")), _floats(sent.get("mindspore"))
        r_curve = _floats(sent.get("torch_float64") or [])
        if len(t_curve) != len(m_curve) or (r_curve and len(r_curve) != len(t_curve)):
            raise SchemaError("loss curves of different lengths")
        rtol = self.loss_rtol
        rel = [abs(a - b) / max(abs(a), 1e-8) for a, b in zip(t_curve, m_curve)]
        allowed = [rtol] * len(rel)
        noise_rel, worst = [], 0.0
        for index, (a, r) in enumerate(zip(t_curve, r_curve)):
            # Round-off compounds over steps: the band at a step is the largest
            # float32-vs-float64 gap so far, times the noise factor.
            gap = abs(a - r) / max(abs(r), 1e-8)
            noise_rel.append(gap)
            worst = max(worst, gap)
            allowed[index] = max(rtol, tables.NOISE_FACTOR * worst)
        first_bad = next((i for i, (r, a) in enumerate(zip(rel, allowed)) if not r <= a), None)
        curve.update(relative_difference=rel, rtol=rtol, max_relative_difference=max(rel) if rel else 0.0,
                     first_diverging_step=first_bad, status="pass" if first_bad is None else "fail")
        if r_curve:
            curve.update(noise_relative=noise_rel, allowed_relative=allowed, noise_factor=tables.NOISE_FACTOR)
        curve["description"] = curve_description(curve)
        return curve


def _floats(values) -> list[float]:
    if not isinstance(values, list) or not all(isinstance(v, (int, float)) for v in values):
        raise SchemaError("a loss curve that is not a list of numbers")
    return [float(v) for v in values]


def headline(outputs: list[dict]) -> dict:
    if not outputs:
        return {"status": "fail", "label": "no tensor output"}
    head = dict(outputs[0])
    head["status"] = "pass" if all(o.get("status") == "pass" for o in outputs) else "fail"
    return {k: v for k, v in head.items() if k not in ("index",)}


def curve_description(curve: dict) -> str:
    """One sentence for the page: which data, loss, optimizer, how many steps."""
    batches, opt = curve.get("batches") or {}, (curve.get("optimizer") or {}).get("torch") or {}
    data = (f"{batches.get('count')} batches of {batches.get('batch_size')} from {batches.get('class')}"
            if batches.get("source") == "dataset" else f"{batches.get('count')} random batches of shape "
            f"{', '.join(spec_text(s) for s in batches.get('spec') or [] if isinstance(s, dict))}")
    opt_text = str(opt.get("name", "SGD")) + "(" + ", ".join(f"{k}={v}" for k, v in opt.items() if k != "name") + ")"
    sched = (curve.get("optimizer") or {}).get("scheduler")
    sched_text = f", {sched.get('name')} schedule" if isinstance(sched, dict) else ""
    return (f"{curve.get('steps')} {opt_text} steps{sched_text} on {data}, {curve.get('loss')} loss against "
            f"{batches.get('targets', 'targets')}; train mode with dropout off")


def verdict(result: dict) -> None:
    """Overall status, the reasons, and the first layer at fault."""
    reasons, culprits = [], []
    if result.get("crash"):
        reasons.append(str(result["crash"])[:400])
    first_eval = next((l["path"] or ROOT_LAYER for l in result.get("layers", []) if l["status"] == "fail"), None)
    if result["metrics"].get("status") == "fail" or first_eval:
        reasons.append(f"eval forward differs{f' from layer {first_eval}' if first_eval else ''}")
        culprits.append(first_eval)
    first_train = next((l["path"] or ROOT_LAYER for l in result.get("layers_train", []) if l["status"] == "fail"),
                       None)
    if result.get("metrics_train", {}).get("status") == "fail" or first_train:
        reasons.append(f"train forward differs{f' from layer {first_train}' if first_train else ''}")
        culprits.append(first_train)
    order = {path: i for i, path in enumerate(result.get("layer_order") or [])}
    bad_state = sorted((s for s in result.get("state_after_step", []) if s["status"] == "fail"),
                       key=lambda s: order.get(s.get("layer"), 1 << 30))
    bad_grads = sorted((g for g in result.get("gradients", []) if g["status"] == "fail"),
                       key=lambda g: order.get(g.get("layer"), 1 << 30))
    if bad_grads:
        reasons.append("gradients differ: " + ", ".join(str(g.get("name")) for g in bad_grads[:5]))
        # Gradients flow backwards: the deepest failing layer is the origin.
        culprits.append(bad_grads[-1].get("layer"))
    if any(g["status"] == "fail" for g in result.get("input_gradients", [])):
        reasons.append("input gradient differs")
    if bad_state:
        reasons.append("state after one step differs: " + ", ".join(str(s.get("name")) for s in bad_state[:5]))
        culprits.append(bad_state[0].get("layer"))
    unmatched = result["weights"].get("unmatched_torch") or []
    if unmatched:
        reasons.append("weights not transferred: " + ", ".join(str(u.get("name")) for u in unmatched[:5]))
        culprits.append(unmatched[0].get("layer"))
    mismatches = result["config_mismatches"]
    if mismatches:
        reasons.append("configuration differs: " + "; ".join(f"{m.get('layer')}.{m.get('field')}"
                                                            for m in mismatches[:5]))
        culprits.append(mismatches[0].get("layer"))
    curve = result.get("loss_curve")
    if isinstance(curve, dict) and curve.get("status") == "fail":
        reasons.append(f"loss curves part at step {curve['first_diverging_step']} "
                       f"(max relative difference {curve['max_relative_difference']:.3g})")
    result["status"] = "fail" if reasons else "pass"
    result["reason"] = "; ".join(reasons)
    # A config mismatch at a layer explains numbers diverging there: prefer
    # the numeric culprit, but fall back through the list in order.
    culprits = [ROOT_LAYER if c == "" else c for c in culprits]  # tensors directly on the root module
    result["first_diverging_layer"] = next((c for c in culprits if c), None)
