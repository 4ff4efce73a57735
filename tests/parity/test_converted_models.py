"""Real models converted by analysis.convert (no hand edit), checked against
PyTorch on real torch and MindSpore: a CNN with BatchNorm in train mode, an
LSTM with dropout=, a Transformer encoder, and a GPT block whose causal mask is
a registered buffer. Each passes as converted and fails, at the right layer,
once one line of the converted tree is broken."""
from __future__ import annotations

import shutil
import textwrap

import pytest

from analysis.convert import convert_tree
from analysis.parity import check_parity_many

pytestmark = pytest.mark.slow

MODELS = {
    "cnn.py": '''
        import torch.nn as nn


        class SmallCNN(nn.Module):
            def __init__(self, num_classes=5):
                super().__init__()
                self.conv = nn.Conv2d(3, 8, 3, padding=1)
                self.bn = nn.BatchNorm2d(8)
                self.pool = nn.AdaptiveAvgPool2d(1)
                self.drop = nn.Dropout(0.3)
                self.fc = nn.Linear(8, num_classes)

            def forward(self, x):
                x = self.pool(nn.functional.relu(self.bn(self.conv(x))))
                return self.fc(self.drop(x.flatten(1)))
    ''',
    "lstm.py": '''
        import torch.nn as nn


        class Tagger(nn.Module):
            def __init__(self, vocab=40, dim=16, hidden=24):
                super().__init__()
                self.embed = nn.Embedding(vocab, dim)
                self.lstm = nn.LSTM(dim, hidden, num_layers=2, dropout=0.4, batch_first=True)
                self.head = nn.Linear(hidden, 6)

            def forward(self, tokens):
                out, _ = self.lstm(self.embed(tokens))
                return self.head(out)
    ''',
    "encoder.py": '''
        import torch.nn as nn


        class Encoder(nn.Module):
            def __init__(self, vocab=50, dim=32):
                super().__init__()
                self.embed = nn.Embedding(vocab, dim)
                layer = nn.TransformerEncoderLayer(dim, 4, 64, dropout=0.2, batch_first=True)
                self.encoder = nn.TransformerEncoder(layer, num_layers=2)
                self.head = nn.Linear(dim, vocab)

            def forward(self, tokens):
                return self.head(self.encoder(self.embed(tokens)))
    ''',
    "gpt.py": '''
        import math

        import torch
        import torch.nn as nn


        class CausalBlock(nn.Module):
            def __init__(self, dim=32, heads=4, block_size=16, dropout=0.1):
                super().__init__()
                self.heads = heads
                self.ln_1 = nn.LayerNorm(dim)
                self.qkv = nn.Linear(dim, 3 * dim)
                self.proj = nn.Linear(dim, dim)
                self.attn_drop = nn.Dropout(dropout)
                self.ln_2 = nn.LayerNorm(dim)
                self.fc = nn.Linear(dim, 4 * dim)
                self.gelu = nn.GELU()
                self.out = nn.Linear(4 * dim, dim)
                self.register_buffer("mask", torch.tril(torch.ones(block_size, block_size)))

            def forward(self, x):
                B, T, C = x.shape
                q, k, v = self.qkv(self.ln_1(x)).chunk(3, dim=-1)
                q = q.reshape(B, T, self.heads, C // self.heads).transpose(1, 2)
                k = k.reshape(B, T, self.heads, C // self.heads).transpose(1, 2)
                v = v.reshape(B, T, self.heads, C // self.heads).transpose(1, 2)
                att = (q @ k.transpose(-2, -1)) / math.sqrt(C // self.heads)
                att = nn.functional.softmax(att.masked_fill(self.mask[:T, :T] == 0, float("-inf")), dim=-1)
                y = (self.attn_drop(att) @ v).transpose(1, 2).reshape(B, T, C)
                x = x + self.proj(y)
                return x + self.out(self.gelu(self.fc(self.ln_2(x))))
    ''',
}

# Entries with their inputs and the bug injected into the converted tree:
# (class, inputs, file, old, new, layer the bug must be pinned on).
ENTRIES = {
    "cnn": ("cnn:SmallCNN", '[{shape = [4, 3, 16, 16]}]', "cnn.py", "momentum=0.9", "momentum=0.1", "bn"),
    "lstm": ("lstm:Tagger", '[{shape = [4, 7], dtype = "int64", range = [0, 40]}]', "lstm.py",
             "batch_first=True", "batch_first=False", "lstm"),
    # A bug in the root's own forward (no layer of its own) is pinned on the root.
    "encoder": ("encoder:Encoder", '[{shape = [4, 6], dtype = "int64", range = [0, 50]}]', "encoder.py",
                "self.encoder(self.embed(tokens))", "self.encoder(self.embed(tokens) * 1.01)", "(root)"),
    "gpt": ("gpt:CausalBlock", '[{shape = [4, 8, 32]}]', "gpt.py", "nn.GELU(approximate=False)",
            "nn.GELU(approximate=True)", "gelu"),
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("converted")
    tmp.chmod(0o755)  # the sandboxed child runs as an unprivileged user and must read the trees
    src = tmp / "src"
    src.mkdir()
    for name, body in MODELS.items():
        (src / name).write_text(textwrap.dedent(body).lstrip())
    good = tmp / "good"
    convert_tree(src, good, jobs=1)
    trees, names = [], []
    for key, (target, inputs, file, old, new, _) in ENTRIES.items():
        manifest = tmp / f"{key}.toml"
        manifest.write_text(f'[[entry]]\nclass = "{target}"\ninputs = {inputs}\nloss_steps = 4\n'
                            'optimizer = { name = "SGD", lr = 0.05 }\n')
        trees.append((src, good, manifest))
        names.append(key)
        bad = tmp / f"bad_{key}"
        shutil.copytree(good, bad)
        text = (bad / file).read_text()
        assert old in text, f"{old!r} not in the converted {file}:\n{text}"
        (bad / file).write_text(text.replace(old, new, 1))
        trees.append((src, bad, manifest))
        names.append(f"bad_{key}")
    results = check_parity_many(trees, timeout_s=300)
    return {name: report["entry_points"][0] for name, report in zip(names, results)}


@pytest.mark.parametrize("key", list(ENTRIES))
def test_converted_model_passes_with_random_parts_off(reports, key):
    entry = reports[key]
    assert entry["status"] == "pass", entry["reason"]
    assert entry["reference"]["float64"] is True
    assert all(row["status"] == "pass" for row in entry["layers"] + entry["layers_train"]), entry["reason"]
    assert any(row.get("root") for row in entry["layers"])  # the root's own forward is hooked
    assert entry["gradients"] and all(g["status"] == "pass" for g in entry["gradients"])
    assert all("noise_max_abs" in g for g in entry["gradients"])
    curve = entry["loss_curve"]
    assert curve["status"] == "pass" and len(curve["torch_float64"]) == 4 and curve["description"]
    assert entry["random_parts_off"], "train mode must say what was turned off"


def test_lstm_dropout_is_turned_off_on_both_sides(reports):
    off = reports["lstm"]["random_parts_off"]
    assert {"torch", "mindspore"} <= {row["side"] for row in off if row["layer"].startswith("lstm")}


def test_mask_buffer_is_moved_and_compared_as_state(reports):
    state = {s["name"]: s for s in reports["gpt"]["state_after_step"]}
    assert state["mask"]["kind"] == "buffer" and state["mask"]["status"] == "pass"
    assert "mask" not in {u["name"] for u in reports["gpt"]["weights"]["unmatched_torch"]}


@pytest.mark.parametrize("key", list(ENTRIES))
def test_injected_bug_fails_at_its_layer(reports, key):
    entry = reports[f"bad_{key}"]
    assert entry["status"] == "fail", entry["reason"]
    assert entry["first_diverging_layer"] == ENTRIES[key][5], entry["reason"]
