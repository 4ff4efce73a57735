"""Random APIs are compared by shape, dtype and how their draws are distributed (compare.distribution_difference),
never value by value: before, shape and dtype alone passed a MindSpore draw from another distribution
(U[0, 1) for PyTorch's U[-1, 1)). Real draws of both frameworks, 4096 of each."""
from __future__ import annotations

import numpy as np
import pytest

from analysis.verify.compare import difference, plain

torch = pytest.importorskip("torch")
mindspore = pytest.importorskip("mindspore")
from mindspore import ops  # noqa: E402

from analysis.convert.support import helper_random  # noqa: E402


def _torch(fill, *args, dtype=None):
    return plain(getattr(torch.zeros(64, 64, dtype=dtype or torch.float32), fill)(*args))


def _ms(tensor):
    return plain(tensor)


def test_draws_of_the_same_distribution_pass():
    x = ops.zeros((64, 64))
    for fill, args, helper in (("uniform_", (-1.0, 1.0), helper_random.uniform_fill),
                               ("normal_", (0.5, 2.0), helper_random.normal_fill),
                               ("exponential_", (3.0,), helper_random.exponential_fill),
                               ("bernoulli_", (0.3,), helper_random.bernoulli_fill),
                               ("geometric_", (0.4,), helper_random.geometric_fill),
                               ("random_", (2, 7), helper_random.random_fill)):
        assert difference(_torch(fill, *args), _ms(helper(x, *args)), values=False, distribution=True) == "", fill
    cauchy = ops.zeros((64, 64)).cauchy(0.0, 1.0)  # the mapping tables' cauchy_, heavy tails: quantiles hold
    assert difference(_torch("cauchy_"), _ms(cauchy), values=False, distribution=True) == ""


def test_draws_of_another_distribution_differ():
    x = ops.zeros((64, 64))
    wrong_range = difference(_torch("uniform_", -1.0, 1.0), _ms(ops.rand((64, 64))), values=False, distribution=True)
    assert wrong_range.startswith("draws distributed differently")
    wrong_scale = difference(_torch("normal_", 0.0, 2.0), _ms(helper_random.normal_fill(x, 0.0, 1.0)),
                             values=False, distribution=True)
    assert wrong_scale.startswith("draws distributed differently")
    wrong_p = difference(_torch("bernoulli_", 0.3), _ms(helper_random.bernoulli_fill(x, 0.5)),
                         values=False, distribution=True)
    assert "total variation" in wrong_p
    not_whole = difference(_torch("random_", 0, 5), _ms(helper_random.uniform_fill(x, 0, 5)),
                           values=False, distribution=True)
    assert not_whole == "draws are not whole numbers where PyTorch's are"


def test_few_draws_or_no_distribution_check_compare_shape_and_dtype_only():
    small = plain(torch.zeros(3, 4).uniform_(-1, 1))
    assert difference(small, np.zeros((3, 4), np.float32), values=False, distribution=True) == ""
    big = _torch("uniform_", -1.0, 1.0)
    assert difference(big, np.zeros((64, 64), np.float32), values=False) == ""
    assert difference(big, np.zeros((64, 64), np.float32), values=False, distribution=True) != ""
    assert difference(big, np.zeros((64, 32), np.float32), values=False).startswith("shape")
