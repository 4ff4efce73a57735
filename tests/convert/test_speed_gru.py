"""A converted GRU's time steps in fewer CPU kernels (issue 29: converted training at PyTorch's speed):
support's GRU (the unbatched-input subclass every converted nn.GRU becomes) runs its layers through
GRUSteps on CPU (support/helper_rnn_speed.py), the input projection of all steps in one product and each
step in one product and ten elementwise kernels. Checked against PyTorch: a converted encoder/decoder
trained by a compiled step, and the layer alone over layers, directions, batch_first, one step, no bias,
op by op and compiled."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from analysis.convert import convert_source
from tests.convert.harness import parse_snippet, run_corpus

ROOT = Path(__file__).resolve().parents[2]

# bench/training_scripts/seq2seq.py's shape: an encoder GRU over the sequence, a decoder GRU called one
# token at a time with teacher forcing, one backward and one optimizer over both (SGD: Adam would turn the
# float noise of a gradient near zero into a step of its learning rate, on either side)
SEQ2SEQ = """# compare: losses, encoder_w, decoder_b
import numpy as np
import torch
import torch.nn as nn
vocab, hidden, length, batch = 11, 6, 5, 4


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(vocab, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)

    def forward(self, src):
        _, h = self.gru(self.embedding(src))
        return h


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(vocab, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, token, h):
        output, h = self.gru(self.embedding(token), h)
        return self.out(output.squeeze(1)), h


encoder, decoder = fill(Encoder()), fill(Decoder())
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(list(encoder.parameters()) + list(decoder.parameters()), lr=0.5)
src = torch.tensor((np.arange(batch * length).reshape(batch, length) * 7) % (vocab - 1) + 1)
tgt = src.flip(1)
losses = []
for step in range(4):
    h = encoder(src)
    token = torch.zeros((batch, 1), dtype=torch.long)
    loss = 0
    for t in range(length):
        logits, h = decoder(token, h)
        loss = loss + criterion(logits, tgt[:, t])
        token = tgt[:, t].unsqueeze(1)
    loss = loss / length
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
encoder_w = encoder.gru.weight_hh_l0.detach().numpy()
decoder_b = decoder.gru.bias_ih_l0.detach().numpy()
"""


@pytest.mark.slow
def test_a_converted_seq2seq_trains_like_pytorch_through_the_fewer_kernel_gru():
    snippet = parse_snippet("seq2seq_gru_steps", SEQ2SEQ)
    text = convert_source(snippet.source).text
    assert "class GRUSteps(nn.Cell):" in text and "cpu_gru_steps(self)" in text
    assert "@compiled_step" in text  # the steps run as one graph, where the kernels count
    assert run_corpus([snippet], timeout=600) == {snippet.name: ""}


# The layer alone against PyTorch's, both frameworks in one process (weights copied by name): outputs, the
# last state and the gradients of the input, the initial state and every weight.
LAYER_SCRIPT = """
import sys
import numpy as np
import torch
import mindspore as ms
sys.path.insert(0, sys.argv[1])
import analysis.convert.support.helper_unbatched as h

def differences(mode, steps, **options):
    batch, size, hidden = 3, 4, 5
    states = options.get("num_layers", 1) * (2 if options.get("bidirectional") else 1)
    theirs = torch.nn.GRU(size, hidden, **options)
    ours = h.GRU(size, hidden, has_bias=options.pop("bias", True), **options)
    assert type(ours.rnn).__name__ == "GRUSteps"
    by_name = {p.name: p for p in ours.trainable_params()}
    for name, p in theirs.named_parameters():
        by_name[name].set_data(ms.tensor(p.detach().numpy()))
    rng = np.random.default_rng(steps)
    x = rng.standard_normal((batch, steps, size) if options.get("batch_first") else (steps, batch, size))
    h0 = rng.standard_normal((states, batch, hidden))
    xt = torch.tensor(x, dtype=torch.float32, requires_grad=True)
    ht = torch.tensor(h0, dtype=torch.float32, requires_grad=True)
    out, hn = theirs(xt, ht)
    (out.square().sum() + hn.sum()).backward()

    def loss(x, h0):
        o, hn = ours(x, h0)
        return o.square().sum() + hn.sum()
    grad = ms.grad(loss, (0, 1), ours.trainable_params())
    if mode == "compiled":
        grad = ms.jit(grad)
    x, h0 = ms.tensor(x, ms.float32), ms.tensor(h0, ms.float32)
    (gx, gh), gw = grad(x, h0)
    o, hn2 = ours(x, h0)
    pairs = [(o, out), (hn2, hn), (gx, xt.grad), (gh, ht.grad)]
    pairs += [(g, dict(theirs.named_parameters())[p.name].grad) for g, p in zip(gw, ours.trainable_params())]
    return max(float(np.abs(a.asnumpy() - b.detach().numpy()).max()) for a, b in pairs)

cases = [(7, {}), (1, {"batch_first": True}), (5, {"num_layers": 2, "bidirectional": True, "batch_first": True}),
         (4, {"bias": False})]
print([differences(mode, steps, **dict(options)) for mode in ("op by op", "compiled") for steps, options in cases])
"""


@pytest.mark.slow
def test_the_gru_steps_give_pytorchs_outputs_and_gradients(tmp_path):
    script = tmp_path / "layer.py"
    script.write_text(LAYER_SCRIPT)
    proc = subprocess.run([sys.executable, str(script), str(ROOT)], capture_output=True, text=True, cwd=tmp_path,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    differences = eval(proc.stdout.strip().splitlines()[-1])  # a printed list of floats
    assert len(differences) == 8 and max(differences) < 2e-5, differences


def test_the_support_gru_takes_the_steps_cell_and_keeps_masked_lengths_on_mindspores():
    text = convert_source("import torch\nlayer = torch.nn.GRU(4, 5, batch_first=True)\n").text
    assert "layer = GRU(4, 5, batch_first=True)" in text
    assert "def cpu_gru_steps(layer):" in text and "class GRUSteps(nn.Cell):" in text
    # sequences given lengths go to MindSpore's own cell, kept as `plain`
    assert "return self.plain(x, h, seq_length, w_ih, w_hh, b_ih, b_hh)" in text
