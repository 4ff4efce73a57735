"""A small real-looking PyTorch repository, and the same repository edited.

Version 2 inserts lines above the findings of scripts/train.py and reformats
the file (one argument per line, comments, blank lines), deletes the
DataParallel line, and moves nothing else: marks must survive the first two
and close on the third.
"""
from __future__ import annotations

from django.utils import timezone

from porting_site.projects.models import Run
from porting_site.projects.services import run_analyze_batch, run_analyze_finish, run_create, run_unpack
from tests import factories
from tests.conftest import SAMPLE_REPO

LENET = (SAMPLE_REPO / "models" / "lenet.py").read_text()
MLP = (SAMPLE_REPO / "models" / "mlp.py").read_text()

TRAIN_V1 = '''import os

import torch
import torch.nn as nn

from models.lenet import LeNet

os.environ["CUDA_VISIBLE_DEVICES"] = "0"
device = torch.device("cuda:0")


def main(loader):
    model = LeNet().cuda()
    model = nn.DataParallel(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for x, y in loader:
        x = torch.as_tensor(x).to(device)
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        batch_stats.update(x)
    torch.save(model.state_dict(), "lenet.pt")


def evaluate(model, batch):
    return model(batch).argmax(1).cpu()
'''

# Lines inserted above, black-style reformatting, a comment, and the DataParallel line gone.
TRAIN_V2 = '''"""Training entry point."""
import os
import sys

import torch
import torch.nn as nn

from models.lenet import LeNet

LOG_EVERY = 10  # steps between log lines
os.environ[ "CUDA_VISIBLE_DEVICES" ] = '0'
device = torch.device('cuda:0')


def log(step, loss):
    print(step, loss, file=sys.stderr)


def main(loader):
    model = LeNet().cuda()
    opt = torch.optim.SGD(
        model.parameters(),
        lr=0.01,  # as in the paper
    )
    for step, (x, y) in enumerate(loader):
        x = torch.as_tensor(x).to(device)
        loss = nn.functional.cross_entropy(
            model(x),
            y,
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        batch_stats.update(x)
    torch.save(model.state_dict(), "lenet.pt")


def evaluate(model, batch):
    return model(batch).argmax(1).cpu()
'''


def files_v1() -> dict[str, str]:
    return {"models/__init__.py": "", "models/lenet.py": LENET, "models/mlp.py": MLP, "scripts/train.py": TRAIN_V1}


def files_v2() -> dict[str, str]:
    return dict(files_v1(), **{"scripts/train.py": TRAIN_V2})


def analysed_run(project, user, files: dict[str, str], *, done: bool = True) -> Run:
    """Upload and run the pipeline's unpack and analysis stages in this process."""
    archive = factories.upload("repo.zip", factories.zip_of({k: v.encode() for k, v in files.items()}))
    run = run_create(project=project, archive=archive, user=user, enqueue=False)
    for batch in run_unpack(run_id=run.pk):
        run_analyze_batch(run_id=run.pk, paths=batch)
    run_analyze_finish(run_id=run.pk)
    if done:
        now = timezone.now()
        Run.objects.filter(pk=run.pk).update(status=Run.Status.DONE, started_at=now, finished_at=now)
    run.refresh_from_db()
    return run
