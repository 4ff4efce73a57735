"""einops on MindSpore (issue 26) and imports of other packages built on torch.

The fast tests read the conversion: einops.layers.torch's layers become cells written into the
file, a file importing einops gets the MindSpore einops backend, an import of accelerate or timm
gets a MIGRATE comment from knowledge/data/torch_bound.json. The slow ones run einops on torch and
the conversion with MindSpore: a grid of patterns (einops_grid.py), and a converted model."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from analysis.convert import convert_source, convert_tree
from analysis.convert.core import rules
from analysis.convert.apis.thirdparty import row_for
from analysis.knowledge.torch_bound import rows as table

ROOT = Path(__file__).resolve().parents[2]
GRID = Path(__file__).with_name("einops_grid.py")

MODEL = '''\
import torch
import torch.nn as nn
import einops
from einops import rearrange, repeat, reduce, pack, unpack
from einops.layers.torch import Rearrange, Reduce, EinMix


class Net(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.to_patches = nn.Sequential(
            Rearrange("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=2, p2=2),
            nn.Linear(12, dim),
        )
        self.mix = EinMix("b n d -> b n e", weight_shape="d e", bias_shape="e", d=dim, e=dim)
        self.pool = Reduce("b n d -> b d", "mean")
        self.latents = nn.Parameter(torch.randn(4, dim))

    def forward(self, x):
        x = self.mix(self.to_patches(x))
        lat = repeat(self.latents, "n d -> b n d", b=x.shape[0])
        both, shapes = pack([x, lat], "b * d")
        x, lat = unpack(both * 2, shapes, "b * d")
        y = einops.repeat(x, "b n d -> b n d r", r=2)
        z = einops.reduce(y, "b n d r -> b n d", "max")
        attn = einops.einsum(z, lat, "b i d, b j d -> b i j").softmax(dim=-1)
        out = rearrange(attn, "b i j -> b (i j)")
        return self.pool(z) + reduce(out, "b (i j) -> b i", "sum", j=4).mean(-1, keepdim=True)
'''


def convert(source: str):
    result = convert_source(textwrap.dedent(source), path="model.py")
    return result.text, result


def test_einops_layers_become_cells_written_into_the_file():
    text, result = convert(MODEL)
    assert "from einops.layers.torch import" not in text  # the import went with its last use
    for line in ('Rearrange("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=2, p2=2),',
                 'self.mix = EinMix("b n d -> b n e", weight_shape="d e", bias_shape="e", d=dim, e=dim)',
                 'self.pool = Reduce("b n d -> b d", "mean")',
                 "class Rearrange(einops_layer_bases()[0], nn.Cell):", "class EinMix(einops_layer_bases()[2], nn.Cell):",
                 "class MindSporeEinopsBackend(einops_backend_base()):"):
        assert line in text, line
    # the file's einops functions stay: the backend makes them take MindSpore tensors
    assert "from einops import rearrange, repeat, reduce, pack, unpack" in text
    assert 'z = einops.reduce(y, "b n d r -> b n d", "max")' in text
    assert not result.unconverted
    assert {c.torch_api for c in result.changes} >= {"einops.layers.torch.Rearrange", "einops.layers.torch.EinMix",
                                                      "einops.layers.torch.Reduce"}
    # the einsum the backend calls is written once, before the classes that need it at load time
    assert text.count("\ndef einsum(") == 1
    assert text.index("def einops_backend_base(") < text.index("class MindSporeEinopsBackend(")
    compile(text, "model.py", "exec")


def test_einops_functions_alone_get_the_backend_and_nothing_else():
    text, result = convert("""\
        import torch
        from einops import rearrange

        def heads(x, h):
            return rearrange(torch.relu(x), "b n (h d) -> b h n d", h=h)
        """)
    assert "class MindSporeEinopsBackend(" in text and "class Rearrange(" not in text
    assert 'return rearrange(ops.relu(x), "b n (h d) -> b h n d", h=h)' in text
    assert not result.unconverted


def test_a_file_with_einops_and_no_torch_still_gets_the_backend():
    # its rearrange may be the only einops call a MindSpore tensor meets
    text, result = convert("""\
        from einops import rearrange

        def heads(x, h):
            return rearrange(x, "b n (h d) -> b h n d", h=h)
        """)
    assert "class MindSporeEinopsBackend(einops_backend_base()):" in text
    assert 'return rearrange(x, "b n (h d) -> b h n d", h=h)' in text and not result.unconverted
    compile(text, "model.py", "exec")


def test_an_einops_layer_used_as_a_value_is_the_cell():
    text, result = convert("""\
        from functools import partial
        import torch.nn as nn
        from einops.layers.torch import Rearrange, Reduce

        def pools(model):
            return [m for m in model.modules() if isinstance(m, (Reduce, nn.AvgPool2d))]

        flatten = partial(Rearrange, "b c h w -> b (c h w)")
        """)
    assert "isinstance(m, (Reduce, nn.AvgPool2d))" in text and 'flatten = partial(Rearrange, "b c h w -> b (c h w)")' in text
    assert "class Reduce(" in text and "class Rearrange(" in text
    assert "from einops.layers.torch import" not in text and "import torch" not in text


def test_a_file_without_einops_gets_no_backend():
    text, _ = convert("""\
        import torch
        def rearrange(x):
            return x.permute(1, 0)
        """)
    assert "Einops" not in text and "einops" not in text


def test_a_layer_kept_under_an_alias_and_through_the_module():
    text, result = convert("""\
        import torch.nn as nn
        import einops.layers.torch as L
        from einops.layers.torch import Rearrange as R

        net = nn.Sequential(R("b c h w -> b (c h w)"), L.Reduce("b d -> d", "max"), nn.ReLU())
        """)
    assert 'net = nn.SequentialCell(Rearrange("b c h w -> b (c h w)"), Reduce("b d -> d", "max"), nn.ReLU())' in text
    assert "import einops.layers.torch" not in text and "from einops.layers.torch" not in text
    assert not result.unconverted


def test_torch_bound_packages_get_a_marker_saying_what_to_do():
    source = """\
        import torch
        from accelerate import Accelerator
        import numpy as np
        try:
            import timm.layers as tl
        except ImportError:
            tl = None
        import pytorch_lightning as pl, os
        from einops import rearrange
        from perceiver_pytorch.perceiver_pytorch import Perceiver
        import mylib.layers.torch as layers
        """
    text, result = convert(source)
    marks = [(u.line, u.torch_api) for u in result.unconverted if u.rule_id == rules.TORCH_BOUND]
    assert marks == [(2, "accelerate"), (5, "timm.layers"), (8, "pytorch_lightning"), (11, "mylib.layers.torch")]
    lines = text.splitlines()
    at = lines.index("from accelerate import Accelerator")
    assert lines[at - 1].startswith(f"# MIGRATE({rules.TORCH_BOUND}): accelerate is Hugging Face Accelerate")
    assert "mindspore.value_and_grad" in lines[at - 1]
    at = lines.index("    import timm.layers as tl")
    assert lines[at - 1].startswith(f"    # MIGRATE({rules.TORCH_BOUND}): timm.layers is PyTorch Image Models")
    assert "MIGRATE" not in text.split("import numpy as np")[1].split("try:")[0]  # numpy: no marker
    assert "rearrange" in text and "MIGRATE(MS-TORCH-BOUND-IMPORT): einops" not in text  # converted, not marked


def test_the_table_is_well_formed_and_the_longest_prefix_wins():
    rows = table()
    assert len(rows) >= 25
    assert all(set(row) == {"module", "what", "todo", "converted"} for row in rows)
    assert len({row["module"] for row in rows}) == len(rows)
    assert row_for("einops.layers.torch.x")["module"] == "einops.layers.torch"
    assert row_for("einops")["converted"] and row_for("timm.models.vision_transformer")["module"] == "timm"
    assert row_for("timmy") is None and row_for("torch") is None and row_for("torchvision.models") is None
    # no row, but the name says torch: a pattern's row
    assert not row_for("mylib.layers.torch")["converted"] and row_for("kornia.contrib.pytorch.x") is not None
    assert row_for("torchmetrics.functional")["module"] == "torchmetrics"
    # a repository's own package is often named after torch (perceiver_pytorch): no sign on its own
    assert row_for("perceiver_pytorch") is None and row_for("torch_utils") is None
    assert row_for("numpy") is None and row_for("mytorchlib") is None


def test_the_marker_rule_is_in_the_catalogue():
    from analysis.rules import get_rule

    assert get_rule(rules.TORCH_BOUND).severity == "warning"


def _run(script: str, tmp_path: Path) -> dict:
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=900,
                          env={"PYTHONPATH": f"{tmp_path}:{ROOT}", "GLOG_v": "3", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_einops_on_mindspore_matches_einops_on_torch_over_the_grid(tmp_path):
    """Forwards and gradients: rearrange/repeat/reduce (mean, max, min, sum, prod)/einsum/pack/unpack/
    parse_shape on float32, float64 and int64 tensors, and the Rearrange/Reduce/EinMix cells."""
    pytest.importorskip("einops")
    report = _run(GRID.read_text(encoding="utf-8"), tmp_path)
    assert report["checked"] >= 400 and report["gradients"] >= 150, report
    assert report["wrong"] == []


PERCEIVER = Path(os.environ.get("REALWORLD_DIR", "/work/shared/realworld")) / "perceiver-pytorch"


@pytest.mark.slow
@pytest.mark.skipif(not PERCEIVER.is_dir(), reason="the realworld repositories are not on this machine")
def test_perceiver_pytorch_converted_gives_torchs_outputs(tmp_path):
    """lucidrains/perceiver-pytorch (einops functions, einops.layers.torch.Reduce): the models its
    tests and README build, and the gated and mixed-latents variants, converted as a tree, same
    weights, forwards compared (experimental.Perceiver's own PyTorch forward fails with these sizes)."""
    pytest.importorskip("einops")
    convert_tree(PERCEIVER, tmp_path / "converted")
    report = _run(textwrap.dedent(f"""
        import importlib, inspect, json, sys
        import numpy as np, torch, mindspore as ms
        kwargs = dict(input_channels=3, input_axis=2, num_freq_bands=3, max_freq=5.0, depth=2, num_latents=16,
                      latent_dim=16, cross_heads=1, latent_heads=2, cross_dim_head=8, latent_dim_head=8,
                      num_classes=10, attn_dropout=0.0, ff_dropout=0.0, weight_tie_layers=False)
        io_kwargs = dict(depth=2, dim=32, queries_dim=32, logits_dim=10, num_latents=16, latent_dim=16,
                         cross_heads=1, latent_heads=2, cross_dim_head=8, latent_dim_head=8)
        cases = [("perceiver_pytorch", "Perceiver", dict(kwargs, inverted_cross_attn=False), (1, 32, 32, 3)),
                 ("perceiver_pytorch", "Perceiver", dict(kwargs, inverted_cross_attn=True), (1, 32, 32, 3)),
                 ("perceiver_io", "PerceiverIO", io_kwargs, (2, 12, 32)),
                 ("gated", "Perceiver", kwargs, (1, 16, 16, 3)),
                 ("mixed_latents", "Perceiver", kwargs, (1, 16, 16, 3))]

        def package(root):
            for name in [n for n in sys.modules if n.startswith("perceiver_pytorch")]:
                del sys.modules[name]
            sys.path.insert(0, root)
            try:
                return {{m: importlib.import_module(f"perceiver_pytorch.{{m}}") for m in ("perceiver_pytorch", "perceiver_io", "gated", "mixed_latents")}}
            finally:
                sys.path.remove(root)

        original, converted = package({str(PERCEIVER)!r}), package({str(tmp_path / "converted")!r})
        out = []
        for module, name, arguments, shape in cases:
            torch.manual_seed(0)
            accepted = inspect.signature(getattr(original[module], name)).parameters
            arguments = {{k: v for k, v in arguments.items() if k in accepted}}
            t = getattr(original[module], name)(**arguments)
            m = getattr(converted[module], name)(**arguments)
            torch_params = dict(t.named_parameters())
            ms_params = list(m.trainable_params())
            assert len(torch_params) == len(ms_params), (len(torch_params), len(ms_params))
            for (key, p), q in zip(torch_params.items(), ms_params):
                assert p.numel() == int(np.prod(q.shape)), (key, q.name)  # Conv1d: MindSpore's weight is 4-D
                q.set_data(ms.Tensor(p.detach().numpy().reshape(q.shape)))
            x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
            expected = t(torch.tensor(x)).detach().numpy()
            got = m(ms.Tensor(x)).asnumpy()
            out.append([name, list(got.shape) == list(expected.shape), float(np.abs(expected - got).max()),
                        float(np.abs(expected).max())])
        print(json.dumps(out))
        """), tmp_path)
    assert len(report) == 5
    for name, same_shape, difference, scale in report:
        assert same_shape and scale > 1e-3 and difference < 1e-4, (name, difference, scale)


@pytest.mark.slow
def test_a_converted_einops_model_gives_torchs_outputs_and_gradients(tmp_path):
    pytest.importorskip("einops")
    (tmp_path / "original.py").write_text(MODEL, encoding="utf-8")
    (tmp_path / "converted.py").write_text(convert(MODEL)[0], encoding="utf-8")
    report = _run(textwrap.dedent("""
        import json
        import numpy as np, torch, mindspore as ms
        import original, converted
        torch.manual_seed(0)
        t, m = original.Net(8), converted.Net(8)
        names = [n for n, _ in t.named_parameters()]
        assert names == [p.name for p in m.trainable_params()], (names, [p.name for p in m.trainable_params()])
        for (_, p), q in zip(t.named_parameters(), m.trainable_params()):
            q.set_data(ms.Tensor(p.detach().numpy()))
        x = np.random.default_rng(0).standard_normal((2, 3, 4, 6)).astype(np.float32)
        out = t(torch.tensor(x))
        out.sum().backward()
        got = m(ms.Tensor(x))
        grads = ms.grad(lambda v: m(v).sum(), grad_position=None, weights=m.trainable_params())(ms.Tensor(x))
        print(json.dumps({
            "forward": float(np.abs(out.detach().numpy() - got.asnumpy()).max()),
            "scale": float(np.abs(out.detach().numpy()).max()),
            "gradients": {n: float(np.abs(p.grad.numpy() - g.asnumpy()).max()) for (n, p), g in zip(t.named_parameters(), grads)},
        }))
        """), tmp_path)
    assert report["scale"] > 0.01 and report["forward"] < 1e-5, report
    assert len(report["gradients"]) == 5 and max(report["gradients"].values()) < 1e-5, report
