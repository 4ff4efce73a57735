"""In-place comparisons, logical and integer-bitwise methods (x.lt_(y), x.logical_or_(y), n.bitwise_xor_(m), n.gcd_(m))
keep x's dtype in PyTorch: x holds 0/1 (or the bits) in its own dtype afterwards. MindSpore has none of
them in place and the out-of-place forms return bool, so the conversion writes the out-of-place value
cast back: x.assign_value(x.lt(y).astype(x.dtype)). Both frameworks run; x's values and dtype compare."""
from __future__ import annotations

import pytest

from analysis.convert import convert_source
from tests.convert.both_frameworks import run_script as _run

SOURCE = '''
import json
import numpy as np
import torch

base = np.array([[-1.5, 0.0, 2.0], [3.0, -0.5, 1.0]], dtype=np.float32)
other = np.array([[0.0, 0.0, 1.0], [4.0, -2.0, 1.0]], dtype=np.float32)
out = {}
for name in ("lt_", "le_", "gt_", "ge_", "eq_", "ne_", "less_", "less_equal_", "greater_", "greater_equal_",
             "not_equal_", "logical_and_", "logical_or_", "logical_xor_"):
    a = torch.tensor(base)
    same = a
    returned = getattr(a, name)(torch.tensor(other))
    out[name] = [a.numpy().tolist(), str(a.dtype).split(".")[-1].lower(), returned.numpy().tolist(), same.numpy().tolist()]
k = torch.tensor(np.array([3, 5, -7, 12], dtype=np.int64))
k.gt_(4)
out["int_gt"] = [k.numpy().tolist(), str(k.dtype).split(".")[-1].lower()]
n = torch.tensor(np.array([6, 9, 12, 7], dtype=np.int32))
n.bitwise_xor_(torch.tensor(np.array([3, 1, 12, 0], dtype=np.int32)))
out["xor"] = [n.numpy().tolist(), str(n.dtype).split(".")[-1].lower()]
g = torch.tensor(np.array([12, 18, 7, 0], dtype=np.int32))
g.bitwise_and_(torch.tensor(np.array([10, 6, 7, 5], dtype=np.int32)))
out["and"] = [g.numpy().tolist(), str(g.dtype).split(".")[-1].lower()]
d = torch.tensor(np.array([12, 18, 7, 0], dtype=np.int64))
d.gcd_(torch.tensor(np.array([8, 6, 7, 5], dtype=np.int64)))
out["gcd"] = [d.numpy().tolist(), str(d.dtype).split(".")[-1].lower()]
m = torch.tensor(np.array([4, 6, 7, 0], dtype=np.int32))
m.lcm_(torch.tensor(np.array([6, 4, 7, 5], dtype=np.int32)))
out["lcm"] = [m.numpy().tolist(), str(m.dtype).split(".")[-1].lower()]
s8 = torch.tensor(np.array([-2, -7, 31], dtype=np.int32))
s8.bitwise_left_shift_(torch.tensor(np.array([1, 0, 3], dtype=np.int32)))
out["shift"] = [s8.numpy().tolist(), str(s8.dtype).split(".")[-1].lower()]
f = torch.tensor(base)
f.logical_not_()
out["not"] = [f.numpy().tolist(), str(f.dtype).split(".")[-1].lower()]
s = torch.tensor(base)
s.lt_(1.0)
out["scalar"] = [s.numpy().tolist()]
print("RESULT " + json.dumps(out))
'''


def test_in_place_comparisons_are_written_back_in_the_receivers_dtype():
    result = convert_source("import torch\nx = torch.ones(3)\ny = torch.zeros(3)\nx.lt_(y)\nz = x.greater_(y)\n")
    assert "x.assign_value(x.lt(y).astype(x.dtype))" in result.text
    assert "z = x.assign_value(x.greater(y).astype(x.dtype))" in result.text
    assert not result.unconverted


@pytest.mark.slow
def test_in_place_comparisons_match_pytorch(tmp_path):
    lines = []  # each name written out as a method call (the converter reads calls, not getattr)
    for name in ("lt_", "le_", "gt_", "ge_", "eq_", "ne_", "less_", "less_equal_", "greater_", "greater_equal_",
                 "not_equal_", "logical_and_", "logical_or_", "logical_xor_"):
        lines.append(f"    if name == {name!r}:\n        returned = a.{name}(torch.tensor(other))")
    spelled = SOURCE.replace("    returned = getattr(a, name)(torch.tensor(other))\n", "\n".join(lines) + "\n")
    torch_out = _run(tmp_path / "torch", spelled)
    result = convert_source(spelled)
    assert not result.unconverted, [u.action for u in result.unconverted]
    ms_out = _run(tmp_path / "ms", result.text)
    assert ms_out == torch_out
    assert torch_out["lt_"][0] == [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]] and torch_out["xor"][0] == [5, 8, 0, 7]
    assert torch_out["gcd"][0] == [4, 6, 7, 5] and torch_out["lcm"][0] == [12, 12, 7, 0]
