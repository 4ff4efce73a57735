"""A model library written as pytorch-tcn is (issue 26, on repositories nobody here had seen): the
initialisers kept as values in a module-level dict and called later on a weight, with a gain from
nn.init.calculate_gain; weight normalisation imported in a try/except (the new function first); a block whose forward takes flags beside the tensor (`inference`, `embeddings`)
and is built only by its parent; layers that extend nn.Conv1d (the first layer an input shape is read
from); a layer whose constructor accepts only some kernel sizes; a block only an uncalled factory builds;
and a README giving placeholder names, not values. On main before this the model errored (the converted tree kept
nn.init.xavier_uniform_ under MindSpore's `nn`), the block was skipped for want of an input, and the
transposed layer skipped for the kernel size the checker chose."""
from __future__ import annotations

import textwrap

import pytest

from analysis.parity import check_parity, discover

LIBRARY = {
    "temporal/__init__.py": '''
        from temporal.network import Network
        from temporal.conv import CausalConv1d, UpConv1d
    ''',
    "temporal/conv.py": '''
        import torch.nn as nn
        import torch.nn.functional as F

        class CausalConv1d(nn.Conv1d):
            def __init__(self, in_channels, out_channels, kernel_size, dilation=1):
                super().__init__(in_channels, out_channels, kernel_size, dilation=dilation)
                self.left = (kernel_size - 1) * dilation

            def forward(self, x):
                return super().forward(F.pad(x, (self.left, 0)))

        class UpConv1d(nn.ConvTranspose1d):
            def __init__(self, in_channels, out_channels, kernel_size, stride=1):
                if kernel_size != 2 * stride:
                    raise ValueError(f"only kernel_size == 2 * stride, got {kernel_size} and {stride}")
                super().__init__(in_channels, out_channels, kernel_size, stride=stride)
    ''',
    "temporal/network.py": '''
        from typing import List

        import torch
        import torch.nn as nn

        from temporal.conv import CausalConv1d

        try:
            from torch.nn.utils.parametrizations import weight_norm
        except ImportError:
            from torch.nn.utils import weight_norm

        initializers = dict(
            xavier_uniform=nn.init.xavier_uniform_,
            kaiming_normal=nn.init.kaiming_normal_,
            uniform=nn.init.uniform_,
        )

        def get_initializer(name, activation):
            if name == "xavier_uniform":
                return initializers[name], dict(gain=nn.init.calculate_gain(activation))
            if name == "kaiming_normal":
                return initializers[name], dict(nonlinearity=activation)
            return initializers[name], dict()

        class Block(nn.Module):
            def __init__(self, n_inputs, n_outputs, kernel_size, dilation, initializer):
                super().__init__()
                self.conv1 = CausalConv1d(n_inputs, n_outputs, kernel_size, dilation)
                self.conv2 = weight_norm(CausalConv1d(n_outputs, n_outputs, kernel_size, dilation))
                self.relu = nn.ReLU()
                self.downsample = nn.Conv1d(n_inputs, n_outputs, 1) if n_inputs != n_outputs else None
                initialize, kwargs = get_initializer(initializer, "relu")
                initialize(self.conv1.weight, **kwargs)
                initialize(self.conv2.weight, **kwargs)  # a weight weight_norm computes: a copy, in PyTorch too

            def forward(self, x, embeddings, inference):
                if inference:
                    raise ValueError("streaming is not what is checked here")
                out = self.relu(self.conv1(x))
                if embeddings is not None:
                    out = out + embeddings
                out = self.relu(self.conv2(out))
                res = x if self.downsample is None else self.downsample(x)
                return self.relu(out + res), out

        class Gated(nn.Module):  # built only by a factory nothing calls (mlp-mixer's Permutator blocks)
            def __init__(self, dim, fn):
                super().__init__()
                self.fn, self.gate = fn, nn.Linear(dim, dim)

            def forward(self, x):
                return self.fn(x) * torch.sigmoid(self.gate(x))

        def gated_stack(*, dim, depth):
            return nn.Sequential(*[Gated(dim, nn.Linear(dim, dim)) for _ in range(depth)])

        class Network(nn.Module):
            def __init__(self, num_inputs: int, num_channels: List[int], kernel_size: int = 3,
                         kernel_initializer: str = "xavier_uniform"):
                super().__init__()
                blocks = []
                for i, width in enumerate(num_channels):
                    blocks.append(Block(num_inputs if i == 0 else num_channels[i - 1], width, kernel_size, 2 ** i,
                                        kernel_initializer))
                self.network = nn.ModuleList(blocks)

            def forward(self, x, embeddings=None, inference=False):
                for block in self.network:
                    x, _ = block(x, embeddings=embeddings, inference=inference)
                return x
    ''',
    "README.md": '''
        # temporal

        ```python
        from temporal import Network

        model = Network(num_inputs, num_channels, kernel_initializer = "kaiming_normal")
        ```

        ```python
        from temporal import CausalConv1d, UpConv1d

        conv = CausalConv1d(in_channels, out_channels, kernel_size)
        conv_t = UpConv1d(in_channels, out_channels, kernel_size)
        ```
    ''',
}


@pytest.fixture()
def temporal_repo(tmp_path):
    root = tmp_path / "temporal-lib"
    for name, body in LIBRARY.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(body).lstrip())
    return root


def test_the_input_layer_may_be_a_class_extending_a_torch_layer():
    import torch

    from analysis.parity import checks

    class Causal(torch.nn.Conv1d):
        pass

    class Holder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.first = Causal(5, 6, 3)

        def forward(self, x):
            return self.first(x)

    class RNN(torch.nn.Module):  # a user class named like a torch layer is none
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(7, 2)

        def forward(self, x):
            return self.fc(x)

    specs, how = checks.infer_inputs(Holder(), "cpu")
    assert specs[0]["shape"][:2] == [4, 5] and len(specs[0]["shape"]) == 3, (specs, how)
    assert how == "inferred from Conv1d 'first'"
    specs, how = checks.infer_inputs(RNN(), "cpu")
    assert specs[0]["shape"][-1] == 7 and how == "inferred from Linear 'fc'"


def test_flags_a_parent_passes_are_kept_beside_the_recorded_tensors():
    import torch

    from analysis.parity import frameworks as fw
    from analysis.parity import within

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 3)

        def forward(self, x, embeddings, inference, mask=None):
            assert inference is False and embeddings is None and mask is None
            return self.fc(x)

    class Parent(torch.nn.Module):
        def __init__(self, positional):
            super().__init__()
            self.block, self.positional = Block(), positional

        def forward(self, x):
            if self.positional:
                return self.block(x, None, False)
            return self.block(x, embeddings=None, inference=False, mask=None)

    inputs = [{"shape": [2, 3], "dtype": "float32"}]
    by_keyword = Parent(False)
    specs = within.recorded_inputs(by_keyword, "block", by_keyword.block, inputs, "cpu", fw)
    assert specs == [{"shape": [2, 3], "dtype": "float32"}, {"constant": None, "name": "embeddings"},
                     {"constant": False, "name": "inference"}]  # mask=None is forward's default: left out
    positional = Parent(True)
    specs = within.recorded_inputs(positional, "block", positional.block, inputs, "cpu", fw)
    assert specs == [{"shape": [2, 3], "dtype": "float32", "name": "x"}, {"constant": None, "name": "embeddings"},
                     {"constant": False, "name": "inference"}]
    block = Block()
    fw.keyword_inputs(block, ["x"], "forward", {"embeddings": None, "inference": False})
    assert block(torch.zeros(2, 3)).shape == (2, 3)


def test_the_sizes_tried_after_a_refusal_are_bounded_and_change_one_size_first():
    from analysis.parity import sizes

    tried = sizes.alternatives({"in_channels": 8, "out_channels": 8, "kernel_size": 3})
    assert len(tried) <= sizes.MAX_RETRIES
    assert {"in_channels": 8, "out_channels": 8, "kernel_size": 2} in tried[:3]
    assert all(sum(t[k] != v for k, v in {"in_channels": 8, "out_channels": 8, "kernel_size": 3}.items()) == 1
               for t in tried[:6])


def test_discovery_builds_the_block_inside_its_parent(temporal_repo):
    entries = {e["name"]: e for e in discover.candidates(temporal_repo)}
    assert entries["Network"]["chosen_sizes"] == {"num_inputs": 8, "num_channels": [8, 8]}
    assert entries["Block"]["within"]["name"] == "Network"
    assert entries["UpConv1d"]["chosen_sizes"]["kernel_size"] == 3
    assert entries["Gated"]["built_only_by"] == ["factory temporal.network:gated_stack"] and "within" not in entries["Gated"]
    assert "built_only_by" not in entries["Block"]


@pytest.mark.slow
def test_the_temporal_library_is_checked(temporal_repo):
    report = check_parity(temporal_repo, loss_steps=2, timeout_s=600)
    assert not report.get("error"), report.get("error")
    entries = {e["name"]: e for e in report["entry_points"]}
    statuses = {name: (e["status"], e["reason"][:300]) for name, e in entries.items()}
    for name in ("Network", "Block", "CausalConv1d", "UpConv1d"):
        assert statuses[name][0] == "pass", (name, statuses)
    block = entries["Block"]
    assert "embeddings=None, inference=False" in block["input_source"], block["input_source"]
    assert block["inputs"][0]["shape"][1] == 8
    up = entries["UpConv1d"]
    assert up["chosen_sizes"] == {"in_channels": 8, "out_channels": 8, "kernel_size": 2}
    assert "kernel_size = 3 (ValueError: only kernel_size == 2 * stride, got 3 and 1)" in up["arguments_from"]
    assert up["kwargs"]["kernel_size"] == 2
    gated = entries["Gated"]  # skipped, naming both arguments and the factory a person would call
    assert gated["status"] == "skipped", statuses
    assert "missing required arguments: 'dim', 'fn'" in gated["reason"], gated["reason"]
    assert "only inside gated_stack(), which nothing in it calls" in gated["reason"], gated["reason"]
    assert 'factory = "temporal.network:gated_stack"' in gated["reason"], gated["reason"]
