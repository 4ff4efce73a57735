"""torch.nn.functional calls whose MindSpore kernels refuse inputs PyTorch takes (issue 29's silent
OpInfo samples): an unbatched input, an empty batch, PyTorch's padding and divisor spellings, CTC's
list lengths and concatenated targets, 1-D adaptive pooling over lengths that are no multiple of
the output size, local response norms of any rank. Each goes to a local function of PyTorch's signature
(helper_source.py); the slow test runs both frameworks on the same inputs."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from analysis.convert import convert_source
from .harness import block_value_problems

ROOT = Path(__file__).resolve().parents[2]
HEADER = "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n"


def converted(body: str):
    result = convert_source(HEADER + textwrap.dedent(body))
    return result.text, [u.action for u in result.unconverted]


def test_calls_go_to_local_functions_of_pytorchs_signature():
    text, marks = converted("""
        a = F.conv1d(x, w, None, 1, 'same')
        b = F.conv2d(x, w, b, stride=2, padding=(1, 2), groups=4)
        c = F.conv3d(input=x, weight=w)
        d = F.avg_pool3d(x, 2, divisor_override=3)
        e = F.adaptive_avg_pool3d(x, (2, 3, 4))
        f = F.ctc_loss(lp, t, [5, 5], [2, 3], reduction='sum')
        g = nn.CTCLoss(blank=1)(lp, t, il, tl)
        h = F.adaptive_avg_pool1d(x, 3)
        i, j = F.adaptive_max_pool1d(x, (3,), True)
        k = nn.AdaptiveMaxPool1d(2, return_indices=True)
        m = nn.LocalResponseNorm(3, 0.5)
    """)
    assert marks == []
    # (convolutions go through the kernel dtype bridge, for complex tensors)
    for line in ("a = kernel_dtypes(conv1d, ", "b = kernel_dtypes(conv2d, ", "c = kernel_dtypes(conv3d, ",
                 "x, w, None, 1, 'same')", "x, w, b, stride=2, padding=(1, 2), groups=4)", "input=x, weight=w)",
                 # int64 averages go through float64 and back (the kernel bridge), other dtypes as they are
                 "d = kernel_dtypes(avg_pool3d, ((mindspore.int64, mindspore.float64),), x, 2, divisor_override=3)",
                 "e = adaptive_avg_pool3d(x, (2, 3, 4))", "f = ctc_loss(lp, t, [5, 5], [2, 3], reduction='sum')",
                 "g = CTCLoss(blank=1)(lp, t, il, tl)", "h = adaptive_avg_pool1d(x, 3)",
                 "i, j = adaptive_max_pool1d(x, (3,), True)", "k = AdaptiveMaxPool1d(2, return_indices=True)", "m = LocalResponseNorm(3, 0.5)"):
        assert line in text
    assert "pad_mode" not in text.split("def conv_nd")[0]  # the helper spells padding, not the call
    compile(text, "converted.py", "exec")


CASES = [
    ("conv1d of an unbatched (C, L) input, groups and 'same' padding", """
        x = torch.linspace(-1, 1, 40).reshape(4, 10)
        w = torch.linspace(1, -1, 24).reshape(4, 2, 3)
        a = F.conv1d(x, w, None, 2, 1, 1, 2)
        b = F.conv1d(x, w[:, :, :2], torch.tensor([0.5, -0.5, 1.0, 0.0]), padding='same', groups=2, dilation=2)
        c = F.conv1d(x.unsqueeze(0), w, padding=(2,), groups=2)
        """),
    ("conv2d of an unbatched (C, H, W) input with groups, conv3d of a (C, D, H, W) one", """
        x = torch.linspace(-1, 1, 144).reshape(4, 6, 6)
        a = F.conv2d(x, torch.linspace(1, -1, 36).reshape(4, 1, 3, 3), torch.arange(4.), groups=4, padding=(1, 1))
        b = F.conv2d(x, torch.linspace(1, -1, 72).reshape(8, 1, 3, 3), groups=4, stride=(3, 2))
        v = torch.linspace(-1, 1, 243).reshape(9, 3, 1, 9)
        c = F.conv3d(v, torch.linspace(1, -1, 243).reshape(3, 3, 3, 1, 9), None, (2, 2, 2), 0, 1, 3)
        d = F.conv3d(v, torch.linspace(1, -1, 9).reshape(1, 9, 1, 1, 1), padding='same')
        """),
    ("unfold, adaptive_avg_pool3d and avg_pool3d of an empty batch", """
        a = F.unfold(torch.zeros(0, 1, 5, 5), 2, padding=1, stride=(1, 2))
        b = F.adaptive_avg_pool3d(torch.zeros(0, 3, 8, 8, 8), (5, 7, 4))
        c = F.avg_pool3d(torch.zeros(0, 1, 4, 6, 4), (2, 3, 1), stride=(2, 1, 2))
        """),
    ("avg_pool3d: stride left to kernel_size, a padding per axis, any divisor_override", """
        x = torch.linspace(-2, 3, 250).reshape(1, 2, 5, 5, 5)
        a = F.avg_pool3d(x, (2, 3, 4), padding=(0, 1, 2), stride=(1, 2, 2), ceil_mode=True, divisor_override=2)
        b = F.avg_pool3d(x, 2, None, 0, False, True, -2)
        c = F.avg_pool3d(x, (3, 2, 2), padding=(1, 1, 0), count_include_pad=False)
        """),
    ("ctc_loss with list lengths, each reduction; nn.CTCLoss with concatenated 1-D targets", """
        lp = torch.linspace(-3, 2, 120).reshape(6, 4, 5).log_softmax(2)
        t = torch.tensor([[1, 2, 2], [3, 1, 0], [4, 4, 1], [2, 0, 0]])
        a = F.ctc_loss(lp, t, [6, 6, 5, 4], [3, 2, 3, 1], reduction='none')
        b = F.ctc_loss(lp, t, [6, 6, 5, 4], [3, 2, 3, 1])
        c = F.ctc_loss(lp, t, torch.tensor([6, 6, 5, 4]), torch.tensor([3, 2, 3, 1]), reduction='sum', zero_infinity=True)
        d = nn.CTCLoss()(lp, torch.tensor([1, 2, 2, 3, 1, 4, 4, 1, 2]), torch.tensor([6, 6, 5, 4]), torch.tensor([3, 2, 3, 1]))
        e = F.ctc_loss(lp[:, 0], t[0], torch.tensor(6), torch.tensor(3), reduction='none')
        """),
    ("1-D adaptive pooling where the length is no multiple of the output size (windows overlap)", """
        x = torch.linspace(-2, 3, 30).reshape(2, 3, 5)
        a = F.adaptive_avg_pool1d(x, 3)
        b, first = F.adaptive_max_pool1d(x[0], (3,), True)
        c = nn.AdaptiveAvgPool1d(4)(x)
        d, second = nn.AdaptiveMaxPool1d(2, return_indices=True)(x.flip(-1))
        e = F.adaptive_max_pool1d(torch.linspace(-1, 1, 14).reshape(2, 7), 7)
        """),
    ("LocalResponseNorm over 3-D, 4-D and 5-D inputs (MindSpore's LRN: 4-D only, another size and scale)", """
        x = torch.linspace(-2, 3, 60).reshape(1, 5, 3, 4)
        a = nn.LocalResponseNorm(2)(x)
        b = nn.LocalResponseNorm(3, 0.5, 0.5, 2.0)(x.reshape(2, 5, 6))
        c = F.local_response_norm(x.reshape(1, 5, 3, 2, 2), 4, alpha=0.1)
        """),
    ("interpolate: 1-D area into a length that does not divide the input's; other modes as before", """
        x = torch.linspace(-2, 3, 24).reshape(2, 3, 4)
        a = F.interpolate(x, (3,), None, 'area')
        b = F.interpolate(input=x, size=[7], mode='area')
        c = F.interpolate(x.reshape(1, 2, 3, 4), size=(5, 3), mode='bilinear', align_corners=True)
        d = F.interpolate(x, 6, mode='linear')
        """),
    ("interpolate: scale factors (recomputed or not), nearest-exact, bicubic, trilinear, 2-D area", """
        x = torch.linspace(-2, 3, 60).reshape(1, 3, 4, 5)
        a = F.interpolate(x, scale_factor=0.6, mode='nearest', recompute_scale_factor=True)
        b = F.interpolate(x, None, 1.7, 'bilinear')
        c = F.interpolate(input=x, size=(3, 7), mode='nearest-exact')
        d = F.interpolate(x, (3, 3), None, 'bicubic', True)
        e = F.interpolate(x, scale_factor=2.5, mode='bicubic')
        f = F.interpolate(x.reshape(1, 1, 3, 4, 5), scale_factor=0.6, mode='trilinear', recompute_scale_factor=True)
        g = F.interpolate(x.double(), size=[3, 3], mode='area')
        h = F.interpolate(x.half(), scale_factor=(0.5, 1.5), mode='bilinear', align_corners=True)
        """),
    ("triplet_margin_loss and its layer on float, integer and complex inputs", """
        a0, p0, n0 = torch.linspace(-3, 3, 15).reshape(3, 5), torch.linspace(2, -1, 15).reshape(3, 5), torch.linspace(0, 1, 15).reshape(3, 5)
        a = F.triplet_margin_loss(a0, p0, n0)
        b = F.triplet_margin_loss(anchor=(a0 * 3).to(torch.int8), positive=(p0 * 3).to(torch.int8), negative=n0.to(torch.int8), margin=1e-06)
        c = F.triplet_margin_loss(a0.to(torch.complex64), p0.to(torch.complex64), n0.to(torch.complex64), reduction='none', p=1)
        d = nn.TripletMarginLoss(margin=0.5, swap=True)(a0.double(), p0.double(), n0.double())
        """),
    ("softsign of integer (uint8 255 wraps), float and complex inputs", """
        x = torch.tensor([[-128, -3, 0, 5, 127]], dtype=torch.int8)
        a = F.softsign(x)
        b = F.softsign(torch.tensor([0, 1, 254, 255], dtype=torch.uint8))
        c = F.softsign(torch.complex(x.double(), x.double().flip(1)))
        d = F.softsign(x.to(torch.int64))
        """),
    ("conv1d/2d/3d of float64, int64 and complex inputs (no MindSpore CPU kernel)", """
        x = torch.linspace(-1, 1, 4 * 7 * 7).reshape(1, 4, 7, 7).double()
        w = torch.linspace(1, -1, 4 * 2 * 9).reshape(4, 2, 3, 3).double()
        a = F.conv2d(x, w, torch.ones(4).double(), 2, 1, 1, 2)
        b = F.conv2d(torch.arange(196).reshape(1, 4, 7, 7) % 7 - 3, torch.arange(72).reshape(4, 2, 3, 3) % 5 - 2,
                     padding='same', dilation=2, groups=2)
        c = F.conv1d(torch.complex(x[0, :, 0], x[0, :, 1]), w[:, :, 0].to(torch.complex128), groups=2)
        d = F.conv3d(x.reshape(1, 4, 7, 7, 1), w.reshape(4, 2, 3, 3, 1), stride=(1, 2, 1), padding='valid', groups=2)
        """),
    ("kl_div with zero targets and log targets, soft margin losses, ELU of any alpha, normalize of any eps", """
        lp = torch.log(torch.linspace(0.05, 0.95, 12)).reshape(3, 4)
        t = torch.linspace(0, 0.5, 12).reshape(3, 4)
        a = F.kl_div(lp, t, reduction='batchmean')
        b = nn.KLDivLoss(reduction='none', log_target=True)(lp, lp.flip(0))
        c = F.soft_margin_loss(lp, torch.sign(t - 0.2), reduction='sum')
        d = nn.SoftMarginLoss()(lp.double(), torch.sign(t - 0.2).double())
        e = nn.ELU(alpha=0.5)(lp - t)
        f = F.elu(input=lp.half(), alpha=2.0)
        g = F.normalize(input=lp, eps=0.0001)
        h = F.normalize(torch.complex(lp, lp.flip(0)), 1, 0)
        """),
    ("margin ranking with int64 targets, binary cross entropy at 0 and 1 and in float64, prelu, cosine similarity", """
        x1, x2 = torch.linspace(-1, 1, 5), torch.linspace(1, -2, 5)
        y = torch.tensor([1, -1, 1, 1, -1])
        a = F.margin_ranking_loss(x1, x2, y, margin=0.5)
        b = nn.MarginRankingLoss(reduction='none')(x1.double(), x2.double(), y)
        p = torch.linspace(0, 1, 12).reshape(3, 4)
        c = F.binary_cross_entropy(p, p.flip(1), weight=torch.linspace(0.5, 2, 4))
        d = nn.BCELoss(reduction='sum')(p.double(), p.flip(0).double())
        e = F.prelu(torch.linspace(-3, 3, 24).reshape(2, 3, 4), torch.tensor([0.1, 0.2, 0.3]))
        f = F.prelu(torch.linspace(-3, 3, 24).reshape(2, 3, 4).double(), torch.tensor(0.25).double())
        g = F.cosine_similarity(p.double(), p[:1].double(), dim=0)
        h = F.cosine_similarity(x1=p, x2=torch.zeros(3, 4), eps=1e-3)
        """),
]


def test_interpolate_converts_every_mode_and_scale_factor_and_marks_what_it_cannot_know():
    text, marks = converted("""
        a = F.interpolate(x, scale_factor=2, mode='bicubic')
        b = F.interpolate(x, (4, 4), mode=how)
        c = F.interpolate(x, scale_factor=0.5)
        d = F.interpolate(x, (4, 4), mode='nearest', antialias=False)
        e = F.interpolate(x, (4, 4), mode='bilinear', antialias=True)
        f = F.interpolate(x, None, 0.6, 'nearest-exact', None, True)
    """)
    assert len(marks) == 2 and "mode=how" in marks[0] and "antialias=True" in marks[1]
    for line in ("a = interpolate(x, scale_factor=2, mode='bicubic')", "c = interpolate(x, scale_factor=0.5)",
                 "d = interpolate(x, (4, 4), mode='nearest', antialias=False)",
                 "f = interpolate(x, None, 0.6, 'nearest-exact', None, True)"):
        assert line in text


@pytest.mark.slow
def test_converted_calls_give_pytorchs_values():
    problems = block_value_problems([(name, HEADER + textwrap.dedent(body).lstrip("\n")) for name, body in CASES])
    assert not problems, "\n".join(problems)


# The local functions inside a cell compiled by MindSpore (GRAPH_MODE) give what they give eagerly:
# their rank and padding checks read static shapes and literals only (the 1-D-targets path of
# ctc_loss reads target_lengths' values and is eager-only, as its note says).
GRAPH_SCRIPT = """
import sys
import numpy as np
import mindspore as ms
from mindspore import nn, ops
sys.path.insert(0, sys.argv[1])
import analysis.convert.support.helper_source as h

class Net(nn.Cell):
    def construct(self, x, w):
        lp = ops.log_softmax(x.reshape(4, 2, 12), 2)
        targets, lengths = ops.ones((2, 3), ms.int64), ops.full((2,), 4, dtype=ms.int64)
        return (h.conv2d(x, w, None, 1, "same"), h.conv2d(x[0], w, None, 1, 1), h.unfold(x, 2),
                h.adaptive_avg_pool1d(x.reshape(2, 3, 16), 3), h.adaptive_max_pool1d(x.reshape(2, 3, 16), 3, True)[1],
                h.interpolate(x.reshape(2, 3, 16), 5, mode="area"), h.local_response_norm(x, 2),
                h.avg_pool3d(x.reshape(1, 2, 3, 4, 4), 2, padding=(1, 0, 1), divisor_override=3),
                h.ctc_loss(lp, targets, lengths, ops.full((2,), 2, dtype=ms.int64)),
                h.CTCLoss(reduction="sum")(lp, targets, lengths, ops.full((2,), 1, dtype=ms.int64)))

rng = np.random.default_rng(0)
x, w = ms.tensor(rng.random((2, 3, 4, 4), np.float32)), ms.tensor(rng.random((5, 3, 3, 3), np.float32))
eager = Net()(x, w)
ms.set_context(mode=ms.GRAPH_MODE)
graph = Net()(x, w)
print([float(np.abs(a.asnumpy() - b.asnumpy()).max()) for a, b in zip(eager, graph)])
"""


@pytest.mark.slow
def test_local_functions_compile_in_graph_mode(tmp_path):
    script = tmp_path / "graph.py"
    script.write_text(GRAPH_SCRIPT)
    proc = subprocess.run([sys.executable, str(script), str(ROOT)], capture_output=True, text=True, cwd=tmp_path,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1] == str([0.0] * 10)
