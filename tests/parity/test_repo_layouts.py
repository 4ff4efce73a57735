"""Repositories laid out the way courses and model libraries are (issue 26):
folders that are not identifiers, sizes set under `__main__` and by argparse,
call sites in tests and README blocks resolved through imports, module-level
`nn.Sequential` objects, a two-input RNN. Discovery is static; the last test
runs the real parity check on the same tree."""
from __future__ import annotations

import textwrap

import pytest

from analysis.parity import check_parity, discover

FILES = {
    "1-1.Basics/model.py": '''
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self, n_in, n_class):
                super().__init__()
                self.fc = nn.Linear(n_in, n_class)

            def forward(self, x):
                return self.fc(x)
    ''',
    "1-1.Basics/train.py": '''
        import argparse
        import torch
        from model import Net

        parser = argparse.ArgumentParser()
        parser.add_argument("--n-in", type=int, default="12")
        parser.add_argument("--epochs", type=int, default=100)
        opt = parser.parse_args()

        def train(net):
            for _ in range(opt.epochs):
                pass

        if __name__ == "__main__":
            classes = ["cat", "dog", "bird"]
            n_class = len(classes)
            net = Net(opt.n_in, n_class)
            train(net)
    ''',
    "02 Intro/regression.py": '''
        import torch
        import torch.nn as nn

        class Net(nn.Module):  # another Net: its call site must not feed 1-1.Basics' Net
            def __init__(self, n_in):
                super().__init__()
                self.fc = nn.Linear(n_in, 1)

            def forward(self, x):
                return self.fc(x)

        class Recurrent(nn.Module):
            def __init__(self, n_in=3, hidden=6):
                super().__init__()
                self.rnn = nn.RNN(n_in, hidden, batch_first=True)
                self.out = nn.Linear(hidden, 2)

            def forward(self, x, h_state):
                y, h = self.rnn(x, h_state)
                return self.out(y), h

        class Block(nn.Module):  # its sizes exist only inside Tower
            def __init__(self, cin, cout):
                super().__init__()
                self.fc = nn.Linear(cin, cout)

            def forward(self, x, gate):
                return self.fc(x) * gate

        class Tower(nn.Module):
            def __init__(self, block, depth=2):
                super().__init__()
                self.width = 4
                self.blocks = nn.ModuleList([block(self.width, self.width) for _ in range(depth)])
                self.head = nn.Linear(self.width, 1)

            def forward(self, x):
                for block in self.blocks:
                    x = block(x, torch.sigmoid(x))
                return self.head(x)

        G = nn.Sequential(nn.Linear(8, 4), nn.Tanh(), nn.Linear(4, 2))
        criterion = nn.MSELoss()

        if __name__ == "__main__":
            model = Net(5)
            tower = Tower(Block)
            rnn = Recurrent(3, 6)
            x = torch.randn(2, 5, 3)
            h0 = torch.zeros(1, 2, 6)
            out, h = rnn(x, h0)
    ''',
    "02 Intro/lm.py": '''
        import torch.nn as nn

        class LM(nn.Module):
            def __init__(self, vocab, embed, hidden):
                super().__init__()
                self.embed = nn.Embedding(vocab, embed)
                self.lstm = nn.LSTM(embed, hidden, num_layers=2, batch_first=True)
                self.out = nn.Linear(hidden, vocab)

            def forward(self, x, h):
                y, (h, c) = self.lstm(self.embed(x), h)
                return self.out(y), (h, c)

        if __name__ == "__main__":
            lm = LM(50, 8, 16)  # fed from the data only: the state's shape comes from the LSTM
    ''',
    "blocks/__init__.py": '''
        from blocks.layers import Gate
    ''',
    "blocks/layers.py": '''
        import torch
        import torch.nn as nn

        class Halve(nn.Module):  # no layer of its own: only Gate's forward shows what it takes
            def forward(self, x):
                a, b = x.chunk(2, dim=-1)
                return a * torch.sigmoid(b)

        class Gate(nn.Module):
            def __init__(self, dim, gated=False):
                super().__init__()
                self.proj = nn.Linear(dim, 2 * dim)
                self.act = Halve()
                self.gate = nn.Linear(dim, dim) if gated else None

            def forward(self, x):
                y = self.act(self.proj(x))
                return y * self.gate(x).sigmoid() if self.gate is not None else y
    ''',
    "tests/test_gate.py": '''
        import pytest
        import torch
        from blocks import Gate

        @pytest.mark.parametrize("gated", [False, True])
        def test_gate(gated):
            layer = Gate(dim=8, gated=gated)
            x = torch.randn(2, 8)
            assert layer(x).shape == (2, 8)
    ''',
    "README.md": '''
        # blocks

        ```bash
        pip install blocks
        ```

        ```python
        import torch
        from blocks import Gate

        gate = Gate(16)
        y = gate(torch.randn(3, 16))
        ```
    ''',
}


@pytest.fixture()
def course_repo(tmp_path):
    root = tmp_path / "course"
    for name, body in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(body).lstrip())
    return root


def _by_name(entries):
    return {(e["module"], e["name"]): e for e in entries}


def test_folders_that_are_not_identifiers_are_named_by_file(course_repo):
    entries = _by_name(discover.candidates(course_repo))
    assert ("1-1.Basics/model.py", "Net") in entries
    assert ("02 Intro/regression.py", "Net") in entries


def test_main_block_constants_and_argparse_defaults_give_the_arguments(course_repo):
    net = _by_name(discover.candidates(course_repo))[("1-1.Basics/model.py", "Net")]
    # n_in from `--n-in` (type=int applied to "12"), n_class = len of a literal list under __main__;
    # not regression.py's `Net(5)`, which builds another class of the same name.
    assert net["args"] == [12, 3]
    assert net["arguments_from"].startswith("1-1.Basics/train.py:")


def test_call_sites_in_tests_and_readme_give_entries_and_inputs(course_repo):
    entries = _by_name(discover.candidates(course_repo))
    gates = [e for (module, _), e in entries.items() if module == "blocks.layers" and e["class"] == "Gate"]
    settings = sorted((e["args"], sorted(e["kwargs"].items()), e["inputs"][0]["shape"]) for e in gates)
    assert settings == [([], [("dim", 8), ("gated", False)], [2, 8]),
                        ([], [("dim", 8), ("gated", True)], [2, 8]),
                        ([16], [], [3, 16])]
    readme = next(e for e in gates if e["args"] == [16])
    assert readme["arguments_from"] == "README.md:11"


def test_two_input_forward_gets_each_input_from_its_call_site(course_repo):
    rnn = _by_name(discover.candidates(course_repo))[("02 Intro/regression.py", "Recurrent")]
    assert rnn["args"] == [3, 6]
    assert [i["shape"] for i in rnn["inputs"]] == [[2, 5, 3], [1, 2, 6]]


def test_module_level_sequential_is_an_entry_and_a_criterion_is_not(course_repo):
    entries = _by_name(discover.candidates(course_repo))
    assert entries[("02 Intro/regression.py", "G")]["instance"] == "G"
    assert ("02 Intro/regression.py", "criterion") not in entries


def test_a_module_without_layers_takes_its_inputs_from_a_parent(course_repo):
    halve = _by_name(discover.candidates(course_repo))[("blocks.layers", "Halve")]
    assert halve["within"]["class"] == "Gate" and halve["within"]["inputs"][0]["shape"] == [3, 16]
    assert halve["arguments_from"] == "inputs as Gate's forward passes them"


def test_a_block_sized_only_inside_its_parent_is_checked_within_it(course_repo):
    block = _by_name(discover.candidates(course_repo))[("02 Intro/regression.py", "Block")]
    assert block["within"]["class"] == "Tower" and block["within"]["args"] == [{"class": "02 Intro/regression.py:Block"}]
    assert block["arguments_from"].startswith("as Tower builds it (02 Intro/regression.py:")


@pytest.mark.slow
def test_the_whole_course_is_checked_and_passes(course_repo):
    report = check_parity(course_repo, loss_steps=2, timeout_s=600)
    assert not report.get("error"), report.get("error")
    statuses = {(e["module"], e["name"]): (e["status"], e["reason"][:300]) for e in report["entry_points"]}
    checked = {k: v for k, v in statuses.items() if v[0] in ("pass", "fail")}
    for key in [("1-1.Basics/model.py", "Net"), ("02 Intro/regression.py", "Net"),
                ("02 Intro/regression.py", "Recurrent"), ("02 Intro/regression.py", "G"),
                ("blocks.layers", "Gate"), ("blocks.layers", "Gate#2"), ("blocks.layers", "Gate#3"),
                ("02 Intro/regression.py", "Tower"), ("02 Intro/regression.py", "Block"), ("blocks.layers", "Halve"),
                ("02 Intro/lm.py", "LM")]:
        assert statuses[key][0] == "pass", (key, statuses[key], statuses)
    assert len(checked) == len(statuses), statuses
    block = next(e for e in report["entry_points"] if e["name"] == "Block")
    assert block["built_inside"] == "Tower" and block["within_path"] == "blocks.0"
    assert [i["shape"] for i in block["inputs"]] == [[4, 4], [4, 4]]  # x and gate, as Tower's forward passes them
    lm = next(e for e in report["entry_points"] if e["name"] == "LM")
    assert lm["inputs"][1] == {"tuple": [{"shape": [2, 4, 16], "dtype": "float32"}] * 2}  # (h0, c0): 2 layers, batch 4
    assert lm["input_source"].endswith("the state from LSTM 'lstm''s sizes")
    halve = next(e for e in report["entry_points"] if e["name"] == "Halve")
    assert [i["shape"] for i in halve["inputs"]] == [[3, 32]]  # Gate(16)'s projection, fed the README's input


def test_a_size_computed_from_data_is_the_only_value_left_to_give(tmp_path):
    script = tmp_path / "lm" / "main.py"
    script.parent.mkdir()
    script.write_text(textwrap.dedent('''
        import torch.nn as nn
        from data_utils import Corpus, load_tags

        embed_size = 128
        corpus = Corpus()
        ids = corpus.get_data("data/train.txt")
        vocab_size = len(corpus.dictionary)
        n_tags = len(load_tags())

        class LM(nn.Module):
            def __init__(self, vocab_size, embed_size, num_layers=1):
                super().__init__()
                self.embed = nn.Embedding(vocab_size, embed_size)

        class Tagger(nn.Module):
            def __init__(self, embed_size, tags):
                super().__init__()
                self.out = nn.Linear(embed_size, tags)

        model = LM(vocab_size, embed_size, num_layers=2)
        tagger = Tagger(embed_size, n_tags)
    ''').lstrip())
    entries = {e["class"]: e for e in discover.candidates(tmp_path)}
    # A vocabulary size only sets how many rows the table has: a stand-in builds the same layers, and says so.
    assert entries["LM"]["kwargs"] == {"embed_size": 128, "num_layers": 2, "vocab_size": 100}
    assert entries["LM"]["stand_ins"] == {"vocab_size": 100}
    assert "vocab_size = 100 standing in for a size the script computes from its data" in entries["LM"]["arguments_from"]
    # Any other value from the data is the one thing left to give.
    assert entries["Tagger"]["kwargs"] == {"embed_size": 128}
    assert entries["Tagger"]["arguments_from"] == "lm/main.py:21, except tags (computed from the script's own data)"


@pytest.mark.slow
def test_a_module_named_by_file_gets_its_checkpoint_through_the_outbox(tmp_path):
    # The outbox takes only flat names of a fixed form; "02 Intro/regression.py" has a slash and a space.
    root = tmp_path / "repo"
    (root / "02 Intro").mkdir(parents=True)
    (root / "02 Intro" / "regression.py").write_text(textwrap.dedent('''
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 2)

            def forward(self, x):
                return self.fc(x)
    ''').lstrip())
    report = check_parity(root, loss_steps=2, timeout_s=300, checkpoint_dir=tmp_path / "ckpt")
    entry = report["entry_points"][0]
    assert (entry["module"], entry["status"]) == ("02 Intro/regression.py", "pass"), entry.get("reason")
    assert entry["checkpoint"] == str((tmp_path / "ckpt" / "02_Intro.regression.Net.ckpt").resolve())
    assert (tmp_path / "ckpt" / "02_Intro.regression.Net.ckpt").stat().st_size > 0


LIBRARY = {
    "mixer/__init__.py": '''
        from mixer.model import Mixer
        from mixer.wrapper import Wrapper
    ''',
    "mixer/model.py": '''
        from torch import nn

        class Residual(nn.Module):
            def __init__(self, dim, fn):
                super().__init__()
                self.fn = fn
                self.norm = nn.LayerNorm(dim)

            def forward(self, x):
                return self.fn(self.norm(x)) + x

        pair = lambda x: x if isinstance(x, tuple) else (x, x)

        def Mixer(*, dim, depth, num_classes, shape):
            h, w = pair(shape)
            assert h * w == 5, "the shape gives 5 tokens"
            return nn.Sequential(
                *[Residual(dim, nn.Linear(dim, dim)) for _ in range(depth)],
                nn.Linear(dim, num_classes),
            )
    ''',
    "mixer/wrapper.py": '''
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self, dim_in, dim_out):
                super().__init__()
                self.dim_out = dim_out
                self.fc = nn.Linear(dim_in, dim_out)

            def forward(self, x):
                return self.fc(x)

        class Gain(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.fc = nn.Linear(dim, dim)

            def forward(self, x):
                return self.fc(x).sigmoid() * x

        class Wrapper(nn.Module):
            def __init__(self, net, scale=2.0, use_gain=False):
                super().__init__()
                assert isinstance(net, Net), "Wrapper takes a Net"
                self.net = net
                self.scale = scale
                self.gain = Gain(net.dim_out) if use_gain else None  # only under a flag

            def forward(self, x):
                y = self.net(x) * self.scale
                return self.gain(y) if self.gain is not None else y
    ''',
    "README.md": '''
        # mixer

        ```python
        import torch
        from mixer import Mixer

        model = Mixer(dim = 8, depth = 2, num_classes = 3, shape = (5, 1))
        pred = model(torch.randn(2, 5, 8))
        ```

        ```python
        import torch
        from torch import nn
        from mixer import Wrapper
        from mixer.wrapper import Net

        net = Net(dim_in = 4, dim_out = 6)
        wrapper = Wrapper(net, scale = 0.5)
        out = wrapper(torch.randn(2, 4))

        gated = Wrapper(net, use_gain = True)
        x = nn.Parameter(torch.zeros(3, 4).normal_(0, 1e-2))
        out = gated(x)
        ```
    ''',
}


@pytest.fixture()
def library_repo(tmp_path):
    root = tmp_path / "library"
    for name, body in LIBRARY.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(body).lstrip())
    return root


def test_a_factory_with_required_arguments_takes_them_from_the_readme(library_repo):
    # `def Mixer(*, dim, ...): return nn.Sequential(...)`, called in the README (through the package's re-export)
    mixer = _by_name(discover.candidates(library_repo))[("mixer.model", "Mixer()")]
    assert (mixer["factory"], mixer["class"]) == ("Mixer", "Sequential")
    assert mixer["kwargs"] == {"dim": 8, "depth": 2, "num_classes": 3, "shape": {"tuple": [5, 1]}}
    assert mixer["inputs"] == [{"shape": [2, 5, 8], "dtype": "float32"}]
    assert mixer["arguments_from"] == "README.md:7"


def test_a_tuple_argument_reaches_the_constructor_as_a_tuple(library_repo):
    from analysis.parity import arguments

    mixer = _by_name(discover.candidates(library_repo))[("mixer.model", "Mixer()")]
    assert arguments.resolve(mixer["kwargs"], str(library_repo), None)["shape"] == (5, 1)
    assert 'shape = { tuple = [5, 1] }' in arguments.manifest_hint(mixer, None)


def test_a_block_built_only_by_a_factory_is_checked_within_it(library_repo):
    block = _by_name(discover.candidates(library_repo))[("mixer.model", "Residual")]
    assert block["within"]["factory"] == "Mixer" and block["within"]["kwargs"]["dim"] == 8
    assert block["arguments_from"] == "as Mixer() builds it (README.md:7)"


def test_a_model_built_earlier_in_the_scope_is_passed_as_its_call(library_repo):
    wrapper = _by_name(discover.candidates(library_repo))[("mixer.wrapper", "Wrapper")]
    assert wrapper["args"] == [{"call": "mixer.wrapper:Net", "kwargs": {"dim_in": 4, "dim_out": 6}}]
    assert wrapper["kwargs"] == {"scale": 0.5} and wrapper["inputs"][0]["shape"] == [2, 4]


def test_a_class_given_as_an_argument_is_the_class_its_module_checks_against(library_repo):
    from analysis.parity import runner

    try:
        net = runner.load_class(str(library_repo), "mixer.wrapper", "Net")
        wrapper = runner.load_class(str(library_repo), "mixer.wrapper", "Wrapper")
        assert net is runner.load_class(str(library_repo), "mixer.wrapper", "Net")
        wrapper(net(dim_in=4, dim_out=6))  # `assert isinstance(net, Net)` holds
    finally:
        runner._purge(str(library_repo))
        runner._LOADED["from"] = None


def test_a_block_built_under_a_flag_lists_every_parent_that_may_hold_it(library_repo):
    gain = _by_name(discover.candidates(library_repo))[("mixer.wrapper", "Gain")]
    assert gain["within"]["name"] == "Wrapper" and gain["within"]["kwargs"] == {"scale": 0.5}
    assert [p["name"] for p in gain["within_also"]] == ["Wrapper#2"]


def test_a_tensor_filled_in_place_or_wrapped_in_a_parameter_is_an_example_input(library_repo):
    gated = _by_name(discover.candidates(library_repo))[("mixer.wrapper", "Wrapper#2")]
    assert gated["inputs"] == [{"shape": [3, 4], "dtype": "float32"}]


@pytest.mark.slow
def test_the_library_is_checked_from_its_readme_and_passes(library_repo):
    report = check_parity(library_repo, loss_steps=2, timeout_s=600)
    assert not report.get("error"), report.get("error")
    statuses = {e["name"]: (e["status"], e["reason"][:300]) for e in report["entry_points"]}
    for name in ("Mixer()", "Residual", "Wrapper", "Wrapper#2", "Net", "Gain"):
        assert statuses[name][0] == "pass", (name, statuses)
    block = next(e for e in report["entry_points"] if e["name"] == "Residual")
    assert block["within_path"] == "0" and [i["shape"] for i in block["inputs"]] == [[2, 5, 8]]
    gain = next(e for e in report["entry_points"] if e["name"] == "Gain")  # Wrapper builds none; Wrapper#2 does
    assert (gain["built_inside"], gain["within_path"]) == ("Wrapper#2", "gain")
    assert gain["arguments_from"] == "as Wrapper#2 builds it (README.md:21)"
    assert [i["shape"] for i in gain["inputs"]] == [[3, 6]]


# siren-pytorch's and g-mlp-pytorch's patterns (issues 26, 29): weights drawn in place before they become
# Parameters (no MindSpore CPU kernel for uniform_: the converted module could not be built), a causal mask
# made by an in-place call on a new tensor, a grid cloned and flagged for gradients in forward
INITIALISED = {
    "sine/__init__.py": "",
    "sine/layers.py": '''
        import math
        import torch
        from torch import nn
        import torch.nn.functional as F

        class SineLayer(nn.Module):
            def __init__(self, dim_in, dim_out, w0 = 1.):
                super().__init__()
                weight = torch.zeros(dim_out, dim_in)
                bias = torch.zeros(dim_out)
                w_std = math.sqrt(6 / dim_in) / w0
                weight.uniform_(-w_std, w_std)
                bias.uniform_(-w_std, w_std)
                self.weight = nn.Parameter(weight)
                self.bias = nn.Parameter(bias)
                self.w0 = w0

            def forward(self, x):
                return torch.sin(self.w0 * F.linear(x, self.weight, self.bias))

        class CausalMix(nn.Module):
            def __init__(self, seq, dim):
                super().__init__()
                self.weight = nn.Parameter(torch.zeros(seq, seq).normal_(0, 0.1))
                self.proj = nn.Linear(dim, dim)

            def forward(self, x):
                n = x.shape[1]
                mask = torch.ones(n, n).triu_(1).bool()
                weight = self.weight[:n, :n].masked_fill(mask, 0.)
                return weight @ self.proj(x)

        class Field(nn.Module):
            def __init__(self, net, size):
                super().__init__()
                self.net = net
                self.register_buffer("grid", torch.linspace(-1, 1, size)[:, None].repeat(1, 2))

            def forward(self, x):
                coords = self.grid.clone().detach().requires_grad_()
                return self.net(coords) * x
    ''',
    "README.md": '''
        # sine

        ```python
        import torch
        from sine.layers import SineLayer, CausalMix, Field

        layer = SineLayer(dim_in = 2, dim_out = 8, w0 = 30.)
        out = layer(torch.randn(4, 2))

        mix = CausalMix(seq = 6, dim = 8)
        out = mix(torch.randn(2, 6, 8))

        field = Field(layer, size = 5)
        img = field(torch.randn(5, 8))
        ```
    ''',
}


@pytest.mark.slow
def test_weights_drawn_in_place_and_masks_made_in_place_are_checked_and_pass(tmp_path):
    root = tmp_path / "initialised"
    for name, body in INITIALISED.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(body).lstrip())
    report = check_parity(root, loss_steps=2, timeout_s=600)
    assert not report.get("error"), report.get("error")
    statuses = {e["name"]: (e["status"], e["reason"][:300]) for e in report["entry_points"]}
    for name in ("SineLayer", "CausalMix", "Field"):
        assert statuses[name][0] == "pass", (name, statuses)
