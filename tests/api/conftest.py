"""API fixtures: two teams, a finished run with findings, converted files and
parity results (rows and the run's tree on disk, as the pipeline leaves them)."""
from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from porting_site.accounts.models import Membership
from porting_site.accounts.services import membership_add
from porting_site.api.tokens import token_create
from porting_site.projects import storage
from porting_site.projects.models import ConvertedFile, Finding, LossCurve, ParityResult, Run, SourceFile, Stage
from porting_site.projects.services import run_create
from tests import factories

NET_V1 = """import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.3)
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(self.drop(x)).cuda()
"""


def make_run(project, user, files: dict[str, tuple[str, list[dict]]], parity: list[dict] = (),
             status: str = Run.Status.DONE) -> Run:
    """A run as the pipeline leaves it: rows, the source tree and the converted tree."""
    archive = factories.upload("repo.zip", factories.zip_of({"repo/a.py": b"x = 1\n"}))
    run = run_create(project=project, archive=archive, user=user, enqueue=False)
    src, dst = storage.source_dir(run.pk), storage.converted_dir(run.pk)
    for rel, (text, findings) in files.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text)
        counts = {s: sum(1 for f in findings if f["severity"] == s) for s in ("error", "warning", "info")}
        source = SourceFile.objects.create(run=run, path=rel, sha256="0" * 64, lines=text.count("\n"),
                                           errors=counts["error"], warnings=counts["warning"], infos=counts["info"])
        for f in findings:
            Finding.objects.create(run=run, file=source, column=4, message=f"{f['rule_id']} here", **f)
        converted = text.replace("nn.Module", "nn.Cell").replace("forward", "construct")
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        (dst / rel).write_text(converted)
        ConvertedFile.objects.create(run=run, file=source, text=converted, diff=f"--- a/{rel}\n+++ b/{rel}\n",
                                     changes=[{"line": 5, "what": "Module -> Cell"}], unconverted=[])
    for entry in parity:
        curve = entry.pop("curve", None)
        result = ParityResult.objects.create(run=run, **entry)
        if curve:
            LossCurve.objects.create(parity_result=result, torch_losses=curve[0], mindspore_losses=curve[1])
    Stage.objects.filter(run=run).update(status=Stage.Status.DONE, done=1, total=1)
    Run.objects.filter(pk=run.pk).update(status=status, finished_at=timezone.now(), started_at=timezone.now())
    run.refresh_from_db()
    return run


FINDINGS_V1 = [
    dict(line=9, rule_id="MS-DROPOUT-P", severity="warning", torch_api="torch.nn.Dropout",
         mindspore_api="mindspore.nn.Dropout"),
    dict(line=10, rule_id="MS-API-MAPPED", severity="info", torch_api="torch.nn.Linear",
         mindspore_api="mindspore.nn.Dense"),
    dict(line=13, rule_id="MS-DEVICE-CUDA", severity="error", torch_api="torch.Tensor.cuda"),
]
PARITY_PASS = [
    dict(name="Net", module="pkg.net", status="pass", metrics={"max_abs": 1e-7, "mean_abs": 1e-8},
         curve=([1.0, 0.8, 0.6], [1.0, 0.8, 0.61])),
    dict(name="Head", module="pkg.head", status="pass", metrics={"max_abs": 2e-7}),
]


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # PBKDF2's deliberate slowness costs seconds per user on shared CPUs; tests do not need it.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@dataclass
class World:
    team: object
    project: object
    admin: object
    member: object
    outsider: object
    run: Run
    tokens: dict


@pytest.fixture
def world(db, settings, tmp_path) -> World:
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PORTING_RUNS_DIR = tmp_path / "runs"
    team, admin = factories.team_with_member("Team A", "alice")
    member = factories.user("bob")
    membership_add(team=team, user=member, role=Membership.Role.MEMBER)
    _, outsider = factories.team_with_member("Team B", "mallory")
    project = factories.project(team, "Detector")
    run = make_run(project, admin, {"pkg/net.py": (NET_V1, [dict(f) for f in FINDINGS_V1]),
                                    "pkg/clean.py": ("x = 1\n", [])},
                   parity=[dict(p) for p in PARITY_PASS])
    keys = {user.username: token_create(user=user, name="ci")[1] for user in (admin, member, outsider)}
    return World(team, project, admin, member, outsider, run, keys)


def client_for(world: World | None, username: str | None) -> APIClient:
    client = APIClient()
    if username:
        client.credentials(HTTP_AUTHORIZATION=f"Token {world.tokens[username]}")
    return client
