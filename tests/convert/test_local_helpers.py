"""Calls with no classic-API counterpart that the converter writes out as local helpers
(F.scaled_dot_product_attention, F.layer_norm, a ModuleDict holding containers) and the cell
traversal methods (#16 pattern 4). The fast tests read the converted text; the slow ones run the
original with PyTorch and the conversion with MindSpore on the same inputs."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from analysis.convert import convert_source

ATTENTION = '''
import torch
import torch.nn.functional as F


def attend(q, k, v, mask=None, causal=False, scale=None, p=0.0):
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p, is_causal=causal, scale=scale)


def attend_positional(q, k, v, mask):
    return F.scaled_dot_product_attention(q, k, v, mask, 0.0, False)


def norm(x, shape, w=None, b=None, eps=1e-5):
    return F.layer_norm(x, shape, w, b, eps)


def norm_keywords(x, w):
    return torch.nn.functional.layer_norm(x, normalized_shape=w.shape, weight=w, eps=1e-6)


HAS_FAST_ATTENTION = hasattr(torch.nn.functional, "scaled_dot_product_attention")
'''


def test_attention_and_layer_norm_become_local_helpers_without_torch():
    result = convert_source(ATTENTION)
    text = result.text
    assert "torch" not in text.replace("PyTorch", "")  # nothing left for torch: the import goes
    assert "def scaled_dot_product_attention(query, key, value," in text
    assert "def layer_norm(input, normalized_shape," in text
    assert "return scaled_dot_product_attention(q, k, v, attn_mask=mask," in text
    assert "return layer_norm(x, normalized_shape=w.shape, weight=w, eps=1e-6)" in text
    assert "HAS_FAST_ATTENTION = True" in text
    assert not result.unconverted
    compile(text, "converted.py", "exec")
    # each helper is written once, after the imports and before the first definition
    assert text.count("def scaled_dot_product_attention(") == 1
    assert text.index("from mindspore import ops") < text.index("def layer_norm(") < text.index("def attend(")


def test_grouped_query_attention_is_marked_and_its_default_dropped():
    source = textwrap.dedent('''
        import torch.nn.functional as F

        def gqa(q, k, v):
            return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)

        def plain(q, k, v):
            return F.scaled_dot_product_attention(q, k, v, None, 0.0, True, None, False)
    ''')
    result = convert_source(source)
    assert [u.line for u in result.unconverted] == [5]
    assert "enable_gqa" in result.unconverted[0].action and "repeat_interleave" in result.unconverted[0].action
    assert "F.scaled_dot_product_attention(q, k, v, enable_gqa=True)" in result.text
    assert "return scaled_dot_product_attention(q, k, v, None, 0.0, True, None)" in result.text


def test_helper_names_step_aside_from_the_files_own():
    source = textwrap.dedent('''
        import torch.nn as nn
        import torch.nn.functional as F

        def layer_norm(x):
            return x

        class ModuleDict:
            pass

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.parts = nn.ModuleDict({"h": nn.ModuleList([nn.Linear(2, 2)])})

            def forward(self, x):
                return F.layer_norm(layer_norm(x), (2,))
    ''')
    text = convert_source(source).text
    assert "def ms_layer_norm(input," in text and "return ms_layer_norm(layer_norm(x), (2,))" in text
    assert "class ms_ModuleDict(nn.Cell):" in text and 'self.parts = ms_ModuleDict({"h": nn.CellList(' in text
    assert "def layer_norm(x):" in text and "class ModuleDict:" in text


def test_module_dict_of_containers_and_traversal_methods():
    result = convert_source(CONTAINERS)
    text = result.text
    assert "class ModuleDict(nn.Cell):" in text
    assert "self.transformer = ModuleDict(dict(" in text
    assert "next(self.get_parameters())" in text
    assert "self.cells_and_names()" in text and "self.cells()" in text and "self.name_cells().items()" in text
    assert not result.unconverted
    rules = {(c.torch_api, c.rule_id) for c in result.changes}
    assert ("torch.nn.ModuleDict", "MS-CONTAINERS") in rules
    assert ("torch.nn.Module.parameters", "MS-CELL-API") in rules
    # plain ModuleDicts stay CellDicts, and their entries are in the layer map under their keys
    assert 'nn.CellDict({"a": nn.Dense(8, 8), "b": nn.ReLU()})' in text
    attributes = {r.attribute for r in result.layer_map}
    assert {"transformer.wte", "transformer.h", "named.a", "named.b"} <= attributes
    # the tie keeps pointing at the table MindSpore's Embedding reads
    assert "self.transformer.wte.embedding_table = self.head.weight" in text


def test_tied_weight_of_an_embedding_held_in_a_dict_literal_is_renamed():
    source = CONTAINERS.replace("nn.ModuleDict(dict(\n            wte=nn.Embedding(10, 8),",
                                'nn.ModuleDict({\n            "wte": nn.Embedding(10, 8),')
    source = source.replace("            h=nn.ModuleList", '            "h": nn.ModuleList').replace(
        "            ln_f=nn.LayerNorm(8),\n        ))", '            "ln_f": nn.LayerNorm(8),\n        })')
    assert '"wte": nn.Embedding' in source and '"ln_f"' in source
    assert "self.transformer.wte.embedding_table = self.head.weight" in convert_source(source).text


CONTAINERS = '''
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(10, 8),
            h=nn.ModuleList([nn.Linear(8, 8) for _ in range(2)]),
            ln_f=nn.LayerNorm(8),
        ))
        self.head = nn.Linear(8, 10, bias=False)
        self.transformer.wte.weight = self.head.weight  # tied
        self.named = nn.ModuleDict({"a": nn.Linear(8, 8), "b": nn.ReLU()})

    def first_dtype(self):
        return str(next(self.parameters()).dtype).split(".")[-1]

    def count(self):
        return sum(p.numel() for p in self.parameters())

    def traverse(self):
        return ([type(m).__name__ for m in self.modules()], [n for n, _ in self.named_modules()],
                len(list(self.children())), [n for n, _ in self.named_children()])

    def forward(self, x):
        h = self.transformer.wte(x)
        for block in self.transformer.h:
            h = block(h)
        h = self.transformer["ln_f"](h)
        return self.head(h), list(self.transformer), len(self.transformer), "h" in self.transformer
'''

# Runs the original with PyTorch and the conversion with MindSpore on the same inputs (one
# subprocess: both frameworks import once), printing what the tests compare.
RUN = r'''
import json, sys, types
import numpy as np
import torch
import mindspore as ms

def load(name, text):
    module = types.ModuleType(name)
    exec(compile(text, name + ".py", "exec"), module.__dict__)
    return module

original, converted, which = sys.argv[1], sys.argv[2], sys.argv[3]
pt, mm = load("pt", open(original).read()), load("mm", open(converted).read())
rng = np.random.default_rng(0)
out = {}

def both(name, fn_args, grads=False):
    """Call name in both modules on the same arrays; record the largest difference."""
    t_args = [torch.tensor(a, requires_grad=grads and a.dtype == np.float32) if isinstance(a, np.ndarray) else a
              for a in fn_args]
    m_args = [ms.Tensor(a) if isinstance(a, np.ndarray) else a for a in fn_args]
    t = getattr(pt, name)(*t_args)
    m = getattr(mm, name)(*m_args)
    row = {"max_abs": float(np.abs(t.detach().numpy() - m.asnumpy()).max())}
    if grads:
        t.sum().backward()
        positions = [i for i, a in enumerate(fn_args) if isinstance(a, np.ndarray) and a.dtype == np.float32]
        fn = lambda *xs: getattr(mm, name)(*[xs[positions.index(i)] if i in positions else m_args[i]
                                             for i in range(len(m_args))]).sum()
        m_grads = ms.grad(fn, grad_position=tuple(range(len(positions))))(*[m_args[i] for i in positions])
        row["grad_max_abs"] = max(float(np.abs(t_args[i].grad.numpy() - g.asnumpy()).max())
                                  for i, g in zip(positions, m_grads))
    return row

if which == "attention":
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    q, k, v = f32(2, 3, 5, 8), f32(2, 3, 5, 8), f32(2, 3, 5, 8)
    kx, vx = f32(2, 3, 7, 8), f32(2, 3, 7, 8)  # cross attention: more keys than queries
    bool_mask = rng.random((5, 7)) > 0.3
    bool_mask[:, 0] = True  # every query keeps one key (a row of -inf is NaN in both)
    float_mask = f32(2, 1, 5, 7)
    out["plain"] = both("attend", [q, k, v], grads=True)
    out["causal"] = both("attend", [q, k, v, None, True], grads=True)
    out["scale"] = both("attend", [q, k, v, None, True, 0.3])
    out["bool_mask"] = both("attend", [q, kx, vx, bool_mask], grads=True)
    out["float_mask"] = both("attend", [q, kx, vx, float_mask])
    out["positional"] = both("attend_positional", [q, kx, vx, bool_mask])
    out["three_dims"] = both("attend", [q[0], k[0], v[0], None, True])
    # dropout: applied when dropout_p > 0 (as PyTorch), and rescaled so that the mean is kept
    weights_in = ms.Tensor(np.zeros((1, 1, 64, 64), np.float32))
    values = ms.Tensor(np.ones((1, 1, 64, 64), np.float32))
    dropped = mm.attend(weights_in, weights_in, values, None, False, None, 0.5).asnumpy()
    kept = mm.attend(weights_in, weights_in, values, None, False, None, 0.0).asnumpy()
    out["dropout"] = {"changed": bool(np.abs(dropped - kept).max() > 0.1), "mean": float(dropped.mean())}
    out["layer_norm_plain"] = both("norm", [f32(4, 6, 10), (10,)], grads=True)
    out["layer_norm_affine"] = both("norm", [f32(4, 6, 10), [10], f32(10), f32(10)], grads=True)
    out["layer_norm_two_axes"] = both("norm", [f32(4, 6, 10), (6, 10), f32(6, 10), None, 1e-3], grads=True)
    out["layer_norm_shifted"] = both("norm", [f32(3, 10) * 5 + 2, [10]])
    out["layer_norm_keywords"] = both("norm_keywords", [f32(4, 10), f32(10)])
    out["flag"] = [pt.HAS_FAST_ATTENTION, mm.HAS_FAST_ATTENTION]
else:
    torch.manual_seed(0)
    tnet = pt.Net()
    mnet = mm.Net()
    t_names = [n for n, _ in tnet.named_parameters()]
    m_names = [n for n, _ in mnet.parameters_and_names()]
    # copy PyTorch's weights by name (Embedding's weight and LayerNorm's are named differently)
    renames = {"transformer.wte.weight": "transformer.wte.embedding_table", "transformer.ln_f.weight":
               "transformer.ln_f.gamma", "transformer.ln_f.bias": "transformer.ln_f.beta"}
    params = dict(mnet.parameters_and_names())
    for name, value in tnet.named_parameters():
        params[renames.get(name, name)].set_data(ms.Tensor(value.detach().numpy()))
    x = rng.integers(0, 10, (2, 5))
    t_logits, *t_rest = tnet(torch.tensor(x))
    m_logits, *m_rest = mnet(ms.Tensor(x.astype(np.int32)))
    out = {
        "torch_names": t_names, "ms_names": m_names,
        "max_abs": float(np.abs(t_logits.detach().numpy() - m_logits.asnumpy()).max()),
        "rest": [t_rest, m_rest],
        "tied": [tnet.transformer.wte.weight is tnet.head.weight, mnet.transformer.wte.embedding_table is mnet.head.weight],
        "count": [tnet.count(), mnet.count()],
        "first_dtype": [tnet.first_dtype(), mnet.first_dtype()],
        "traverse": [tnet.traverse(), mnet.traverse()],
        "keys": [list(tnet.transformer.keys()), list(mnet.transformer.keys())],
        "item": [type(tnet.transformer["h"]).__name__, type(mnet.transformer["h"]).__name__],
    }
print("RESULT " + json.dumps(out))
'''


def _run_both(tmp_path, source: str, which: str) -> dict:
    original, converted = tmp_path / "original.py", tmp_path / "converted.py"
    original.write_text(source)
    converted.write_text(convert_source(source).text)
    proc = subprocess.run([sys.executable, "-c", RUN, str(original), str(converted), which], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = next(l for l in proc.stdout.splitlines() if l.startswith("RESULT "))
    return json.loads(line[len("RESULT "):])


@pytest.mark.slow
def test_attention_and_layer_norm_helpers_compute_what_pytorch_does(tmp_path):
    out = _run_both(tmp_path, ATTENTION, "attention")
    for case in ("plain", "causal", "scale", "bool_mask", "float_mask", "positional", "three_dims",
                 "layer_norm_plain", "layer_norm_affine", "layer_norm_two_axes", "layer_norm_shifted",
                 "layer_norm_keywords"):
        assert out[case]["max_abs"] < 2e-5, (case, out[case])
        if "grad_max_abs" in out[case]:
            assert out[case]["grad_max_abs"] < 5e-5, (case, out[case])
    assert out["dropout"]["changed"] and 0.8 < out["dropout"]["mean"] < 1.2, out["dropout"]
    assert out["flag"] == [True, True]


@pytest.mark.slow
def test_module_dict_of_containers_keeps_names_access_tying_and_traversal(tmp_path):
    out = _run_both(tmp_path, CONTAINERS, "containers")
    renamed = [{"transformer.wte.weight": "transformer.wte.embedding_table", "transformer.ln_f.weight":
                "transformer.ln_f.gamma", "transformer.ln_f.bias": "transformer.ln_f.beta"}.get(n, n)
               for n in out["torch_names"]]
    assert out["ms_names"] == renamed  # the tied weight once, under the first owner's name, in both
    assert out["max_abs"] < 1e-5
    assert out["rest"][0] == out["rest"][1] == [["wte", "h", "ln_f"], 3, True]
    assert out["tied"] == [True, True]
    assert out["count"][0] == out["count"][1]
    assert out["first_dtype"] == ["float32", "Float32"]
    (t_types, t_named, t_children, t_named_children), (m_types, m_named, m_children, m_named_children) = out["traverse"]
    assert m_named == t_named and m_children == t_children and m_named_children == t_named_children
    assert len(m_types) == len(t_types)
    assert out["keys"][0] == out["keys"][1] and out["item"] == ["ModuleList", "CellList"]


def test_helpers_follow_the_mindspore_imports_even_below_other_code():
    source = textwrap.dedent('''
        import sys


        def banner():
            return "x"


        import torch.nn as nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.d = nn.ModuleDict({"h": nn.ModuleList([nn.Linear(2, 2)])})
    ''')
    text = convert_source(source).text
    # the helper class needs nn when it is defined: it comes right after that import
    assert text.index("from mindspore import nn") < text.index("class ModuleDict(nn.Cell)") < text.index("class Net")
    exec(compile(text, "converted.py", "exec"), {})  # defines everything without a NameError


def test_helper_code_takes_the_files_module_spelling_and_leaves_its_docstring_alone():
    source = textwrap.dedent('''
        import torch.nn.functional as F
        from mylib import ops

        def norm(x):
            return F.layer_norm(ops.prepare(x), (2,))
    ''')
    text = convert_source(source).text
    helper = text[text.index("def layer_norm("):text.index("from mylib import ops")]
    assert "ms_ops.LayerNorm(" in helper and "ms_ops.ones(" in helper
    assert "(ops.layer_norm has no CPU kernel)" in helper  # prose, not code: never renamed
    assert "return layer_norm(ops.prepare(x), (2,))" in text
