"""A finished run with realistic stored results, built without workers.

Shapes follow what the pipeline stores: findings from the analyzer, a converted
file with its changes and unconverted items, and parity results in the form of
analysis.parity's report (layers with stats and tolerances, config mismatches,
gradients, state after a step) with a loss curve. The parity result is a
failing one (BatchNorm momentum not inverted), so every figure has something
to show.
"""
from __future__ import annotations

import math
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from porting_site.projects import storage
from porting_site.projects.models import (
    ConvertedFile,
    Finding,
    LossCurve,
    ParityResult,
    Run,
    SourceFile,
    Stage,
)
from porting_site.projects.services import run_create
from tests import factories
from tests.conftest import SAMPLE_REPO

LENET = "pytorch_sample/models/lenet.py"
LENET_TEXT = (SAMPLE_REPO / "models" / "lenet.py").read_text()

CONVERTED_LENET = '''"""LeNet-5 style classifier for 1x32x32 images."""
import mindspore
import mindspore.nn as nn
import mindspore.ops as ops


class LeNet(nn.Cell):
    def __init__(self, num_classes=10):
        super().__init__()
        # two conv blocks; padding=0 like the original paper
        self.conv1 = nn.Conv2d(1, 6, kernel_size=5, pad_mode="valid", has_bias=True)
        self.bn1 = nn.BatchNorm2d(6, momentum=0.1)  # MIGRATE(MS-BN-MOMENTUM): momentum means 1 - m in MindSpore
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid", has_bias=True)
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.dropout = nn.Dropout(p=0.5)
        self.fc3 = nn.Dense(84, num_classes)
        self.relu = nn.ReLU()

    def construct(self, x):
        x = self.pool(self.relu(self.bn1(self.conv1(x))))
        x = self.pool(ops.relu(self.conv2(x)))
        x = x.view(x.shape[0], -1)  # flatten all but the batch axis
        x = self.relu(self.fc1(x))
        x = self.dropout(self.relu(self.fc2(x)))
        return self.fc3(x)
'''

FINDINGS = [
    # line, rule, severity, status, torch api, mindspore api, message
    (2, "MS-API-MAPPED", "info", "converted", "torch", "mindspore", "torch maps to mindspore"),
    (11, "MS-API-DIFF", "warning", "review", "torch.nn.Conv2d", "mindspore.nn.Conv2d",
     "torch.nn.Conv2d maps to mindspore.nn.Conv2d with documented differences: padding, bias"),
    (12, "MS-BN-MOMENTUM", "error", "manual", "torch.nn.BatchNorm2d", "mindspore.nn.BatchNorm2d",
     "BatchNorm momentum is the weight of the old statistics in MindSpore: pass 1 - 0.1 = 0.9"),
    (15, "MS-API-DIFF", "warning", "converted", "torch.nn.Linear", "mindspore.nn.Dense",
     "torch.nn.Linear maps to mindspore.nn.Dense with documented differences"),
    (17, "MS-DROPOUT-P", "warning", "review", "torch.nn.Dropout", "mindspore.nn.Dropout",
     "Dropout takes the drop probability p in recent MindSpore versions; older ones take keep_prob"),
]


def _layer(path, call, ttype, mtype, line, max_abs, status, atol=1e-5, rtol=1e-4, scale=3.0, label="drift"):
    return {
        "path": path, "call": call, "torch_type": ttype, "mindspore_type": mtype, "mindspore_path": path,
        "file": LENET, "line": line, "status": status, "label": label, "max_abs": max_abs,
        "max_rel": max_abs / scale, "mean_abs": max_abs / 4, "cosine": 1 - max_abs, "atol": atol, "rtol": rtol,
        "stats_torch": {"min": -scale, "max": scale, "mean": 0.01, "std": 1.0, "norm": 12.0},
        "stats_mindspore": {"min": -scale, "max": scale, "mean": 0.01, "std": 1.0, "norm": 12.0},
    }


def _lenet_rows(bn_err: float, failing: bool) -> list[tuple]:
    """(path, call, torch type, MindSpore type, line, max abs, status) of LeNet's layers."""
    return [
        ("conv1", 0, "Conv2d", "Conv2d", 11, 3e-7, "pass"),
        ("bn1", 0, "BatchNorm2d", "BatchNorm2d", 12, bn_err, "fail" if failing else "pass"),
        ("relu", 0, "ReLU", "ReLU", 19, bn_err * 0.8, "propagated" if failing else "pass"),
        ("pool", 0, "MaxPool2d", "MaxPool2d", 13, bn_err * 0.8, "propagated" if failing else "pass"),
        ("conv2", 0, "Conv2d", "Conv2d", 14, bn_err * 1.4, "propagated" if failing else "pass"),
        ("pool", 1, "MaxPool2d", "MaxPool2d", 13, bn_err * 1.2, "propagated" if failing else "pass"),
        ("fc1", 0, "Linear", "Dense", 15, bn_err * 2, "propagated" if failing else "pass"),
        ("relu", 1, "ReLU", "ReLU", 19, bn_err * 1.5, "propagated" if failing else "pass"),
        ("fc2", 0, "Linear", "Dense", 16, bn_err * 1.1, "propagated" if failing else "pass"),
        ("dropout", 0, "Dropout", "Dropout", 17, 0.0, "pass"),
        ("fc3", 0, "Linear", "Dense", 18, bn_err * 0.9, "propagated" if failing else "pass"),
    ]


def parity_entry(failing: bool = True) -> dict:
    """One entry point as analysis.parity reports it (and the pipeline stores it)."""
    bn_err = 0.21 if failing else 2e-7
    # A momentum error is invisible in eval mode (same running statistics) and shows in train mode.
    layers = [_layer(path, call, t, m, line, min(err, 5e-7), "pass") for path, call, t, m, line, err, _ in
              _lenet_rows(bn_err, failing)]
    layers_train = [_layer(path, call, t, m, line, err, status) for path, call, t, m, line, err, status in
                    _lenet_rows(bn_err, failing)]
    gradients = [
        {"name": f"{layer}.{kind}", "mindspore_name": f"{layer}.{ms}", "layer": layer, "file": LENET, "line": line,
         "max_abs": err, "status": "fail" if err > 1e-3 else "pass", "atol": 1e-4, "rtol": 1e-3,
         "stats_torch": {"min": -0.5, "max": 0.5}}
        for layer, line, kind, ms, err in [
            ("conv1", 11, "weight", "weight", 0.03 if failing else 2e-6), ("conv1", 11, "bias", "bias", 1e-6),
            ("bn1", 12, "weight", "gamma", 0.02 if failing else 1e-6), ("bn1", 12, "bias", "beta", 4e-7),
            ("fc1", 15, "weight", "weight", 3e-6), ("fc3", 18, "weight", "weight", 1e-7),
        ]
    ]
    state = [
        {"name": "bn1.running_mean", "mindspore_name": "bn1.moving_mean", "layer": "bn1", "kind": "buffer",
         "file": LENET, "line": 12, "max_abs": 0.37 if failing else 0.0, "status": "fail" if failing else "pass"},
        {"name": "fc1.weight", "mindspore_name": "fc1.weight", "layer": "fc1", "kind": "parameter",
         "file": LENET, "line": 15, "max_abs": 1e-8, "status": "pass"},
    ]
    torch_losses = [2.3 * math.exp(-0.08 * step) + 0.1 for step in range(20)]
    ms_losses = [v * (1 + (0.02 * step if failing else 1e-6)) for step, v in enumerate(torch_losses)]
    return {
        "name": "LeNet", "module": "pytorch_sample.models.lenet", "class": "LeNet",
        "status": "fail" if failing else "pass",
        "reason": "train forward differs from layer bn1; state after one step differs: bn1.running_mean; "
                  "configuration differs: bn1.momentum" if failing else "",
        "first_diverging_layer": "bn1" if failing else None,
        "config_mismatches": [{"layer": "bn1", "field": "momentum", "torch": 0.1, "mindspore": 0.1, "file": LENET,
                               "line": 12, "message": "BatchNorm2d 'bn1': running statistics update with momentum "
                                                      "0.1 in MindSpore against 0.1 in PyTorch; pass momentum=0.9"}]
        if failing else [],
        "layers": layers,
        "layers_train": layers_train,
        "metrics": {"max_abs": bn_err * 0.9, "max_rel": bn_err / 3, "mean_abs": bn_err / 5,
                    "cosine": 0.9987 if failing else 1.0, "status": "fail" if failing else "pass"},
        "gradients": gradients,
        "state_after_step": state,
        "output_sample": {"torch": [math.sin(i / 7) for i in range(200)],
                          "mindspore": [math.sin(i / 7) + (bn_err * math.cos(i) / 3) for i in range(200)]},
        "abs_error_histogram": {"edges": [i * bn_err / 10 for i in range(11)],
                                "counts": [40, 31, 22, 15, 9, 6, 4, 2, 1, 1]},
        "loss_curve": {"torch": torch_losses, "mindspore": ms_losses},
        "device": "cpu",
    }


def store_parity(run: Run, entry: dict) -> ParityResult:
    """Store an entry point the way services.run_parity does."""
    result = ParityResult.objects.create(
        run=run, name=entry["name"], module=entry["module"], status=entry["status"], reason=entry["reason"],
        device=entry["device"], first_diverging_layer=entry["first_diverging_layer"] or "",
        metrics=entry["metrics"], config_mismatches=entry["config_mismatches"], layers=entry["layers"],
        details={k: v for k, v in entry.items()
                 if k not in {"name", "module", "status", "reason", "metrics", "config_mismatches", "layers",
                              "loss_curve", "first_diverging_layer", "device"}},
    )
    curve = entry.get("loss_curve") or {}
    if curve:
        LossCurve.objects.create(parity_result=result, torch_losses=curve["torch"],
                                 mindspore_losses=curve["mindspore"])
    return result


def finished_run(project, user=None, *, failing: bool = True, findings=FINDINGS) -> Run:
    """A done run of the sample's LeNet file with findings, conversion and parity."""
    archive = factories.upload("sample.zip", factories.zip_of({LENET: LENET_TEXT.encode()}))
    run = run_create(project=project, archive=archive, user=user, enqueue=False)
    src = storage.source_dir(run.pk) / LENET
    src.parent.mkdir(parents=True, exist_ok=True)
    src.write_text(LENET_TEXT)
    counts = {s: sum(1 for f in findings if f[2] == s) for s in ("error", "warning", "info")}
    source = SourceFile.objects.create(run=run, path=LENET, sha256="a" * 64, lines=LENET_TEXT.count("\n"),
                                       errors=counts["error"], warnings=counts["warning"], infos=counts["info"])
    Finding.objects.bulk_create(
        Finding(run=run, file=source, line=line, column=4, rule_id=rule, severity=sev, status=status,
                torch_api=tapi, mindspore_api=mapi, message=msg)
        for line, rule, sev, status, tapi, mapi, msg in findings
    )
    ConvertedFile.objects.create(
        run=run, file=source, text=CONVERTED_LENET, diff="--- a\n+++ b\n",
        changes=[{"line": 7, "rule_id": "MS-CELL", "torch_api": "torch.nn.Module", "mindspore_api": "mindspore.nn.Cell",
                  "description": "Module becomes Cell"}],
        unconverted=[{"line": 12, "rule_id": "MS-BN-MOMENTUM", "torch_api": "torch.nn.BatchNorm2d",
                      "action": "pass momentum=0.9 (MindSpore weighs the old statistics)"}],
    )
    store_parity(run, parity_entry(failing=failing))
    now = timezone.now()
    Stage.objects.filter(run=run).update(status=Stage.Status.DONE, done=1, total=1, started_at=now, finished_at=now)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.DONE, started_at=now, finished_at=now)
    run.refresh_from_db()
    return run


def use_tmp_storage(settings_, tmp_path: Path) -> None:
    settings_.MEDIA_ROOT = tmp_path / "media"
    settings_.PORTING_RUNS_DIR = tmp_path / "runs"
    assert settings.PORTING_RUNS_DIR == tmp_path / "runs"
