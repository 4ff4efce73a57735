"""A zipped folder uploaded through the site (real Celery worker, broker and
database): its code sits in one top-level folder, its training script imports
torchvision (which does not import beside this torch), parses arguments and
trains at import time, and its model takes constructor arguments written at
the call site. Parity still finds, builds, checks and passes it."""
from __future__ import annotations

import textwrap

import pytest
from django.urls import reverse

from porting_site.projects.models import ParityResult, Run
from tests import factories
from tests.flows.test_pipeline_e2e import wait_for_run

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SCRIPT = textwrap.dedent('''
    import argparse

    import torch
    import torch.nn as nn
    import torchvision
    import torchvision.transforms as transforms

    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--data", required=True)
    args = parser.parse_args()

    input_size = 64
    num_classes = 5
    train_dataset = torchvision.datasets.MNIST(root=args.data, train=True, transform=transforms.ToTensor(),
                                               download=True)
    train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=100, shuffle=True)


    class Classifier(nn.Module):
        def __init__(self, input_size, hidden_size, num_classes, dropout):
            super().__init__()
            self.fc1 = nn.Linear(input_size, hidden_size)
            self.bn = nn.BatchNorm1d(hidden_size)
            self.drop = nn.Dropout(dropout)
            self.fc2 = nn.Linear(hidden_size, num_classes)

        def forward(self, x):
            return self.fc2(self.drop(torch.relu(self.bn(self.fc1(x)))))


    model = Classifier(input_size, 32, num_classes, 0.25)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        for images, labels in train_loader:
            loss = nn.functional.cross_entropy(model(images.reshape(-1, input_size)), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    torch.save(model.state_dict(), "model.ckpt")
''').lstrip()


def test_zipped_folder_with_a_real_script_is_checked_and_passes(client, live_worker):
    team, _ = factories.team_with_member("Zip", "zoe")
    project = factories.project(team, "Zipped")
    assert client.login(username="zoe", password=factories.PASSWORD)
    archive = factories.upload("classifier.zip", factories.zip_of({"classifier/main.py": SCRIPT.encode()}))
    response = client.post(reverse("projects:detail", args=[team.slug, project.slug]),
                           {"archive": archive, "target": "classic", "ms_version": "2.4", "device": "cpu"})
    assert response.status_code == 302, response.content[:2000]
    run = wait_for_run(Run.objects.get(project=project).pk, timeout=900)
    assert run.status == Run.Status.DONE, run.error
    (result,) = ParityResult.objects.filter(run=run)
    assert result.name == "Classifier"
    assert result.status == ParityResult.Status.PASS, result.reason
    assert "KeyError" not in result.reason
    assert "torchvision" in result.details["load_notes"]["stubbed_modules"]
    call_line = SCRIPT.splitlines().index("model = Classifier(input_size, 32, num_classes, 0.25)") + 1
    assert result.details["arguments_from"].endswith(f"main.py:{call_line}")  # whether or not the folder was stripped
    assert any(row["layer"] == "drop" for row in result.details["random_parts_off"])
