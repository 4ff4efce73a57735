"""The parent's side of a parity check without a box: what the child sends is
data, judged here; statuses it writes are never read (issue 25)."""
from __future__ import annotations

import json
import math
import struct

import numpy as np
import pytest

from analysis.parity.engine import entry_timeout
from analysis.parity.verdict import Judge
from analysis.sandbox.channel import ChannelError, Reader, Writer


def _pair(judge: Judge, number: int, torch_values, ms_values, role="output", **extra) -> None:
    t, m = np.asarray(torch_values, np.float32), np.asarray(ms_values, np.float32)
    meta = lambda a: {"shape": list(a.shape), "dtype": "float32", "sampled": False, "stats": {}}  # noqa: E731
    judge.pair({"event": "pair", "id": number, "role": role, "kind": extra.get("kind", "output"),
                "layer": extra.get("layer"), "noise": None, "torch": meta(t), "mindspore": meta(m)},
               {"torch": t.reshape(-1), "mindspore": m.reshape(-1)})


def _result(**extra) -> dict:
    base = {"inputs": [{"shape": [2]}], "layers": [], "outputs": [{"index": 0, "pair": 0}],
            "weights": {"unmatched_torch": []}, "config_mismatches": []}
    base.update(extra)
    return base


def test_a_forged_status_is_dropped_and_the_data_decides():
    judge = Judge({})
    _pair(judge, 0, [1.0, 2.0], [2.0, 4.0])  # MindSpore doubles it
    judged = judge.judge(_result(status="pass", reason="", first_diverging_layer=None,
                                 metrics={"status": "pass"}))
    assert judged["status"] == "fail" and judged["metrics"]["label"] == "drift"


def test_matching_data_passes_and_layers_are_judged_here():
    judge = Judge({})
    _pair(judge, 0, [1.0, 2.0], [1.0, 2.0])
    _pair(judge, 1, [1.0], [1.5], role="layer", kind="Linear", layer="fc")
    layers = [{"path": "fc", "call": 0, "out": 1, "status": "pass"}]
    judged = judge.judge(_result(layers=layers, layer_order=["", "fc"]))
    assert judged["status"] == "fail" and judged["first_diverging_layer"] == "fc"
    assert judged["layers"][0]["status"] == "fail"


def test_tolerances_come_from_the_parents_job_not_the_child():
    strict, loose = Judge({}), Judge({"tolerance": {"atol": 1.0, "rtol": 0.0}})
    for judge in (strict, loose):
        _pair(judge, 0, [1.0], [1.5])
    assert strict.judge(_result())["status"] == "fail" and loose.judge(_result())["status"] == "pass"


@pytest.mark.parametrize("sent", [
    {"status": "pass", "reason": ""},  # a bare forged verdict
    _result(outputs=[{"index": 0, "status": "pass"}]),  # a row pointing at nothing measured
    "pass",
])
def test_results_without_measurements_are_errors(sent):
    assert Judge({}).judge(sent)["status"] == "error"


def test_a_child_may_only_lower_a_verdict():
    judged = Judge({}).judge({"status": "skipped", "reason": "constructor needs arguments"})
    assert judged["status"] == "skipped"


def test_a_failing_original_forward_is_a_child_outcome_but_pass_never_is():
    # torch_fail (the repository's own forward fails on its inputs) lowers a verdict like a skip...
    judged = Judge({}).judge({"status": "torch_fail", "reason": "the original PyTorch forward fails"})
    assert judged["status"] == "torch_fail" and "fails" in judged["reason"]
    # ...but it cannot ride on measurements to avoid them being judged, and pass stays unforgeable.
    judge = Judge({})
    _pair(judge, 0, [1.0, 2.0], [2.0, 4.0])
    assert judge.judge(_result(status="torch_fail"))["status"] == "fail"
    assert Judge({}).judge({"status": "pass", "reason": ""})["status"] == "error"


def test_the_judge_uses_the_noise_band_within_an_ops_floor():
    # Inside LayerNorm's loose floor, yet hundreds of float64 noise bands off: the parent fails it.
    judge = Judge({})
    t = np.linspace(-1.0, 1.0, 64, dtype=np.float32)
    m = t + np.float32(5e-5)  # under LayerNorm atol 1e-4: within its floor everywhere
    meta = {"shape": [64], "dtype": "float32", "sampled": False, "stats": {}}
    judge.pair({"event": "pair", "id": 0, "role": "output", "kind": "output", "layer": None, "noise": 1e-8,
                "torch": meta, "mindspore": meta}, {"torch": t, "mindspore": m})
    judge.pair({"event": "pair", "id": 1, "role": "layer", "kind": "LayerNorm", "layer": "norm", "noise": 1e-8,
                "torch": meta, "mindspore": meta}, {"torch": t, "mindspore": m})
    judged = judge.judge(_result(layers=[{"path": "norm", "call": 0, "out": 1}], layer_order=["", "norm"]))
    layer = judged["layers"][0]
    assert layer["label"] == "beyond noise band" and layer["band_ratio"] > layer["band_limit"] == 50
    assert judged["status"] == "fail" and judged["first_diverging_layer"] == "norm"
    # A tolerance a person wrote for that layer in the manifest is what they accept: the band stays quiet.
    accepted = Judge({"layer_tolerance": {"norm": {"atol": 1e-4}}})
    accepted.pair({"event": "pair", "id": 0, "role": "layer", "kind": "LayerNorm", "layer": "norm", "noise": 1e-8,
                   "torch": meta, "mindspore": meta}, {"torch": t, "mindspore": m})
    rows, _ = accepted._layers([{"path": "norm", "call": 0, "out": 0}])
    assert rows[0]["status"] == "pass" and rows[0]["band_ratio"] > 50 and rows[0]["tolerance"]["source"] == "manifest"


def test_repeated_pair_numbers_are_refused():
    judge = Judge({})
    _pair(judge, 0, [1.0], [1.0])
    _pair(judge, 0, [1.0], [1.0])
    assert judge.judge(_result())["status"] == "error"


def test_the_loss_curve_band_is_computed_here():
    judge = Judge({})
    _pair(judge, 0, [1.0], [1.0])
    curve = {"torch": [1.0, 0.9], "mindspore": [1.0, 0.5], "steps": 2, "status": "pass"}
    judged = judge.judge(_result(loss_curve=curve))
    assert judged["loss_curve"]["status"] == "fail" and judged["loss_curve"]["first_diverging_step"] == 1


@pytest.mark.parametrize("asked, expected", [
    (None, 300.0), (60, 60.0), (1e9, 300.0), (math.inf, 300.0), (math.nan, 300.0), (-5, 300.0), (True, 300.0)])
def test_manifest_timeouts_are_validated_and_clamped(asked, expected):
    seconds, note = entry_timeout({} if asked is None else {"timeout": asked}, 300.0, None)
    assert seconds == expected
    assert bool(note) == (asked not in (None, 60))


def _frame(header: bytes, body: bytes = b"") -> bytes:
    return b"PF" + struct.pack(">IQ", len(header), len(body)) + header + body


def test_the_reader_refuses_deep_odd_or_oversized_frames():
    with pytest.raises(ChannelError, match="nested"):
        Reader().feed(_frame(b"[" * 100_000))
    with pytest.raises(ChannelError, match="dtype"):
        Reader().feed(_frame(json.dumps({"record": {}, "arrays": [{"name": "a", "dtype": "object",
                                                                     "shape": [1]}]}).encode(), b"x" * 8))
    with pytest.raises(ChannelError, match="no array accounts"):
        Reader().feed(_frame(json.dumps({"record": {}, "arrays": []}).encode(), b"extra"))
    with pytest.raises(ChannelError, match="size limit"):
        Reader().feed(b"PF" + struct.pack(">IQ", 1 << 30, 0))
    with pytest.raises(ChannelError, match="more than"):
        Reader(max_total=100).feed(_frame(b'{"record": {}, "arrays": []}') * 10)


def test_frames_round_trip_split_anywhere(tmp_path):
    import os

    r, w = os.pipe()
    Writer(w).send({"event": "pair", "id": 3}, {"torch": np.arange(5, dtype=np.float32)})
    os.close(w)
    data = os.read(r, 1 << 16)
    os.close(r)
    reader, frames = Reader(), []
    for i in range(len(data)):  # one byte at a time
        frames += reader.feed(data[i:i + 1])
    (record, arrays), = frames
    assert record == {"event": "pair", "id": 3} and arrays["torch"].tolist() == [0, 1, 2, 3, 4]
