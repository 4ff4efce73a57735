"""Cases from torch's own docstring examples (bench/docstring_examples.py) that were converted and then
computed something else or raised: each is now converted and computes PyTorch's values, or stays marked.
The slow test runs both frameworks; the others check the conversion and the bench's own accounting."""
from __future__ import annotations

import numpy as np
import pytest

from analysis.convert import convert_source
from tests.convert.harness import parse_snippet, run_corpus

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"

# (docstring the case comes from, body, "pass" (converted, same values) or "marked")
CASES = [
    ("linalg.norm", "B = torch.arange(9, dtype=torch.float) - 4\nB = B.reshape(3, 3)\ny = torch.linalg.norm(B, 2)",
     "pass"),
    ("linalg.norm", "a = torch.arange(9, dtype=torch.float) - 4\ny = torch.linalg.norm(a, float('inf'))", "pass"),
    ("Tensor.new_empty", "y = torch.ones(())", "pass"),
    ("zeros", "y = torch.zeros([])", "pass"),
    ("signbit", "y = torch.signbit(torch.tensor([-0.0, 0.0]))", "pass"),  # the sign bit itself (helper_cov_torch)
    ("copysign", "a = torch.tensor([1.])\nb = torch.tensor([-0.])\ny = torch.copysign(a, b)", "pass"),
    ("copysign", "a = torch.tensor([1., -2.])\ny = torch.copysign(a, 1)", "pass"),
    ("narrow", "x = torch.tensor([[1, 2, 3], [4, 5, 6]])\ny = torch.narrow(x, -1, torch.tensor(-1), 1)", "pass"),
    ("narrow", "x = torch.tensor([[1, 2, 3], [4, 5, 6]])\ny = torch.narrow(x, 1, 1, 2)", "pass"),
    ("repeat_interleave", "y = torch.repeat_interleave(torch.tensor([1, 2, 3]))", "pass"),
    ("repeat_interleave", "x = torch.tensor([[1, 2], [3, 4]])\ny = torch.repeat_interleave(x, 2)", "pass"),
    ("AdaptiveMaxPool3d", "x = torch.linspace(-1, 1, 2 * 10 * 9 * 8).reshape(1, 2, 10, 9, 8)\n"
                          "y = nn.AdaptiveMaxPool3d((7, None, None))(x)", "marked"),
    ("svd", "a = torch.linspace(-1, 1, 15).reshape(5, 3)\nu, s, v = torch.svd(a)\ny = s", "marked"),
    ("unique", "y = torch.unique(torch.tensor([1, 3, 2, 3]))", "pass"),  # sorted by its helper
    ("dot", "y = torch.dot(torch.tensor([2, 3]), torch.tensor([2, 1]))", "pass"),
    ("finfo", "eps = torch.finfo(torch.float32).eps\ny = torch.tensor([1.0, 2.0]) + eps", "pass"),
    ("finfo", "x = torch.tensor([1.0, 2.0], dtype=torch.float16)\ny = torch.tensor([1.0]) + torch.finfo(x.dtype).max", "pass"),
    # nanoGPT's sampling loop: multinomial's samples concatenated to int64 token ids (MindSpore's are int32);
    # one-hot rows make the draw certain
    ("multinomial", "probs = torch.tensor([[0., 1., 0.], [0., 0., 1.]])\nidx = torch.zeros(2, 1, dtype=torch.long)\n"
                    "y = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)", "pass"),
    ("iinfo", "y = torch.tensor([torch.iinfo(torch.int32).max, torch.iinfo(torch.int8).min])", "pass"),
    ("finfo", "y = torch.tensor([1.0]) * torch.finfo(torch.bfloat16).eps", "marked"),
    # MindSpore's nextafter leaves float32 values as they are; the converter's helper steps the bits (a one-ulp
    # step is below any tolerance: exact check, the results must differ from the inputs as PyTorch's do)
    ("nextafter", "y = torch.nextafter(torch.tensor([1.0, 2.0]), torch.tensor([2.0, 1.0])) == "
                  "torch.tensor([1.0, 2.0])", "pass"),
    ("Tensor.nextafter", "x = torch.tensor([1.0, 2.0])\ny = x.nextafter(torch.tensor([2.0, 1.0])) == x", "pass"),
    ("sum", "a = torch.linspace(-1, 1, 16).reshape(4, 4)\ny = torch.sum(a, 1)", "pass"),
    # APIs with no one-call counterpart, written as local functions (analysis/convert/apis/composed.py)
    ("allclose", "y = torch.allclose(torch.tensor([10000., 1e-07]), torch.tensor([10000.1, 1e-08]))", "pass"),
    ("allclose", "y = torch.allclose(torch.tensor([1.0, float('nan')]), torch.tensor([1.0, float('nan')]), "
                 "equal_nan=True)", "pass"),
    ("equal", "y = torch.equal(torch.tensor([1, 2, 3], dtype=torch.int32), torch.tensor([1, 2, 3], dtype=torch.float32))",
     "pass"),
    ("unravel_index", "y = torch.unravel_index(torch.tensor([[1234], [5678]]), (10, 10, 10, 10))", "pass"),
    ("one_hot", "y = F.one_hot(torch.arange(0, 6).view(3, 2) % 3)", "pass"),
    ("cartesian_prod", "y = torch.cartesian_prod(torch.tensor([1, 2, 3]))", "pass"),
    ("fft.irfft", "t = torch.linspace(0, 1, 5)\nT = torch.fft.rfft(t)\ny = torch.fft.irfft(T, t.numel())", "pass"),
    ("fft.rfft2", "t = torch.linspace(0, 1, 90).reshape(10, 9)\ny = torch.fft.irfft2(torch.fft.rfft2(t), t.size())", "pass"),
    ("fft.hfft2", "T = torch.linspace(-1, 1, 90).reshape(10, 9)\nt = torch.fft.ihfft2(T)\n"
                  "y = [torch.fft.hfft2(t, T.size()), torch.fft.hfft2(t, T.size()), torch.fft.hfft(t[0])]", "pass"),
    ("fft.fftshift", "y = torch.fft.fftshift(torch.fft.fftfreq(5, d=1/5) + 0.1 * torch.fft.fftfreq(5, 2).unsqueeze(1))",
     "pass"),
    ("special.i0e", "y = torch.special.i0e(torch.arange(5, dtype=torch.float32))", "pass"),
    ("special.i1", "y = torch.special.i1(torch.linspace(-30, 30, 61))", "pass"),
    ("special.zeta", "x = torch.tensor([2., 4.])\ny = [torch.special.zeta(x, 1), torch.special.zeta(2, torch.tensor([1., 2.]))]",
     "pass"),
    ("histogram", "y = list(torch.histogram(torch.tensor([1., 2, 1]), bins=4, range=(0., 3.), weight=torch.tensor([1., 2., 4.]),"
                  " density=True))", "pass"),
    ("histogram", "y = list(torch.histogram(torch.linspace(-2, 3, 31), 7))", "pass"),
    ("histogramdd", "r = torch.histogramdd(torch.tensor([[0., 1.], [1., 0.], [2., 0.], [2., 2.]]), bins=[3, 3],\n"
                    "                      weight=torch.tensor([1., 2., 4., 8.]))\ny = [r.hist, *r.bin_edges]", "pass"),
    ("nn.Fold", "fold = nn.Fold(output_size=(4, 5), kernel_size=(2, 2))\ny = fold(torch.linspace(-1, 1, 144).reshape(1, 12, 12))",
     "pass"),
    ("nn.Unfold", "params = dict(kernel_size=(2, 3), padding=1)\nunfold = nn.Unfold(**params)\n"
                  "y = unfold(torch.linspace(-1, 1, 120).reshape(2, 5, 3, 4))", "pass"),
    ("F.fold", "x = torch.linspace(-1, 1, 60).reshape(5, 3, 4)\ny = F.fold(F.unfold(x, 2, padding=1), (3, 4), 2, 1, 1)",
     "pass"),
    ("aminmax", "y = list(torch.aminmax(torch.tensor([1, -3, 5, float('nan')])))", "pass"),
    ("Tensor.aminmax", "t = torch.arange(10).view(2, 5)\ny = list(t.aminmax(dim=0, keepdim=True))", "pass"),
    ("Tensor.element_size", "y = [torch.tensor([]).element_size(), torch.tensor([], dtype=torch.uint8).element_size()]",
     "pass"),
    ("vdot", "a = torch.tensor((1 +2j, 3 - 1j))\nb = torch.tensor((2 +1j, 4 - 0j))\nz = torch.vdot(a, b)\ny = [z, torch.abs(z)]", "pass"),
    ("isin", "y = torch.isin(torch.tensor([[1, 2], [3, 4]]), torch.tensor([2, 3]), invert=True)", "pass"),
    ("take", "src = torch.tensor([[4, 3, 5], [6, 7, 8]])\ny = torch.take(src, torch.tensor([0, -1, 5]))", "pass"),
    ("bitwise_left_shift", "y = torch.bitwise_left_shift(torch.tensor([-1, 7, 3], dtype=torch.int32), "
                           "torch.tensor([1, 32, -1], dtype=torch.int32))", "pass"),
    ("bitwise_right_shift", "y = torch.bitwise_right_shift(torch.tensor([-2, -7, 31]), torch.tensor([1, 64, 3]))", "pass"),
    ("bitwise_not", "y = [torch.bitwise_not(torch.tensor([-1, -2, 3], dtype=torch.int8)), "
                    "torch.bitwise_not(torch.tensor([True, False]))]", "pass"),
    ("complex", "x = torch.arange(4, dtype=torch.float)\nz = torch.complex(x, x[:1]).reshape(2, 2)\ny = [z, torch.abs(z)]", "pass"),
    ("frexp", "mantissa, exponent = torch.frexp(torch.arange(9.))\ny = [mantissa, exponent]", "pass"),
    ("gather", "t = torch.tensor([[1, 2], [3, 4]])\ny = torch.gather(t, 1, torch.tensor([[0, 0], [1, 0]]))", "pass"),
    ("diagonal_scatter", "a = torch.zeros(3, 3)\ny = torch.diagonal_scatter(a, torch.ones(2), 1)", "pass"),
    ("pad_sequence", "from torch.nn.utils.rnn import pad_sequence\na = torch.ones(5, 3)\nb = torch.zeros(2, 3)\n"
                     "y = [pad_sequence([a, b]), pad_sequence((b, a), batch_first=True, padding_value=-1, padding_side='left')]",
     "pass"),
    ("unpad_sequence", "from torch.nn.utils.rnn import pad_sequence, unpad_sequence\n"
                       "sequences = [torch.linspace(0, 1, 15).reshape(5, 3), torch.ones(2, 3), torch.zeros(4, 3)]\n"
                       "padded = pad_sequence(sequences)\nparts = unpad_sequence(padded, torch.tensor([5, 2, 4]))\n"
                       "y = [*parts, padded]", "pass"),
    ("tensordot", "a = torch.arange(60.).reshape(3, 4, 5)\nb = torch.arange(24.).reshape(4, 3, 2)\n"
                  "y = [torch.tensordot(a, b, dims=([1, 0], [0, 1])), torch.tensordot(a[0], a[1]), torch.tensordot(a, b, 0)]",
     "pass"),
    ("testing.assert_close", "y = []\nfor a, b, r, t in [([1.0, 2.0], [1.0, 2.00001], None, None), ([1.0, 2.0], [1.0, 2.0001], None, None),\n"
                             "                    ([1.0], [1.1], 0, 0.2), ([1, 2], [1, 3], None, None)]:\n"
                             "    try:\n"
                             "        torch.testing.assert_close(torch.tensor(a), torch.tensor(b), rtol=r, atol=t, check_stride=False)\n"
                             "        y.append(0)\n"
                             "    except AssertionError:\n"
                             "        y.append(1)", "pass"),
    ("special.ndtr", "y = torch.special.ndtr(torch.tensor([-40., -3., -2, -1, 0, 1, 2, 3, 40.]))", "pass"),
    ("special.erfinv", "y = torch.special.erfinv(torch.tensor([0, 0.5, -1., 0.999999]))", "pass"),  # Newton-refined helper
    ("Tensor.bitwise_not", "y = torch.tensor([-1, -2, 3], dtype=torch.int8).bitwise_not()", "pass"),
    ("Tensor.bitwise_left_shift", "x = torch.tensor([1, 2], dtype=torch.int32)\n"
                                  "y = x.bitwise_left_shift(torch.tensor([32, -1], dtype=torch.int32))", "pass"),
    ("Tensor.allclose", "a = torch.tensor([1 + 1j, 2.0])\nb = torch.tensor([1 + 1.001j, 2.0])\n"
                        "y = [a.allclose(a), a.allclose(b), a.allclose(b, atol=0.01)]", "pass"),
    ("special.psi", "y = torch.special.psi(torch.linspace(-9.5, 30, 80).double())", "pass"),
    # linear algebra as local functions (tests/convert/test_linalg.py); decompositions unique up to signs stay marked
    ("linalg.solve", "A = torch.tensor([[3., 1, 0], [1, 4, 2], [0, 2, 5]])\ny = torch.linalg.solve(A, torch.tensor([1., 2, 3]))",
     "pass"),
    ("linalg.cholesky", "A = torch.tensor([[2.0, 1 + 1j], [1 - 1j, 3.0]], dtype=torch.complex128)\n"
                        "y = torch.linalg.cholesky(A)", "pass"),
    ("cholesky_inverse", "a = torch.tensor([[[2., 1], [0, 1]], [[1., 0], [3, 1]]])\nA = a @ a.mT + torch.eye(2)\n"
                         "y = torch.cholesky_inverse(torch.linalg.cholesky(A))", "pass"),
    ("qr", "a = torch.tensor([[12., -51, 4], [6, 167, -68], [-4, 24, -41]])\nq, r = torch.qr(a)\ny = [q, r]", "pass"),
    ("linalg.lu", "A = torch.tensor([[1., 2], [4, 5], [7, 0]])\nP, L, U = torch.linalg.lu(A)\ny = [P, L, U]", "pass"),
    ("lu_solve", "A = torch.tensor([[[1., 2, 3], [4, 5, 7], [2, 0, 1]]], dtype=torch.float64)\n"
                 "LU, pivots = torch.linalg.lu_factor(A)\ny = torch.lu_solve(torch.tensor([[1.], [2], [3]], "
                 "dtype=torch.float64), LU, pivots)", "pass"),
    ("dist", "x = torch.tensor([-0.5, 1.2, 0.3, 2.0], dtype=torch.float64)\ny = torch.dist(x, torch.zeros(4, "
             "dtype=torch.float64), 3.5)", "pass"),
    ("norm", "c = torch.tensor([[1., 2, 3], [-1, 1, 4]])\ny = [torch.norm(c, p=1, dim=1), torch.norm(c, float('inf'))]",
     "pass"),
    ("cdist", "a = torch.tensor([[0.9041, 0.0196], [-0.3108, -2.4423], [-0.4821, 1.059]])\n"
              "b = torch.tensor([[-2.1763, -0.4713], [-0.6986, 1.3702]])\ny = torch.cdist(a, b, p=2)", "pass"),
    ("linalg.multi_dot", "y = torch.linalg.multi_dot([torch.tensor([[1, 2]]), torch.tensor([2, 3])])", "pass"),
    ("linalg.inv", "y = torch.linalg.inv(torch.tensor([[4., 1], [2, 3]], dtype=torch.float64))", "pass"),
    ("linalg.matrix_power", "A = torch.tensor([[0.5, 0.2], [0.1, 0.9]], dtype=torch.float64)\n"
                            "y = torch.linalg.matrix_power(A, -3)", "pass"),
    ("linalg.eigvalsh", "A = torch.tensor([[2., 1, 0], [1, 3, 1], [0, 1, 4]])\ny = torch.linalg.eigvalsh(A)", "pass"),
    ("linalg.pinv", "A = torch.tensor([[1., 2, 0, 1, 3], [0, 1, 4, 2, 1], [2, 0, 1, 1, 0]])\ny = torch.linalg.pinv(A)",
     "pass"),
    ("linalg.svd", "A = torch.tensor([[1., 2, 0], [0, 1, 4], [2, 0, 1], [1, 1, 1]])\nU, S, Vh = torch.linalg.svd(A)\n"
                   "y = U[:, :3] @ torch.diag(S) @ Vh", "marked"),
]


@pytest.mark.slow
def test_docstring_cases_compute_pytorchs_values_or_stay_marked():
    snippets = [parse_snippet(f"doc{i}.py", f"# api: {name}\n# compare: y\n" + HEADER + body + "\n")
                for i, (name, body, _) in enumerate(CASES)]
    verdicts = run_corpus(snippets)
    wrong = []
    for snippet, (name, _, expected) in zip(snippets, CASES):
        verdict = verdicts[snippet.name]
        got = "pass" if not verdict else "marked" if verdict.startswith("not converted") else f"wrong ({verdict})"
        if got != expected:
            wrong.append(f"[{name}] {snippet.source.splitlines()[-1]} -> {snippet.converted.splitlines()[-1]}: "
                         f"expected {expected}, got {got}")
    assert not wrong, "\n".join(wrong)


def converted(body: str):
    result = convert_source(HEADER + body + "\n")
    return result.text, [u.action for u in result.unconverted]


@pytest.mark.parametrize("body, named", [
    ("u, s, v = torch.svd(a)", "up to its sign"),  # converted, the singular vectors flagged
    ("y = torch.unique(x, dim=0, return_index=True)", "return_index="),  # dim= converts (unique_slices)
    ("y = torch.tensor_split(x, indices=torch.tensor([1, 3]))", ".tolist()"),  # positional: edge_forms.py converts it
    ("m = nn.AdaptiveMaxPool3d((None, 7, 7))", "output_size="),  # AdaptiveAvgPool2d/3d and MaxPool2d take None
    ("packet = torch.ops.aten.pow", "torch.ops.aten"),
    ("class Logged(torch.Tensor):\n    pass", "extends torch.Tensor"),
    ("@torch.library.custom_op('lib::f', mutates_args=())\ndef f(x: torch.Tensor) -> torch.Tensor:\n"
     "    return x.clone()", "torch.library.custom_op"),
])
def test_calls_mindspore_computes_differently_stay_marked(body, named):
    text, marks = converted(body)
    assert any(named in m for m in marks), marks


def test_the_calls_those_limits_leave_alone_still_convert():
    text, marks = converted("a = torch.copysign(x, -1.5)\nb = torch.narrow(x, 0, i, 2)\nc = nn.AdaptiveAvgPool2d((5, 7))"
                            "\nd = torch.ones(2, 3)")
    assert marks == []
    # copysign and narrow: local helpers (-0.0, a negative or tensor start: tests/convert/test_compositions.py)
    assert "copysign(x, -1.5)" in text and "narrow(x, 0, i, 2)" in text and "ops.ones((2, 3))" in text


def test_linalg_apis_are_bound_to_their_own_signature():
    # aten::norm is torch.norm's (p=); torch.linalg.norm is aten::linalg_norm (ord=), where 2 is no default;
    # the local function takes ord second as PyTorch does (values: tests/convert/linalg_norms_grid.py)
    text, marks = converted("y = torch.linalg.norm(B, 2)")
    assert marks == [] and "y = linalg_norm(B, 2)" in text


# -- the bench's own accounting --------------------------------------------------------------------------

def _bench():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "bench" / "docstring_examples.py"
    spec = importlib.util.spec_from_file_location("docstring_examples", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BLOCK = "x = torch.ones(2)\ny = torch.foo(x)\nz = torch.abs(y)\nw = torch.abs(x)\n"


def _rows(verdict_of_y: str, marked: set[int]):
    bench = _bench()
    from analysis.verify.blocks import prepare

    prepared = prepare(BLOCK)
    item = {"prepared": prepared, "marked_chunks": marked, "manual": set()}
    tres = {i: ("ok", {}) for i in range(4)}
    mres = {0: ("ok", {}), 1: ("error", "TypeError: no"), 2: ("error", "NameError: name 'y' is not defined"),
            3: ("error", "TypeError: own failure")}
    rows = [{"chunk": 1, "verdict": verdict_of_y, "problem": "TypeError: no"},
            {"chunk": 2, "verdict": "silent", "problem": "NameError: name 'y' is not defined"},
            {"chunk": 3, "verdict": "silent", "problem": "TypeError: own failure"}]
    return bench.attribute_blocked(rows, item, tres, mres)


def test_a_statement_failing_for_an_earlier_marked_one_counts_as_marked():
    rows = _rows("marked", {1})
    assert [r["verdict"] for r in rows] == ["marked", "marked", "silent"]  # w's failure is its own


def test_a_statement_failing_for_an_earlier_silent_one_is_counted_once():
    rows = _rows("silent", set())
    assert [r["verdict"] for r in rows] == ["silent", "blocked", "silent"]
    summary = _bench().summarize([{**r, "family": "torch"} for r in rows])
    assert summary["torch"]["calls"] == 2 and summary["torch"]["silent"] == 2 and summary["torch"]["blocked"] == 1


def test_a_tensor_an_earlier_marked_call_should_have_changed_in_place_counts_as_marked():
    bench = _bench()
    from analysis.verify.blocks import prepare

    for call, expected in [("numpy_sin_(x)", "marked"), ("r = f(x, out=x)", "marked"), ("x.add_(1)", "marked"),
                           ("print(x)", "silent"), ("r = x.sum()", "silent")]:
        prepared = prepare(f"x = torch.ones(2)\n{call}\ny = torch.abs(x)\n")
        item = {"prepared": prepared, "marked_chunks": {1}, "manual": set()}
        tres = {i: ("ok", {}) for i in range(3)}
        mres = {0: ("ok", {}), 1: ("error", "NameError: no"), 2: ("ok", {})}
        rows = bench.attribute_blocked([{"chunk": 2, "verdict": "silent", "problem": "y: values differ"}], item, tres, mres)
        assert rows[0]["verdict"] == expected, call


def test_a_decorated_definition_starts_at_its_decorator():
    from analysis.verify.blocks import chunk_of_line, prepare

    prepared = prepare("@torch.no_grad()\ndef f(x):\n    return x\n")
    decorator = prepared.splitlines().index("@torch.no_grad()") + 1
    assert chunk_of_line(prepared)[decorator] == 0


def test_fixed_random_values_make_full_rank_matrices_and_replace_random_fills():
    from analysis.verify.blocks import Deterministic, prepare

    a = Deterministic("torch").randn(4, 4)
    assert np.linalg.matrix_rank(a) == 4
    prepared = prepare("a = torch.randn(4).uniform_(1, 2)\n")
    assert "_rnd.fill_uniform(torch.tensor(_rnd.randn(4)), 1, 2)" in prepared
    # the stand-in is no Tensor method: the converter must not rewrite it as a random fill (it did with uniform_)
    converted = convert_source(prepared, path="e.py").text
    assert "_rnd.fill_uniform(mindspore.tensor(_rnd.randn(4)), 1, 2)" in converted, converted


def test_rounding_of_a_long_sum_is_tolerated_a_wrong_value_is_not():
    from analysis.verify.compare import difference

    expected = np.array([60.0, 1e-3], dtype=np.float32)
    assert difference(expected, expected + np.array([0, 2.5e-5], dtype=np.float32)) == ""
    assert difference(expected, expected + np.array([0, 1e-3], dtype=np.float32)) != ""
    huge = np.array([3.4e38, 3.14], dtype=np.float32)
    assert difference(huge, np.array([3.4e38, 4.14], dtype=np.float32)) != ""
