"""torch.nn.init functions used as values (pytorch-tcn's `kernel_init_fn = dict(xavier_uniform=
nn.init.xavier_uniform_, ...)`, called later as `initialize(conv.weight, **kwargs)`): each becomes the
support helper of the same name, which takes PyTorch's parameters and makes, in place, the fill that the
rewrite of a direct call makes. Checked with real MindSpore draws under one seed."""
from __future__ import annotations

import ast
import inspect
import textwrap

import numpy as np
import pytest

from analysis.convert import convert_source
from analysis.convert.modules import state
from analysis.convert.support import helper_init

# (init function, arguments after the tensor as a call writes them)
CASES = [("normal_", "0.5, std=0.02"), ("trunc_normal_", "std=0.3, a=-0.5, b=0.5"), ("constant_", "0.25"),
         ("zeros_", ""), ("ones_", ""), ("eye_", ""), ("xavier_uniform_", "gain=2.0"), ("xavier_normal_", ""),
         ("kaiming_uniform_", "nonlinearity='relu'"), ("kaiming_normal_", "a=0.1, mode='fan_out'"),
         ("orthogonal_", "gain=0.5"), ("uniform_", "-0.2, 0.2"), ("uniform_", "0.1, 0.7"), ("uniform_", "")]


def test_every_helper_takes_pytorchs_parameters_and_the_initializer_a_call_gets():
    import torch

    for name in sorted(state.REFERENCED):
        ours = inspect.signature(getattr(helper_init, name))
        theirs = inspect.signature(getattr(torch.nn.init, name))
        expected = [(p.name, p.default) for p in theirs.parameters.values() if p.name != "generator"]
        assert [(p.name, p.default) for p in ours.parameters.values()] == expected, name
    for name, (cls, params) in state.INITIALIZERS.items():  # the rewrite of a call's table, one for one
        called = {n.func.attr: {k.arg: ast.unparse(k.value) for k in n.keywords}
                  for n in ast.walk(ast.parse(inspect.getsource(getattr(helper_init, name))))
                  if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr[:1].isupper()}
        assert called == {cls: {ms: torch_name for torch_name, _, ms in params}}, name


def _convert(body: str) -> str:
    source = "import torch\nimport torch.nn as nn\n" + textwrap.dedent(body)
    result = convert_source(source, path="inits.py")
    assert "torch" not in result.text.replace("torch.nn.init", ""), result.text
    assert "MIGRATE" not in result.text, result.text
    return result.text


@pytest.mark.parametrize("name,args", CASES)
def test_a_reference_called_later_fills_as_the_rewritten_call_does(name, args):
    import mindspore

    extra = f", {args}" if args else ""
    layer = "nn.Linear(6, 4)" if name == "eye_" else "nn.Conv1d(6, 4, 3)"  # eye_ takes a matrix
    text = _convert(f"""
        table = dict(chosen=nn.init.{name})

        class Called(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = {layer}
                nn.init.{name}(self.conv.weight{extra})

        class Referenced(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = {layer}
                initialize = table["chosen"]
                initialize(self.conv.weight{extra})
    """)
    space: dict = {}
    exec(compile(text, "inits.py", "exec"), space)
    weights = []
    for cls in ("Called", "Referenced"):
        mindspore.set_seed(7)
        weights.append(space[cls]().conv.weight.asnumpy())
    mindspore.set_seed(8)
    other = space["Referenced"]().conv.weight.asnumpy()
    np.testing.assert_array_equal(weights[0], weights[1])
    assert weights[1].dtype == np.float32
    if name in ("normal_", "trunc_normal_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
                "kaiming_normal_", "orthogonal_", "uniform_"):  # a draw: another seed draws other values
        assert not np.array_equal(weights[1], other), name


def test_a_helper_fills_a_plain_tensor_and_returns_it():
    import mindspore

    x = mindspore.Tensor(np.zeros((3, 3), np.float32))
    assert helper_init.eye_(x) is x
    np.testing.assert_array_equal(x.asnumpy(), np.eye(3, dtype=np.float32))
    drawn = helper_init.uniform_(mindspore.Tensor(np.zeros((400,), np.float32)), 2.0, 3.0).asnumpy()
    assert 2.0 <= drawn.min() and drawn.max() <= 3.0 and drawn.std() > 0.2


def test_the_gains_are_pytorchs():
    import torch

    for args in (("linear",), ("conv1d",), ("sigmoid",), ("tanh",), ("relu",), ("leaky_relu",),
                 ("leaky_relu", 0.2), ("selu",)):
        assert helper_init.calculate_gain(*args) == pytest.approx(torch.nn.init.calculate_gain(*args)), args
    with pytest.raises(ValueError):
        helper_init.calculate_gain("swish")
    text = _convert("gain = nn.init.calculate_gain('leaky_relu', 0.2)\n")
    space: dict = {}
    exec(compile(text, "gain.py", "exec"), space)
    assert space["gain"] == pytest.approx(torch.nn.init.calculate_gain("leaky_relu", 0.2))
