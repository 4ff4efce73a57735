"""Rewrites added for the most frequent gaps found converting a real codebase (timm): queries
that are constants under MindSpore, wrappers that only change speed, curated refusals with
advice. Values are compared by the snippet corpus (tests/convert/corpus/semantic/rw_*.py);
these tests hold the text of the rewrites and what stays marked."""
from __future__ import annotations

import ast

from analysis.convert import convert_source
from analysis.knowledge import load_mapping
from analysis.scan.source import analyze_source


def convert(source: str):
    result = convert_source(source)
    ast.parse(result.text)
    return result


def test_torchscript_queries_become_false():
    result = convert("import torch\nif torch.jit.is_scripting() or not torch.jit.is_tracing():\n    y = 1\n"
                     "z = torch.compiler.is_compiling()\n")
    assert "if False or not False:" in result.text
    assert "z = False" in result.text
    assert "import torch" not in result.text  # nothing left that needs PyTorch
    assert not result.unconverted
    assert {c.torch_api for c in result.changes} == {"torch.jit.is_scripting", "torch.jit.is_tracing",
                                                     "torch.compiler.is_compiling"}


def test_a_query_called_with_arguments_is_not_replaced():
    result = convert("import torch\nx = torch.jit.is_scripting(fn)\n")
    assert "torch.jit.is_scripting(fn)" in result.text
    assert [u.torch_api for u in result.unconverted] == ["torch.jit.is_scripting"]


def test_default_dtype_is_float32():
    result = convert("import torch\nd = torch.get_default_dtype()\n")
    assert "d = mindspore.float32" in result.text and "import mindspore" in result.text
    assert "set_default_dtype" in result.changes[0].description  # says when to look again


def test_compile_is_unwrapped_with_its_options_dropped_and_a_review_note():
    result = convert("import torch\nm = torch.compile(net, backend=b, mode='max-autotune', **kw)\n"
                     "f = torch.compile(lambda x: x + 1)\ng = torch.compile(model=net.student, fullgraph=True)\n")
    assert "m = net\n" in result.text
    assert "f = (lambda x: x + 1)" in result.text
    assert "g = net.student\n" in result.text
    assert not result.unconverted
    described = result.changes[0].description
    assert "dropped backend=, mode=, **kw" in described and "mindspore.jit" in described and "[review]" in described


def test_compile_without_the_model_stays_marked():
    result = convert("import torch\n@torch.compile(mode='reduce-overhead')\ndef step(x):\n    return x\n")
    assert "@torch.compile(mode='reduce-overhead')" in result.text
    assert [u.torch_api for u in result.unconverted] == ["torch.compile"]
    assert "without its model argument" in result.unconverted[0].action


def test_parameter_keeps_requires_grad():
    result = convert("import torch\nimport torch.nn as nn\nfrom torch.nn.parameter import Parameter\n"
                     "a = nn.Parameter(torch.zeros(1, 1, 8))\nb = nn.Parameter(torch.ones(3), requires_grad=False)\n"
                     "c = Parameter(data=torch.ones(2))\n")
    assert "a = mindspore.Parameter(ops.zeros((1, 1, 8)))" in result.text
    assert "b = mindspore.Parameter(ops.ones(3), requires_grad=False)" in result.text  # not dropped as harmless
    assert "c = mindspore.Parameter(default_input=ops.ones(2))" in result.text
    assert not result.unconverted


def test_analyzer_no_longer_calls_the_new_entries_unmapped():
    source = ("import torch\nimport torch.nn as nn\nw = nn.Parameter(torch.empty(3, 3))\n"
              "e = torch.empty_like(w)\nf = torch.jit.is_scripting()\n")
    findings = analyze_source(source, "m.py", ms_version="2.10").findings
    apis = {f.torch_api for f in findings if f.rule_id == "MS-API-UNMAPPED"}
    assert not apis & {"torch.nn.Parameter", "torch.empty", "torch.empty_like", "torch.jit.is_scripting"}, apis
    mapped = {f.torch_api: f.mindspore_api for f in findings if f.rule_id in ("MS-API-MAPPED", "MS-API-DIFF")}
    assert mapped["torch.nn.Parameter"] == "mindspore.Parameter" and mapped["torch.empty"] == "mindspore.ops.zeros"


def test_empty_becomes_zeros_with_sizes_packed_and_device_dropped():
    result = convert("import torch\na = torch.empty(2, 3, device=x.device, dtype=x.dtype)\n"
                     "b = torch.empty_like(x, memory_format=torch.contiguous_format)\n")
    assert "a = ops.zeros((2, 3), dtype=x.dtype)" in result.text
    assert "b = ops.zeros_like(x)" in result.text
    assert not result.unconverted


def test_randint_reads_both_overloads_and_marks_a_generator():
    # randint() (helper_source.py) reads randint(high, size) and randint(low, high, size) itself and casts to a
    # float dtype, which ops.randint refuses; a generator's seeded draws cannot be reproduced: marked
    result = convert("import torch\na = torch.randint(10, (3,))\nb = torch.randint(0, 2, p.size(), generator=g)\n"
                     "c = torch.randint(5, size=(2,))\nd = torch.randint(low=1, high=4, size=(2,))\n")
    assert "a = randint(10, (3,))" in result.text
    assert "c = randint(5, size=(2,))" in result.text
    assert "d = randint(low=1, high=4, size=(2,))" in result.text
    assert [(u.line, u.torch_api) for u in result.unconverted] == [(3, "torch.randint")]


def test_randperm_becomes_a_shuffled_arange_unless_a_generator_fixes_the_order():
    result = convert("import torch\na = torch.randperm(h * w, device=x.device)[:k]\nb = torch.randperm(n, generator=g)\n"
                     "c = torch.randperm(n, dtype=torch.int32)\n")
    assert "a = ops.shuffle(ops.arange(h * w))[:k]" in result.text
    assert "dropped device=" in result.changes[0].description
    assert [(u.line, u.torch_api) for u in result.unconverted] == [(3, "torch.randperm"), (4, "torch.randperm")]
    assert "generator=" in result.unconverted[0].action and "seeded shuffle" in result.unconverted[0].action
    assert "dtype=" in result.unconverted[1].action


def test_pad_converts_checked_modes_without_a_default_value():
    result = convert("import torch.nn.functional as F\na = F.pad(x, (1, 1), mode='reflect')\n"
                     "b = F.pad(x, p, 'constant', 1.5)\nc = F.pad(x, p, mode=self.pad_mode)\n")
    assert "a = ops.pad(x, (1, 1), mode='reflect')" in result.text  # value= would be refused by MindSpore here
    assert "b = ops.pad(x, p, 'constant', 1.5)" in result.text
    assert [u.line for u in result.unconverted] == [4]


def test_interpolate_converts_every_mode_and_marks_a_mode_held_by_a_name():
    result = convert("import torch.nn.functional as F\na = F.interpolate(x, size=(7, 9), mode=\"bilinear\")\n"
                     "b = F.interpolate(x, size=s, mode='bicubic')\nc = F.interpolate(x, size=s, mode=m)\n"
                     "d = F.interpolate(x, scale_factor=2)\ne = F.interpolate(x, s, None, 'area', None, None, False)\n")
    # a local function of PyTorch's signature (a 1-D area pools PyTorch's windows): arguments as written
    assert 'a = interpolate(x, size=(7, 9), mode="bilinear")' in result.text
    assert "e = interpolate(x, s, None, 'area', None, None, False)" in result.text
    # bicubic and scale_factor are PyTorch's arithmetic in the local function; a mode held by a name is unknown
    assert "b = interpolate(x, size=s, mode='bicubic')" in result.text and "d = interpolate(x, scale_factor=2)" in result.text
    assert [u.line for u in result.unconverted] == [4]


def test_conv_transpose_writes_pad_mode_and_takes_output_padding_to_the_support_cell():
    result = convert("import torch.nn as nn\na = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1)\n"
                     "b = nn.ConvTranspose2d(4, 6, 2, 2, bias=False)\nc = nn.ConvTranspose2d(4, 6, 3, padding=(1, 0))\n"
                     "d = nn.ConvTranspose2d(4, 6, 3, 2, 1, output_padding=1)\n")
    assert "a = nn.Conv2dTranspose(4, 6, 3, stride=2, padding=1, has_bias=True, pad_mode='pad')" in result.text
    assert "b = nn.Conv2dTranspose(4, 6, 2, 2, has_bias=False, pad_mode='pad')" in result.text
    assert "c = nn.Conv2dTranspose(4, 6, 3, padding=(1, 1, 0, 0), has_bias=True, pad_mode='pad')" in result.text
    # MindSpore's own cell gives other values with output_padding (tests/convert/test_transposed_output_padding.py)
    assert "d = ConvTranspose2d(4, 6, 3, 2, 1, output_padding=1)" in result.text and not result.unconverted


def test_apis_without_a_cpu_counterpart_carry_a_concrete_action():
    result = convert("import torch\nimport torch.nn.functional as F\na = F.scaled_dot_product_attention(q, k, v)\n"
                     "b = F.layer_norm(x, (8,), w, b2, 1e-6)\nc = F.rms_norm(x, (8,), w)\nd = torch.finfo(x.dtype).eps\n")
    actions = {u.torch_api: u.action for u in result.unconverted}
    # attention, layer_norm and rms_norm are written out as local helpers (tests/convert/test_local_helpers.py,
    # tests/convert/test_coverage_cov_nn.py)
    assert "a = scaled_dot_product_attention(q, k, v)" in result.text
    assert "b = layer_norm(x, (8,), w, b2, 1e-6)" in result.text
    assert "c = rms_norm(x, (8,), w)" in result.text and "torch.nn.functional.rms_norm" not in actions
    assert "d = TypeInfo(numpy.finfo(mindspore.dtype_to_nptype(x.dtype))).eps" in result.text  # numeric_info.py
    assert all(f"# MIGRATE(MS-API-UNMAPPED): {a}" in result.text for a in actions.values())


def test_no_op_decorators_are_listed_for_the_converter():
    assert {"torch.jit.ignore", "torch.jit.unused"} <= load_mapping("classic").no_op_decorators


def test_star_parameters_on_both_sides_stay_positional():
    # torch.meshgrid(*tensors, indexing) and ops.meshgrid(*inputs, indexing): once crashed the whole file.
    result = convert("import torch\nx, y = torch.meshgrid(a, b, indexing='ij')\nz = torch.abs(a)\n")
    assert "meshgrid(a, b, indexing='ij')" in result.text and "kernel_dtypes(ops.abs, " in result.text
    assert not result.unconverted
