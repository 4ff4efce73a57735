"""torch.save / torch.load of things that are not a bare state dict (issue 16, pattern 7): a training
checkpoint's dict (model and optimizer states, counters, a config), arrays, lists of tensors, a
state dict under a name MindSpore's save_checkpoint would change; a whole network stays marked.

The fast tests read the converted text; the slow ones run the original with PyTorch and the
conversion with MindSpore (tests/convert/harness.py) from the same initial weights and compare:
a training run saved in one process and resumed in another (optimizer moments, learning-rate decay
and schedule carried over) must give PyTorch's losses."""
from __future__ import annotations

import ast
import tempfile
from pathlib import Path

import numpy as np
import pytest

from analysis.convert import convert_source
from tests.convert.harness import _run as run_framework
from tests.convert.harness import _same, parse_snippet, run_corpus


def convert(source: str):
    result = convert_source(source)
    ast.parse(result.text)
    return result


# -- what the converter writes ----------------------------------------------------------------------

CHECKPOINT_DICT = """import os
import torch
import torch.nn as nn
model = nn.Linear(3, 2)
optimizer = torch.optim.AdamW(model.parameters(), lr=0.1)
torch.save({'model': model.state_dict(), 'optimizer': optimizer.state_dict(), 'iter_num': 3},
           os.path.join(out_dir, 'ckpt.pt'))
checkpoint = torch.load(os.path.join(out_dir, 'ckpt.pt'), map_location='cpu')
model.load_state_dict(checkpoint['model'])
optimizer.load_state_dict(checkpoint['optimizer'])
iter_num = checkpoint['iter_num']
"""


def test_a_training_checkpoint_dict_converts_to_local_save_and_load():
    result = convert(CHECKPOINT_DICT)
    text = result.text
    assert not result.unconverted, result.unconverted
    assert "save({'model': state_dict_of(model), 'optimizer': state_dict_of(optimizer), 'iter_num': 3},\n" \
           "           os.path.join(out_dir, 'ckpt.pt'))" in text
    assert "checkpoint = load(os.path.join(out_dir, 'ckpt.pt'))\n" in text  # map_location: placement, dropped
    assert "load_state_dict_into(model, checkpoint['model'])" in text
    assert "load_state_dict_into(optimizer, checkpoint['optimizer'])" in text
    for helper in ("save(obj, f)", "load(f, weights_only=True)", "state_dict_of(obj)",
                   "load_state_dict_into(obj, state, strict=True)"):
        assert text.count(f"def {helper}:") == 1
    assert "import torch" not in text


def test_a_state_dict_saved_under_a_ckpt_name_stays_a_mindspore_checkpoint():
    result = convert("import torch\nimport torch.nn as nn\nmodel = nn.Linear(2, 2)\n"
                     "torch.save(model.state_dict(), 'model.ckpt')\n"
                     "torch.save(model.state_dict(), os.path.join(d, 'm-{}.ckpt'.format(3)))\n"
                     "model.load_state_dict(torch.load('model.ckpt'))\n")
    text = result.text
    assert "mindspore.save_checkpoint(model, 'model.ckpt')" in text
    assert "mindspore.save_checkpoint(model, os.path.join(d, 'm-{}.ckpt'.format(3)))" in text
    assert "load_state_dict_into(model, load('model.ckpt'))" in text  # load() reads a .ckpt too
    assert "def save(" not in text  # no pickling here: the helper is not written


def test_a_state_dict_saved_under_another_name_keeps_that_name():
    # mindspore.save_checkpoint(model, 'm.pth') would write m.pth.ckpt, which torch.load('m.pth') misses
    text = convert("import torch\ntorch.save(model.state_dict(), 'm.pth')\nmodel.load_state_dict(torch.load('m.pth'))\n"
                   ).text
    assert "save(state_dict_of(model), 'm.pth')" in text
    assert "load_state_dict_into(model, load('m.pth'))" in text


def test_a_whole_network_saved_is_marked_with_what_to_do():
    result = convert("import torch\nimport torch.nn as nn\nclass Net(nn.Module):\n    pass\n"
                     "net = Net().to('cpu')\ntorch.save(net, 'net.pt')\ntorch.save(nn.Linear(2, 2), 'layer.pt')\n")
    first, second = result.unconverted
    assert (first.line, second.line) == (6, 7)
    assert "whole network" in first.action and "mindspore.save_checkpoint(net, 'name.ckpt')" in first.action
    assert "build it from its class" in first.action


def test_a_whole_network_or_optimizer_saved_or_loaded_is_marked_where_the_file_uses_it_as_one():
    result = convert("import torch\nimport torchvision\nresnet = torchvision.models.resnet18()\n"
                     "torch.save(resnet, 'model.pt')\n"
                     "opt = make_optimizer()\nopt.zero_grad()\ntorch.save(opt, 'opt.pt')\n"
                     "model = torch.load('model.pt')\nmodel.eval()\nstate = torch.load('state.pt')\n")
    marked = [u for u in result.unconverted if u.rule_id == "MS-CHECKPOINT"]
    assert [(u.line, u.torch_api) for u in marked] == [(4, "torch.save"), (7, "torch.save"), (8, "torch.load")]
    assert "model is used as a whole network" in marked[-1].action
    assert "state = load('state.pt')" in result.text


def test_options_without_a_counterpart_are_marked_and_format_options_dropped():
    result = convert("import torch\nimport pickle\nimport numpy as np\n"
                     "torch.save(np.ones(2), 'a.pt', _use_new_zipfile_serialization=True)\n"
                     "a = torch.load('a.pt', 'cpu', weights_only=False)\n"
                     "b = torch.load('b.pt', pickle_module=pickle)\n"
                     "model.load_state_dict(sd, strict=False)\n"
                     "model.load_state_dict(sd, assign=True)\n")
    text = result.text
    assert "save(np.ones(2), 'a.pt')\n" in text
    assert "a = load('a.pt', weights_only=False)\n" in text
    assert "load_state_dict_into(model, sd, strict=False)" in text
    assert [u.line for u in result.unconverted] == [6, 8]


# -- both frameworks --------------------------------------------------------------------------------

# One training script run in phases, each in a process of its own: "save" trains 3 steps from fill()'s
# weights, lowers the learning rate and saves a checkpoint dict; "resume" builds a fresh network and
# optimizer, loads it and trains 3 more; "straight" trains all 6 in one go (PyTorch's resume matches it).
TRAINING = """import os
import numpy as np
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


x = torch.tensor(np.cos(np.arange(24) * 0.7).astype(np.float32).reshape(6, 4))
y = torch.tensor(np.sin(np.arange(12) * 0.3).astype(np.float32).reshape(6, 2))
model = Net()
optimizer = torch.optim.AdamW([{'params': [model.fc1.weight, model.fc2.weight], 'weight_decay': 0.1},
                               {'params': [model.fc1.bias, model.fc2.bias], 'weight_decay': 0.0}],
                              lr=0.05, betas=(0.9, 0.95))
path = os.path.join(folder, 'ckpt.pt')
start, stop = 0, 3 if phase == 'save' else 6
if phase == 'resume':
    checkpoint = torch.load(path, map_location='cpu')
    model.load_state_dict(checkpoint['model'])
    optimizer.load_state_dict(checkpoint['optimizer'])
    start = checkpoint['iter_num']
    best = checkpoint['best_loss']
    width = checkpoint['config']['width']
else:
    fill(model)
model.train()
losses = []
for it in range(start, stop):
    out = model(x)
    loss = ((out - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
    if it == 2:
        for group in optimizer.param_groups:
            group['lr'] = 0.02  # a decay the resumed run must take over
if phase == 'save':
    checkpoint = {'model': model.state_dict(), 'optimizer': optimizer.state_dict(), 'iter_num': 3,
                  'best_loss': loss.detach(), 'config': {'width': 8, 'name': 'tiny'}}
    torch.save(checkpoint, path)
"""


# The same with a learning-rate schedule whose state is saved with the checkpoint (MindSpore's schedulers
# have no state_dict(): the helper saves their counters and settings, as PyTorch's do).
SCHEDULED = """import os
import numpy as np
import torch
import torch.nn as nn

x = torch.tensor(np.cos(np.arange(24) * 0.7).astype(np.float32).reshape(6, 4))
y = torch.tensor(np.sin(np.arange(12) * 0.3).astype(np.float32).reshape(6, 2))
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
path = os.path.join(folder, 'ckpt.pt')
start, stop = 0, 3 if phase == 'save' else 6
if phase == 'resume':
    checkpoint = torch.load(path)
    model.load_state_dict(checkpoint['model'])
    optimizer.load_state_dict(checkpoint['optimizer'])
    scheduler.load_state_dict(checkpoint['scheduler'])
    start = checkpoint['epoch']
else:
    fill(model)
model.train()
losses = []
for epoch in range(start, stop):
    loss = ((model(x) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    losses.append(loss.item())
if phase == 'save':
    torch.save({'model': model.state_dict(), 'optimizer': optimizer.state_dict(),
                'scheduler': scheduler.state_dict(), 'epoch': stop}, path)
"""


def _phase(framework: str, source: str, phase: str, folder: Path, compare: list[str]) -> dict:
    text = f"phase = {phase!r}\nfolder = {str(folder)!r}\n" + source
    result = run_framework(framework, [{"name": phase, "source": text, "compare": compare}], folder, 600)[phase]
    assert "error" not in result, (framework, phase, result)
    return result["values"]


def _save_and_resume(source: str, extra: list[str]) -> tuple[dict, dict]:
    """{phase: values} for PyTorch (save, straight, resume) and MindSpore (save, resume)."""
    converted = convert(source)
    assert not converted.unconverted, converted.unconverted
    assert "import torch" not in converted.text
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for framework, text, phases in (("torch", source, ("save", "straight", "resume")),
                                        ("mindspore", converted.text, ("save", "resume"))):
            folder = Path(tmp) / framework
            folder.mkdir()
            runs[framework] = {phase: _phase(framework, text, phase, folder, ["losses", *extra] if phase == "resume"
                                             else ["losses"]) for phase in phases}
    ours, theirs = runs["mindspore"], runs["torch"]
    # PyTorch's resumed run carries on where the saved one stopped: the comparison means something
    assert np.allclose(theirs["resume"]["losses"], theirs["straight"]["losses"][3:], rtol=1e-6)
    for phase in ("save", "resume"):
        assert not _same(theirs[phase]["losses"], ours[phase]["losses"], 1e-5), \
            (phase, theirs[phase]["losses"], ours[phase]["losses"])
    return theirs, ours


@pytest.mark.slow
def test_a_training_run_saved_and_resumed_in_another_process_gives_pytorchs_losses():
    theirs, ours = _save_and_resume(TRAINING, ["best", "width"])
    assert not _same(theirs["resume"]["best"], ours["resume"]["best"], 1e-6)
    assert int(ours["resume"]["width"]) == 8


@pytest.mark.slow
def test_a_learning_rate_schedule_resumes_where_it_stopped():
    _save_and_resume(SCHEDULED, [])


ROUND_TRIPS = {
    # an array saved and read back (torch.load refuses numpy arrays unless weights_only=False)
    "array": """# compare: back, kind
import os
import tempfile
import numpy as np
import torch
path = os.path.join(tempfile.mkdtemp(), 'array.pt')
torch.save(np.linspace(0, 1, 6, dtype=np.float32).reshape(2, 3), path)
back = torch.load(path, weights_only=False)
kind = np.array(isinstance(back, np.ndarray))
""",
    # a list of tensors of several dtypes and a tuple
    "tensors": """# compare: a, b, c, d
import os
import tempfile
import numpy as np
import torch
path = os.path.join(tempfile.mkdtemp(), 'tensors.pt')
torch.save([torch.arange(4), torch.ones(2, 3) * 0.5, (torch.tensor([True, False]), 7)], path)
a, b, (c, d) = torch.load(path)
a = a * 2
c = c.int()
""",
    # a state dict under a name that is not .ckpt, loaded back into another network
    "state_dict_named_pth": """# compare: before, after
import os
import tempfile
import numpy as np
import torch
import torch.nn as nn
src = fill(nn.Linear(3, 2))
dst = nn.Linear(3, 2)
path = os.path.join(tempfile.mkdtemp(), 'weights.pth')
torch.save(src.state_dict(), path)
dst.load_state_dict(torch.load(path))
x = torch.tensor(np.linspace(0, 1, 6, dtype=np.float32).reshape(2, 3))
before = src(x)
after = dst(x)
""",
}


@pytest.mark.slow
def test_arrays_tensors_and_state_dicts_round_trip_as_in_pytorch():
    snippets = [parse_snippet(name, source) for name, source in ROUND_TRIPS.items()]
    verdicts = run_corpus(snippets)
    assert verdicts == {name: "" for name in ROUND_TRIPS}, verdicts


@pytest.mark.slow
def test_saving_a_network_the_converter_could_not_see_fails_loudly():
    # the network comes from a function: the text cannot tell, the helper refuses it when it runs
    source = ("import torch\nimport torch.nn as nn\ndef make():\n    return nn.Linear(2, 2)\n"
              "try:\n    torch.save(make(), path)\n    refused = ''\nexcept TypeError as error:\n    refused = str(error)\n")
    converted = convert(source)
    assert not converted.unconverted
    with tempfile.TemporaryDirectory() as tmp:
        text = f"path = {str(Path(tmp) / 'net.pt')!r}\n" + converted.text + "import numpy as np\nmessage = np.array(refused)\n"
        result = run_framework("mindspore", [{"name": "whole", "source": text, "compare": ["message"]}], Path(tmp), 300)
    assert "error" not in result["whole"], result
    message = str(result["whole"]["values"]["message"])
    assert "save() of a whole Dense" in message, message
