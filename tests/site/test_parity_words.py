"""The parity page names the tensor its headline figures measure and the tolerance,
and says what the loss curves trained: data, loss, optimizer, steps (issue #19)."""
from __future__ import annotations

import pytest
from django.urls import reverse

from tests import factories
from tests.site import data

pytestmark = pytest.mark.django_db

# Shapes as analysis.parity's report stores them (see analysis/parity/README.md).
METRICS = {"max_abs": 2.6e-08, "max_rel": 8.2e-07, "mean_abs": 5.1e-09, "cosine": 1.0, "status": "pass",
           "shape_torch": [4, 10], "tolerance": {"atol": 1e-05, "rtol": 0.0001, "source": "default"}}
LOSS = {"loss": "mse", "rtol": 0.001, "steps": 20, "status": "pass",
        "batches": {"spec": [{"dtype": "float32", "shape": [4, 1, 32, 32]}], "count": 4, "source": "random"},
        "optimizer": {"torch": {"lr": 0.01, "name": "SGD"}, "mindspore_class": "mindspore.experimental.optim.SGD"}}


def test_parity_page_names_tensor_tolerance_and_training_setup(client, settings, tmp_path):
    data.use_tmp_storage(settings, tmp_path)
    team, alice = factories.team_with_member("Vision", "alice")
    run = data.finished_run(factories.project(team, "Detector"), alice, failing=False)
    result = run.parity_results.get()
    result.metrics = METRICS
    result.details = dict(result.details, outputs=[dict(METRICS, index=0)], loss_curve=LOSS,
                          inputs=[{"dtype": "float32", "shape": [4, 1, 32, 32]}], input_source="from the manifest")
    result.save()
    client.login(username="alice", password=factories.PASSWORD)
    page = client.get(reverse("projects:parity", args=[run.pk, result.pk])).content.decode()
    what = page[page.index('id="headline-what"'):page.index('<div class="grid stats">')]
    assert "output of LeNet.forward" in what and "4×10" in what and "4×1×32×32" in what
    assert "atol 1e-05 + rtol 0.0001 × |PyTorch value| (default)" in what
    loss = page[page.index('id="loss-what"'):]
    loss = loss[:loss.index("</dl>")]
    for expected in ("<dd>20</dd>", "4 random batches of 4×1×32×32 float32", "the 4 batches repeat in turn",
                     "<dd>mse</dd>", "SGD (lr 0.01) → mindspore.experimental.optim.SGD", "at most 0.001 per step"):
        assert expected in loss, expected
