"""A GPT-style model converted by analysis.convert and checked with no manifest: attention through
F.scaled_dot_product_attention(is_causal=True), a norm written with F.layer_norm and an optional
bias, a ModuleDict holding a ModuleList, weight tying, and every class built from a config
dataclass's defaults (call-site arguments such as `Norm(cfg.width, bias=cfg.bias)` read its
fields). As converted, every entry passes on real torch and MindSpore; one broken line in the
converted tree fails at the layer it is in."""
from __future__ import annotations

import shutil
import textwrap

import pytest

from analysis.convert import convert_tree
from analysis.parity import check_parity_many, discover

MODEL = '''
    from dataclasses import dataclass

    import torch
    import torch.nn as nn
    import torch.nn.functional as F


    @dataclass
    class TinyConfig:
        vocab: int = 40
        context: int = 16
        width: int = 32
        heads: int = 4
        depth: int = 2
        dropout: float = 0.1
        bias: bool = False


    class Norm(nn.Module):
        def __init__(self, width, bias):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(width))
            self.bias = nn.Parameter(torch.zeros(width)) if bias else None

        def forward(self, x):
            return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)


    class Attention(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.heads = cfg.heads
            self.qkv = nn.Linear(cfg.width, 3 * cfg.width, bias=cfg.bias)
            self.out = nn.Linear(cfg.width, cfg.width, bias=cfg.bias)
            self.dropout = cfg.dropout

        def split(self, t):
            B, T, C = t.shape
            return t.reshape(B, T, self.heads, C // self.heads).transpose(1, 2)

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.qkv(x).chunk(3, dim=-1)
            y = F.scaled_dot_product_attention(self.split(q), self.split(k), self.split(v),
                                               dropout_p=self.dropout if self.training else 0.0, is_causal=True)
            return self.out(y.transpose(1, 2).reshape(B, T, C))


    class Layer(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.norm1 = Norm(cfg.width, bias=cfg.bias)
            self.attn = Attention(cfg)
            self.norm2 = Norm(cfg.width, cfg.bias)
            self.ff = nn.Sequential(nn.Linear(cfg.width, 4 * cfg.width), nn.GELU(),
                                    nn.Linear(4 * cfg.width, cfg.width), nn.Dropout(cfg.dropout))

        def forward(self, x):
            x = x + self.attn(self.norm1(x))
            return x + self.ff(self.norm2(x))


    class TinyGPT(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.body = nn.ModuleDict({
                "tok": nn.Embedding(cfg.vocab, cfg.width),
                "pos": nn.Embedding(cfg.context, cfg.width),
                "layers": nn.ModuleList([Layer(cfg) for _ in range(cfg.depth)]),
                "norm": Norm(cfg.width, cfg.bias),
            })
            self.head = nn.Linear(cfg.width, cfg.vocab, bias=False)
            self.body.tok.weight = self.head.weight

        def forward(self, idx):
            T = idx.shape[1]
            x = self.body["tok"](idx) + self.body.pos(torch.arange(T))
            for layer in self.body.layers:
                x = layer(x)
            return self.head(self.body.norm(x))
'''

# bug name -> (line of the converted model, its broken form, layer of TinyGPT it must be pinned on)
BUGS = {
    "causal": ("is_causal=True", "is_causal=False", "body.layers.0.attn"),
    "norm_eps": ("self.weight, self.bias, 1e-5)", "self.weight, self.bias, 1e-1)", "body.layers.0.norm1"),
    # the tie written with PyTorch's name: MindSpore's Embedding gets an unused `weight`, its table stays apart
    "untied": ("self.body.tok.embedding_table = self.head.weight", "self.body.tok.weight = self.head.weight", "head"),
}


def test_discovery_builds_every_class_from_the_config_defaults(tmp_path):
    (tmp_path / "tiny.py").write_text(textwrap.dedent(MODEL).lstrip())
    entries = {e["class"]: e for e in discover.candidates(tmp_path)}
    assert entries["Norm"]["args"] == [32] and entries["Norm"]["kwargs"] == {"bias": False}
    assert "TinyConfig()'s field defaults" in entries["Norm"]["arguments_from"]
    assert entries["Attention"]["args"] == [{"call": "tiny:TinyConfig"}]
    assert entries["TinyGPT"]["kwargs"] == {"cfg": {"call": "tiny:TinyConfig"}}


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("gpt_style")
    tmp.chmod(0o755)  # the sandboxed child runs as an unprivileged user and must read the trees
    src = tmp / "src"
    src.mkdir()
    (src / "tiny.py").write_text(textwrap.dedent(MODEL).lstrip())
    good = tmp / "good"
    convert_tree(src, good, jobs=1)
    trees = [(src, good, None)]
    # The broken trees are read for TinyGPT only: a manifest naming it as discovery builds it (inputs
    # still inferred in the box) spares the three other entry points' boxes (13-15 s each on CI) per bug.
    gpt_only = tmp / "gpt_only.toml"
    gpt_only.write_text('[[entry]]\nclass = "tiny:TinyGPT"\nkwargs = { cfg = { call = "tiny:TinyConfig" } }\n')
    for name, (old, new, _) in BUGS.items():
        bad = tmp / name
        shutil.copytree(good, bad)
        text = (bad / "tiny.py").read_text()
        assert old in text, f"{old!r} not in the converted model:\n{text}"
        (bad / "tiny.py").write_text(text.replace(old, new, 1))
        trees.append((src, bad, gpt_only))
    results = check_parity_many(trees, timeout_s=300, loss_steps=3)
    return {name: {e["class"]: e for e in report["entry_points"]}
            for name, report in zip(["good", *BUGS], results)}


@pytest.mark.slow
def test_converted_gpt_style_model_passes_without_a_manifest(reports):
    entries = reports["good"]
    assert set(entries) == {"Norm", "Attention", "Layer", "TinyGPT"}
    for name, entry in entries.items():
        assert entry["status"] == "pass", (name, entry["reason"])
        assert entry["gradients"] and all(g["status"] == "pass" for g in entry["gradients"]), name
        assert entry["loss_curve"]["status"] == "pass", name
    gpt = entries["TinyGPT"]
    assert not gpt["weights"]["unmatched_torch"] and not gpt["weights"]["unmatched_mindspore"]
    # the tied weight is one tensor on both sides: linked (differentiated, stepped) once
    [tied] = gpt["weights"]["no_counterpart_by_design"]
    assert tied["name"] == "head.weight" and "tied to body.tok.weight" in tied["reason"]
    assert gpt["input_source"].startswith("inferred from Embedding")
    assert entries["Norm"]["input_source"] == "inferred from parameter 'weight'"
    # dropout_p of the attention is the module's own float attribute: set to 0 on both sides
    assert any(row["layer"].endswith("attn") for row in gpt["random_parts_off"])


@pytest.mark.slow
@pytest.mark.parametrize("bug", list(BUGS))
def test_a_broken_line_fails_at_its_layer(reports, bug):
    entry = reports[bug]["TinyGPT"]
    assert entry["status"] == "fail", entry["reason"]
    assert entry["first_diverging_layer"] == BUGS[bug][2], entry["reason"]


def test_config_fields_read_through_an_annotation_and_in_arithmetic(tmp_path):
    (tmp_path / "cfg.py").write_text("from dataclasses import dataclass, field\n\n\n@dataclass\n"
                                     "class Sizes:\n    width: int = 8\n    heads: int = 2\n\n\n@dataclass\n"
                                     "class Other:\n    depth: int = 3\n    names: list = field(default_factory=list)\n")
    (tmp_path / "net.py").write_text(textwrap.dedent('''
        import torch.nn as nn
        from cfg import Sizes


        class Proj(nn.Module):
            def __init__(self, n_in, n_out):
                super().__init__()
                self.fc = nn.Linear(n_in, n_out)


        class Uses(nn.Module):
            def __init__(self, sizes: Sizes, scale=2):
                super().__init__()
                self.p = Proj(sizes.width // sizes.heads, -(-4 * sizes.width))


        class Unknown(nn.Module):
            def __init__(self, n):
                super().__init__()


        def build(other):
            return Unknown(other.names)
    '''))
    entries = {e["class"]: e for e in discover.candidates(tmp_path)}
    assert entries["Proj"]["args"] == [4, 32]
    assert entries["Proj"]["arguments_from"] == "net.py:15 with Sizes()'s field defaults"
    assert "args" not in entries["Unknown"]  # `other` is bound to no config: nothing guessed


def test_an_entry_killed_for_memory_says_how_to_raise_the_ceiling():
    from types import SimpleNamespace

    from analysis.parity.engine import _cut_short

    partial = {"phase": "train_step", "result": {"timings_s": {"forward_eval": 6.5}, "status": "pass"}}
    outcome = SimpleNamespace(stderr_tail="", stdout_tail="")
    entry = _cut_short({"class": "GPT"}, "memory limit exceeded (every process in the sandbox killed)", partial, outcome)
    assert entry["status"] == "error" and entry["cut_short"]["completed"] == ["forward_eval"]
    assert "--memory-mb" in entry["reason"] and "during the train step" in entry["reason"]
    timeout = _cut_short({"class": "GPT"}, "timed out after 300 s", partial, outcome)
    assert "--memory-mb" not in timeout["reason"]
    # Inputs from a call site: the reason names them, as what the activations grow with.
    job = {"class": "Perceiver", "inputs": [{"shape": [1, 224, 224, 3], "dtype": "float32"}],
           "arguments_from": "README.md:14"}
    big = _cut_short(job, "memory limit exceeded (every process in the sandbox killed)", partial, outcome)
    assert "activations of its inputs (1x224x224x3 from README.md:14)" in big["reason"]
    assert "porting.toml entry may give it smaller inputs" in big["reason"]
