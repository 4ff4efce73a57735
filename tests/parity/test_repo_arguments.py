"""Constructor arguments as model libraries' READMEs give them (issue 26, on
repositories nobody here had seen): a torch.nn layer (`mlp_act = nn.ReLU()`),
a tensor of statistics (`continuous_mean_std = torch.randn(10, 2)`), a
signature with placeholder names (`TCN(num_inputs, num_channels)`), and a
Keras twin of a model class, of the same name, beside it. Discovery is
static; the last tests build both frameworks and run the real check."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from analysis.parity import arguments, check_parity, discover

LIBRARY = {
    "tabular/__init__.py": '''
        from tabular.model import Tabular
    ''',
    "tabular/model.py": '''
        import torch
        from torch import nn

        class Gate(nn.Module):  # no layer of its own, built only by a helper function
            def forward(self, x):
                a, b = x.chunk(2, dim=-1)
                return a * torch.sigmoid(b)

        class Categories(nn.Module):  # adds each column's offset to its ids in place, as TabTransformer does
            def __init__(self, sizes=(3, 4, 5), dim=4):
                super().__init__()
                self.register_buffer("offsets", torch.tensor([0, 3, 7]))
                self.embed = nn.Embedding(sum(sizes), dim)

            def forward(self, ids):
                ids += self.offsets
                return self.embed(ids)

        def feed_forward(dim):
            return nn.Sequential(nn.Linear(dim, dim * 2), Gate())

        class Tabular(nn.Module):
            def __init__(self, *, dim, classes, act = None, final = None, mean_std = None):
                super().__init__()
                self.register_buffer("mean_std", mean_std if mean_std is not None else torch.zeros(dim, 2))
                self.ff = feed_forward(dim)
                self.hidden = nn.Linear(dim, 2 * dim)
                self.act = act if act is not None else nn.ReLU()
                self.out = nn.Linear(2 * dim, classes)
                self.final = final if final is not None else nn.Identity()

            def forward(self, x):
                x = self.ff((x - self.mean_std[:, 0]) / (self.mean_std[:, 1].abs() + 1))
                return self.final(self.out(self.act(self.hidden(x))))
    ''',
    "tabular/temporal.py": '''
        from typing import List
        import torch
        from torch import nn

        class Base(nn.Module):  # inherited by Stack and Plain, built inside nothing
            def reset(self):
                return None

        class Plain(Base):
            def __init__(self, width=4):
                super().__init__()
                self.fc = nn.Linear(width, width)

            def forward(self, x):
                return self.fc(x)

        class Stack(Base):
            def __init__(self, num_inputs: int, num_channels: List[int], kernel_size: int = 3, causal=True):
                super().__init__()
                sizes = [num_inputs] + list(num_channels)
                self.convs = nn.ModuleList([nn.Conv1d(a, b, kernel_size, padding=kernel_size // 2)
                                            for a, b in zip(sizes, sizes[1:])])

            def forward(self, x):
                for conv in self.convs:
                    x = torch.relu(conv(x))
                return x

        class Window(nn.Module):  # the README's n = 64 * 64 is meant as 64: the original constructor fails
            def __init__(self, dim, n):
                super().__init__()
                assert n <= 256, "n is the window's side"
                self.fc = nn.Linear(dim, dim)

            def forward(self, x):
                return self.fc(x)

        class Named(nn.Module):  # a mode string is no size: the checker chooses nothing for it
            def __init__(self, in_channels, mode):
                super().__init__()
                self.fc = nn.Linear(in_channels, in_channels)
                self.mode = mode
    ''',
    "tabular/keras.py": '''
        from tensorflow.keras.layers import Layer

        class Tabular(Layer):  # the Keras twin: no torch module, whatever its name
            def __init__(self, *, dim, classes):
                super().__init__()
    ''',
    "README.md": '''
        # tabular

        ```python
        import torch
        import torch.nn as nn
        from tabular import Tabular

        mean_std = torch.randn(6, 2)
        model = Tabular(dim = 6, classes = 3, act = nn.LeakyReLU(0.2), mean_std = mean_std)
        pred = model(torch.randn(4, 6))
        ```

        ```python
        import torch
        from torch import nn
        from tabular import Tabular

        final = nn.Softmax(dim = -1)
        model = Tabular(dim = 5, classes = 4, final = final)
        pred = model(torch.randn(2, 5))
        ```

        ```python
        import torch
        from tabular.model import Categories

        model = Categories()
        out = model(torch.randint(0, 3, (2, 3)))
        ```

        ```python
        from tabular.temporal import Stack, Named, Window

        stack = Stack(num_inputs, num_channels, causal = True)
        window = Window(dim = 4, n = 64 * 64)
        named = Named(in_channels, mode)
        ```

        ```python
        import tensorflow as tf
        from tabular.keras import Tabular

        layer = Tabular(dim = 6, classes = 3)
        ```
    ''',
}


@pytest.fixture()
def arguments_repo(tmp_path):
    root = tmp_path / "tabular-lib"
    for name, body in LIBRARY.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(body).lstrip())
    return root


def _by_name(entries):
    return {(e["module"], e["name"]): e for e in entries}


def test_a_torch_layer_and_a_tensor_given_as_arguments_are_values(arguments_repo):
    entries = _by_name(discover.candidates(arguments_repo))
    first = entries[("tabular.model", "Tabular")]
    assert first["kwargs"] == {"dim": 6, "classes": 3, "act": {"layer": "LeakyReLU", "args": [0.2]},
                               "mean_std": {"tensor": {"shape": [6, 2], "dtype": "float32"}}}
    # a layer bound to a name first, then passed
    assert entries[("tabular.model", "Tabular#2")]["kwargs"]["final"] == {"layer": "Softmax", "kwargs": {"dim": -1}}
    assert 'act = { layer = "LeakyReLU", args = [0.2] }' in arguments.manifest_hint(first, None)


def test_a_layer_argument_is_the_converted_layer_on_the_mindspore_side():
    import mindspore as ms
    import torch

    value = {"layer": "LayerNorm", "args": [4], "kwargs": {"eps": 1e-3}}
    torch_layer = arguments.resolve(value, ".", None)
    ms_layer = arguments.resolve(value, ".", None, converted=True)
    assert isinstance(torch_layer, torch.nn.LayerNorm) and isinstance(ms_layer, ms.nn.LayerNorm)
    assert ms_layer.epsilon == pytest.approx(1e-3)  # the converter's own mapping, eps -> epsilon
    x = np.random.default_rng(0).standard_normal((2, 4)).astype("float32")
    np.testing.assert_allclose(torch_layer(torch.from_numpy(x)).detach().numpy(),
                               ms_layer(ms.Tensor(x)).asnumpy(), atol=1e-5)


def test_a_tensor_argument_holds_the_same_values_on_both_sides():
    value = {"tensor": {"shape": [3, 2], "dtype": "float32"}}
    np.testing.assert_array_equal(arguments.resolve(value, ".", None).numpy(),
                                  arguments.resolve(value, ".", None, converted=True).asnumpy())
    ids = arguments.resolve({"tensor": {"shape": [8], "dtype": "int64", "range": [0, 5]}}, ".", None)
    assert ids.dtype.is_floating_point is False and int(ids.max()) < 5


def test_placeholder_sizes_are_chosen_and_said_only_where_the_name_says_what_they_are(arguments_repo):
    entries = _by_name(discover.candidates(arguments_repo))
    stack = entries[("tabular.temporal", "Stack")]
    assert stack["kwargs"] == {"causal": True, "num_inputs": 8, "num_channels": [8, 8]}
    assert stack["chosen_sizes"] == {"num_inputs": 8, "num_channels": [8, 8]}
    assert "sizes chosen by the checker: num_inputs = 8, num_channels = [8, 8]" in stack["arguments_from"]
    named = entries[("tabular.temporal", "Named")]  # `mode` is no size: still the one thing to give
    assert "args" not in named and "chosen_sizes" not in named


def test_a_block_built_by_a_helper_function_is_checked_inside_the_class_calling_it(arguments_repo):
    gate = _by_name(discover.candidates(arguments_repo))[("tabular.model", "Gate")]
    assert gate["within"]["name"] == "Tabular"
    assert gate["arguments_from"] == "inputs as Tabular's forward passes them"


def test_a_forward_changing_its_input_in_place_leaves_the_arrays_of_the_next_run_alone():
    from analysis.parity import frameworks as fw

    arrays = [np.array([[0, 1, 2]], dtype="int64")]
    first = fw.to_torch(arrays, "cpu")[0]
    first += 10  # what `x_categ += self.categories_offset` does to the tensor it is given
    assert arrays[0].tolist() == [[0, 1, 2]]
    assert fw.to_torch(arrays, "cpu")[0].tolist() == [[0, 1, 2]]


def test_a_base_class_is_not_looked_for_inside_its_subclass(arguments_repo):
    base = _by_name(discover.candidates(arguments_repo))[("tabular.temporal", "Base")]
    assert "within" not in base


def test_a_keras_class_named_like_a_module_is_no_entry(arguments_repo):
    modules = {e["module"] for e in discover.candidates(arguments_repo)}
    assert "tabular.keras" not in modules


@pytest.mark.slow
def test_the_library_is_checked_with_its_layer_tensor_and_chosen_size_arguments(arguments_repo):
    report = check_parity(arguments_repo, loss_steps=2, timeout_s=600)
    assert not report.get("error"), report.get("error")
    statuses = {e["name"]: (e["status"], e["reason"][:300]) for e in report["entry_points"]}
    for name in ("Tabular", "Tabular#2", "Stack", "Gate", "Plain", "Categories"):
        assert statuses[name][0] == "pass", (name, statuses)
    assert statuses["Named"][0] == "skipped", statuses
    # the repository's own constructor fails with its README's values: not an error of the conversion or the check
    assert statuses["Window"][0] == "torch_fail", statuses
    assert "the original PyTorch constructor fails with these arguments (from README.md:" in statuses["Window"][1]
    from analysis.cli.parity import format_table

    stack = next(e for e in report["entry_points"] if e["name"] == "Stack")
    assert stack["chosen_sizes"] == {"num_inputs": 8, "num_channels": [8, 8]}
    assert "Stack: sizes chosen by the checker, num_inputs = 8, num_channels = [8, 8]" in format_table(report)
