"""torch.randn / torch.rand drawn in a loop of module code (a GAN's latent batch at every step) reuse one
random operator per shape (apis/loop_draws.py, support's randn_draw / rand_draw): ops.randn builds a
new operator, and MindSpore a new kernel, at every call. The converted scripts run in their own process:
their draws must differ from step to step, follow the distribution, repeat under mindspore.set_seed, and
cost less than ops.randn's."""
from __future__ import annotations

import ast
import re

from analysis.convert import convert_source
from tests.convert.both_frameworks import run_script as _run

DRAWS = '''
import json
import time
import numpy as np
import torch

runs = {}
for seed in (0, 0, 1):
    torch.manual_seed(seed)
    normal, uniform, wide = [], [], []
    for step in range(40):
        normal.append(torch.randn(64, 8).numpy())
        uniform.append(torch.rand((16, 4)).numpy())
        wide.append(torch.randn(64, 2, dtype=torch.float64).numpy())
    runs.setdefault(seed, []).append((np.stack(normal), np.stack(uniform), np.stack(wide)))
(normal, uniform, wide), (again, _, _) = runs[0]
other = runs[1][0][0]
started = time.process_time()
for step in range(200):
    z = torch.randn(64, 8)
per_draw = (time.process_time() - started) / 200
print("RESULT " + json.dumps({
    "repeats": bool((normal == again).all()), "other_seed_differs": bool((normal != other).any()),
    "steps_differ": int(len({row.tobytes() for row in normal})),
    "shapes_independent": bool(abs(np.corrcoef(normal[:, :, :2].ravel(), wide[:, :, :2].ravel())[0, 1]) < 0.1),
    "normal": [float(normal.mean()), float(normal.std())], "uniform": [float(uniform.min()), float(uniform.max()),
                                                                        float(uniform.mean())],
    "dtype": str(wide.dtype), "per_draw": per_draw}))
'''


def test_a_loops_draws_reuse_one_operator_and_repeat_under_the_seed(tmp_path):
    text = convert_source(DRAWS).text
    ast.parse(text)
    assert "        normal.append(randn_draw(64, 8).asnumpy())" in text
    assert "        uniform.append(rand_draw((16, 4)).asnumpy())" in text
    assert "    z = randn_draw(64, 8)" in text
    # the draws are cheap with operators run in order (without, each read waits on the launch queue)
    assert "\nsynchronous_cpu_launch()\n" in text
    out = _run(tmp_path / "ms", text)
    assert out["repeats"] and out["other_seed_differs"]
    assert out["steps_differ"] == 40  # a new batch of values at every step
    assert out["shapes_independent"]  # two shapes' operators have seeds of their own
    mean, std = out["normal"]  # 20480 standard normal values
    assert abs(mean) < 0.05 and abs(std - 1) < 0.05
    low, high, mean = out["uniform"]
    assert 0 <= low and high < 1 and abs(mean - 0.5) < 0.03
    assert out["dtype"] == "float64"
    # the same script written with ops.randn (main's conversion): each draw builds its operator
    written_as_ops = re.sub(r"(?<!def )(randn?)_draw\(", r"ops.\1(", text)
    baseline = _run(tmp_path / "ops", written_as_ops)
    assert baseline["repeats"] and baseline["steps_differ"] == 40
    # measured 0.15 ms a draw against 2 ms (one runtime thread, operators run in order)
    assert out["per_draw"] < 0.5 * baseline["per_draw"], (out["per_draw"], baseline["per_draw"])


def test_a_draw_inside_a_compiled_step_stays_ops_randn():
    # a graph would read the helper's Python state once, when it compiles: a draw the step's forward holds
    # is written ops.randn (a random operator inside the graph); the batch drawn before the step is not
    result = convert_source("import torch\nmodel = torch.nn.Linear(2, 1)\n"
                          "opt = torch.optim.SGD(model.parameters(), lr=0.1)\nfor i in range(3):\n"
                          "    x = torch.randn(4, 2)\n    h = model(x)\n"
                          "    loss = (h + torch.randn(4, 1)).pow(2).mean()\n    opt.zero_grad()\n"
                          "    loss.backward()\n    opt.step()\n"
                          "def sample():\n    for i in range(2):\n        yield torch.randn(3)\n")
    text = result.text
    # the change records say so: the draw before the step is the helper's, the one in the forward is not
    assert [c.line for c in result.changes if c.mindspore_api == "randn_draw"] == [5]
    forward = text[text.index("def forward_fn"):text.index("grad_fn =")]
    assert "ops.randn(4, 1)" in forward and "draw" not in forward
    assert "    x = randn_draw(4, 2)\n    loss = train_step(x, " in text
    assert "yield ops.randn(3)" in text  # inside a function: it may be compiled elsewhere
