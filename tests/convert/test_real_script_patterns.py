"""Patterns from real training scripts that converted silently wrong or failed (issue 29), each a general
rule: BatchNorm's running statistics, `loader.dataset`, a layer subclass forwarding `device=None,
dtype=None`, one backward() applied by two optimizers, `partial(torch.arange, device=...)`,
`nn.Embedding.from_pretrained`. Each snippet runs in both frameworks (tests/convert/harness.py)."""
from __future__ import annotations

import ast

import pytest

from analysis.convert import convert_source
from tests.convert.harness import parse_snippet, run_corpus

HEAD = """import functools
from functools import partial
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
x = torch.tensor(np.cos(np.arange(48) * 0.7).astype(np.float32).reshape(12, 4))
y = torch.tensor(np.sin(np.arange(24) * 0.3).astype(np.float32).reshape(12, 2))
"""

SNIPPETS = {
    "batchnorm_running_statistics": """# compare: mean, var
bn = nn.BatchNorm1d(4, momentum=0.3)
for _ in range(2):
    out = bn(x)
mean = bn.running_mean
var = bn.running_var
""",
    "loader_dataset_after_conversion": """# compare: n, total, first
class Pairs(Dataset):
    def __init__(self, values):
        self.values = values

    def __len__(self):
        return len(self.values)

    def __getitem__(self, i):
        return self.values[i], i

loader = DataLoader(Pairs(x), batch_size=4)
train_set = Pairs(y)
loader2 = DataLoader(train_set, batch_size=4)
n = len(loader2.dataset)
first = loader2.dataset[1][0]
total = 0
for inputs, index in loader2:
    total += inputs.shape[0]
""",
    "layer_subclass_forwarding_device_and_dtype": """# compare: out, bias
class Scaled(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device=device, dtype=dtype)

    def forward(self, v):
        return super().forward(v) * 0.5

layer = fill(Scaled(4, 2))
out = layer(x)
bias = layer.bias
""",
    "one_backward_two_optimizers": """# compare: losses, enc_weight, dec_weight
encoder = fill(nn.Linear(4, 3))
decoder = fill(nn.Linear(3, 2))
enc_opt = torch.optim.SGD(encoder.parameters(), lr=0.1)
dec_opt = torch.optim.Adam(decoder.parameters(), lr=0.05)
criterion = nn.MSELoss()
losses = []
for step in range(3):
    enc_opt.zero_grad()
    dec_opt.zero_grad()
    loss = criterion(decoder(torch.tanh(encoder(x))), y)
    loss.backward()
    enc_opt.step()
    dec_opt.step()
    losses.append(loss.item())
enc_weight = encoder.weight.detach().numpy()
dec_weight = decoder.weight.detach().numpy()
""",
    "partial_over_a_torch_function_with_device": """# compare: a, b
arange = partial(torch.arange, device="cpu")
steps = functools.partial(torch.arange, device=torch.device("cpu"), dtype=torch.float32)
a = arange(5) * 2
b = steps(0, 3)
""",
    "partial_over_layers_and_functions": """# compare: out
import torch.nn.functional as F
dense = partial(nn.Linear, 4, 3, bias=False)
act = partial(F.gelu, approximate="tanh")
soft = partial(F.softmax, dim=0)
conv = partial(nn.Conv1d, kernel_size=1)
wide = partial(nn.Conv2d, kernel_size=3, padding=1)
layer = fill(dense())
mixed = fill(conv(12, 5))(x.reshape(1, 12, 4))
grid = fill(wide(1, 2))(x.reshape(1, 1, 12, 4))
out = [soft(act(layer(x))), mixed, grid]
""",
    "layer_size_attributes": """# compare: sizes
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.emb = nn.Embedding(10, 4)
        self.conv = nn.Conv1d(4, 8, 3, groups=2)
        self.head = nn.Linear(self.fc.out_features, 2)
        self.in_features = 99
net = Net()
lin = nn.Linear(5, 7)
sizes = [net.fc.in_features, net.head.in_features, net.emb.num_embeddings, net.emb.embedding_dim,
         net.conv.groups, net.in_features, lin.out_features]
""",
    "embedding_from_pretrained_frozen_and_not": """# compare: losses, frozen, trained
table = x[:6, :3] * 1.0
frozen_emb = nn.Embedding.from_pretrained(table, freeze=True)
trained_emb = nn.Embedding.from_pretrained(table.clone(), freeze=False)
head = fill(nn.Linear(3, 2))
model = nn.Sequential(frozen_emb, head)
other = nn.Sequential(trained_emb, head)
opt = torch.optim.SGD(list(model.parameters()) + list(trained_emb.parameters()), lr=0.5)
ids = torch.tensor([0, 2, 5, 1])
losses = []
for step in range(2):
    loss = (model(ids) ** 2).mean() + (other(ids) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
frozen = frozen_emb.weight.detach().numpy()
trained = trained_emb.weight.detach().numpy()
""",
}


def _convert(name: str):
    result = convert_source(HEAD + SNIPPETS[name])
    ast.parse(result.text)
    return result


def test_batchnorm_running_statistics_are_mindspores_moving_ones():
    text = _convert("batchnorm_running_statistics").text
    assert "mean = bn.moving_mean" in text and "var = bn.moving_variance" in text
    # a class of the file's own keeping statistics under these names keeps them
    own = convert_source("import torch\nclass Stats:\n    def __init__(self):\n        self.running_mean = 0.0\n"
                         "s = Stats()\nm = s.running_mean\n").text
    assert "s.running_mean" in own and "moving" not in own


def test_loader_dataset_reads_the_dataset_the_loader_was_built_over():
    text = _convert("loader_dataset_after_conversion").text
    assert "n = len(train_set)" in text and "first = train_set[1][0]" in text


def test_a_layer_subclass_passes_dtype_only_when_given_and_drops_device():
    text = _convert("layer_subclass_forwarding_device_and_dtype").text
    assert 'super().__init__(in_features, out_features, has_bias=bias, **({"dtype": dtype} if dtype is not None else {}))' in text


def test_one_backward_applied_by_two_optimizers_gives_each_its_own_gradients():
    result = _convert("one_backward_two_optimizers")
    assert "value_and_grad(forward_fn, None, enc_opt.parameters + dec_opt.parameters)" in result.text
    assert "enc_opt(grads[:len(enc_opt.parameters)])\n    dec_opt(grads[len(enc_opt.parameters):])" in result.text
    assert "encoder.set_train(True)\ndecoder.set_train(True)" in result.text
    assert not result.unconverted


def test_partial_over_a_torch_function_drops_the_device():
    result = _convert("partial_over_a_torch_function_with_device")
    assert 'arange = partial(ops.arange)' in result.text
    assert "steps = functools.partial(ops.arange, dtype=mindspore.float32)" in result.text
    assert not result.unconverted and "import torch" not in result.text


def test_a_partial_over_a_layer_or_function_converts_its_bound_arguments_or_is_marked():
    """Renaming the API alone kept PyTorch's argument names and defaults: partial(nn.Linear, bias=False)
    became partial(nn.Dense, bias=False), and partial(nn.Conv1d, kernel_size=1) lost its bias silently."""
    result = _convert("partial_over_layers_and_functions")
    assert "dense = partial(nn.Dense, 4, 3, has_bias=False)" in result.text
    assert "soft = partial(ops.softmax, axis=0)" in result.text
    assert 'conv = partial(nn.Conv1d, kernel_size=1, has_bias=True, pad_mode="valid")' in result.text
    lin = convert_source("import torch.nn as nn\nfrom functools import partial\nlin = partial(nn.Linear, out_features=3)\n")
    assert "lin = partial(nn.Dense, out_channels=3)" in lin.text and not lin.unconverted
    # the arguments left to later calls are not the positional ones right after those bound: marked
    some = convert_source("import torch.nn as nn\nfrom functools import partial\nlin = partial(nn.Linear, in_features=3)\n")
    assert [(u.rule_id, u.torch_api) for u in some.unconverted] == [("MS-API-DIFF", "torch.nn.Linear")]
    assert "binds only some arguments" in some.unconverted[0].action and "import torch.nn as nn" in some.text


def test_sizes_a_layer_keeps_as_attributes_are_read_under_mindspores_names():
    """model.fc.in_features (replacing a head), emb.embedding_dim, conv.groups: MindSpore's Dense, Embedding
    and Conv keep them as in_channels, embedding_size, group; an attribute of the file's own class stays."""
    text = _convert("layer_size_attributes").text
    assert "self.head = nn.Dense(self.fc.out_channels, 2)" in text and "self.in_features = 99" in text
    assert "net.emb.vocab_size, net.emb.embedding_size" in text and "net.in_features, lin.out_channels" in text


def test_a_layer_attribute_mindspore_holds_in_another_form_is_marked():
    """conv.padding (PyTorch's tuple, MindSpore's value as given), Conv1d's kernel_size (MindSpore's is 2-d),
    ReflectionPad's padding (pairs per axis): read as they are, code indexing them goes wrong (and a value
    stored there is read in MindSpore's form); kernel_size of a Conv2d is the same tuple in both: unmarked."""
    result = convert_source("import torch.nn as nn\nconv = nn.Conv2d(3, 8, 3, padding=1)\np = conv.padding\n"
                            "k = conv.kernel_size\npad = nn.ReflectionPad1d(2)\nq = pad.padding\n"
                            "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                            "        self.c1 = nn.Conv1d(3, 4, 3)\n        self.c1.padding = 0\n"
                            "    def forward(self, x):\n        return self.c1(x)[..., :self.c1.kernel_size[0]]\n")
    assert [u.line for u in result.unconverted] == [3, 6, 11, 13], [(u.line, u.action) for u in result.unconverted]
    assert "conv.padding: MindSpore keeps padding as it was given" in result.unconverted[0].action
    assert "flatten" in result.unconverted[1].action and "2-d convolution" in result.unconverted[3].action


def test_embedding_from_pretrained_is_written_exactly():
    result = _convert("embedding_from_pretrained_frozen_and_not")
    assert "frozen_emb = embedding_from_pretrained(table, freeze=True)" in result.text
    assert "def embedding_from_pretrained(embeddings, freeze=True):" in result.text
    assert not result.unconverted
    marked = convert_source("import torch\nw = torch.ones(3, 2)\ne = torch.nn.Embedding.from_pretrained(w, padding_idx=0)\n")
    assert [u.rule_id for u in marked.unconverted] == ["MS-API-DIFF"] and "padding_idx" in marked.unconverted[0].action


@pytest.mark.slow
def test_real_script_patterns_run_like_pytorch():
    snippets = [parse_snippet(name, HEAD + body) for name, body in SNIPPETS.items()]
    verdicts = run_corpus(snippets, timeout=600)
    assert verdicts == {s.name: "" for s in snippets}
