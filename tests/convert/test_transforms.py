"""torch.func's function transforms (transforms.py, helper_transforms.py): each case converted and run in
both frameworks computes PyTorch's values, or stays marked where MindSpore would compute something else.
The helpers are also checked on their own against torch.func, including inside mindspore.vmap."""
from __future__ import annotations

import numpy as np
import pytest

from analysis.convert import convert_source
from tests.convert.harness import parse_snippet, run_corpus

HEADER = "import torch\n"
X5 = "x = torch.tensor([0.3, -1.2, 0.7, 2.0, -0.5])\n"
X25 = "x = torch.tensor([[-1.3, -1.0, -0.7, -0.3, 0.0], [0.3, 0.7, 1.0, 1.3, 1.7]])\n"
W = "w = torch.tensor([0.4, -0.3, 0.2, 0.1, -0.5])\n"

# (what, body computing y, "pass" (converted, PyTorch's values) or "marked")
CASES = [
    # grad: torch.func's packaging of argnums and has_aux; closures
    ("grad of a 0-d function", "from torch.func import grad\nx = torch.tensor(0.5)\n"
                               "y = grad(lambda x: torch.sin(x))(x)", "pass"),
    ("grad argnums tuple", X5 + W + "f = lambda a, b: (a * b * b).sum()\ny = torch.func.grad(f, argnums=(0, 1))(x, w)",
     "pass"),
    ("grad argnums tuple of one", X5 + W + "f = lambda a, b: (a * b * b).sum()\n"
                                  "y = torch.func.grad(f, argnums=(1,))(x, w)", "pass"),
    ("grad has_aux", X5 + W + "def loss(y, p):\n    per = (0.5 * p - y) ** 2\n    return per.mean(), (p, per)\n"
                     "y = torch.func.grad(loss, argnums=(0, 1), has_aux=True)(x, w)", "pass"),
    ("grad of a closure over its own argument", X5 + "y = torch.func.grad(lambda v: (v * x).sum())(x)", "pass"),
    ("grad of grad", "from torch.func import grad\nx = torch.tensor(0.5)\n"
                     "y = grad(grad(lambda x: torch.sin(x)))(x)", "marked"),
    ("grad of a function with a no_grad block", X5 + "def f(v):\n    with torch.no_grad():\n        c = v ** 2\n"
                                                "    return (v - c).sum()\ny = torch.func.grad(f)(x)", "marked"),
    # vmap
    ("vmap of dot, in_dims with None", X25 + W + "y = torch.vmap(torch.dot, in_dims=(0, None))(x, w)", "pass"),
    ("vmap out_dims", X25 + "f = lambda v: v ** 2\ny = torch.vmap(f, out_dims=1)(x)", "pass"),
    ("nested vmap", X25 + "x = torch.stack([x, x * 2])\ny = torch.vmap(torch.vmap(torch.dot))(x, x)", "pass"),
    ("per-sample gradients: vmap(grad)", X25 + W + "t = torch.tensor([0.1, -0.2])\n"
     "def model(weights, v):\n    return v.dot(weights).relu()\n"
     "def loss(weights, v, target):\n    return ((model(weights, v) - target) ** 2).mean()\n"
     "y = torch.func.vmap(torch.func.grad(loss), in_dims=(None, 0, 0))(w, x, t)", "pass"),
    ("vmap randomness='same'", X25 + "f = lambda v: v * 2\ny = torch.vmap(f, randomness='same')(x)", "marked"),
    ("vmap chunk_size", X25 + "f = lambda v: v * 2\ny = torch.vmap(f, chunk_size=1)(x)", "marked"),
    ("vmap of an inline lambda", X25 + "y = torch.vmap(lambda v: v * 2)(x)", "marked"),
    ("vmap in_dims as a dict", X25 + W + "f = lambda d: torch.dot(d['x'], d['y'])\n"
                                         "y = torch.vmap(f, in_dims=({'x': 0, 'y': None},))({'x': x, 'y': w})",
     "marked"),
    # vjp, jvp, linearize
    ("vjp", X5 + "out, vjp_fn = torch.func.vjp(lambda v: v.sin().sum(), x)\ny = (out, vjp_fn(torch.tensor(1.0)))",
     "pass"),
    ("vjp of tuple outputs", X5 + "out, vjp_fn = torch.func.vjp(lambda v: (v.sin(), v.cos()), x)\n"
                                  "y = vjp_fn((torch.ones(5), torch.ones(5)))", "pass"),
    ("vjp of a dict output", X5 + "out, vjp_fn = torch.func.vjp(lambda v: {'a': v.sin(), 'b': v.cos()}, x)\n"
                                  "y = vjp_fn({'a': torch.ones(5), 'b': x})", "pass"),
    ("vjp of two primals", X25 + "m = torch.tensor([[0.5], [1.0], [-1.0], [2.0], [0.1]])\n"
                                 "out, vjp_fn = torch.func.vjp(torch.matmul, x, m)\ny = vjp_fn(torch.ones(2, 1))",
     "pass"),
    ("jvp, 0-d input, vector output", "x = torch.tensor(0.5)\nf = lambda v: v * torch.tensor([1.0, 2.0, 3])\n"
                                      "y = torch.func.jvp(f, (x,), (torch.tensor(1.0),))", "pass"),
    ("jvp through a reduction", X25 + "f = lambda v: v.sum() ** 2 + (v.sin() * v).sum(1)\n"
                                      "y = torch.func.jvp(f, (x,), (x * 0.5,))", "pass"),
    ("jvp of tuple outputs", X5 + "f = lambda v, u: (v * u, v.sin())\n"
                                  "y = torch.func.jvp(f, (x, x + 1), (torch.ones(5), x))", "pass"),
    ("linearize", "def fn(v):\n    return v.sin()\n"
                  "out, jvp_fn = torch.func.linearize(fn, torch.zeros(3, 3))\ny = jvp_fn(torch.ones(3, 3))", "pass"),
    ("linearize of two primals", X5 + "def fn(v, u):\n    return v * u\n"
                                      "out, jvp_fn = torch.func.linearize(fn, x, x)\ny = jvp_fn(x, x)", "marked"),
    # jacrev, jacfwd, hessian
    ("jacrev of sin", X5 + "y = torch.func.jacrev(torch.sin)(x)", "pass"),
    ("jacrev has_aux", X5 + "def g(v):\n    r = v.sin()\n    return r, (r, v.cos())\n"
                            "y = torch.func.jacrev(g, has_aux=True)(x)", "pass"),
    ("jacfwd argnums tuple of one", X25 + "m = torch.tensor([[0.5], [1.0], [-1.0], [2.0], [0.1]])\n"
                                          "def f(a, b):\n    return a @ b\n"
                                          "y = torch.func.jacfwd(f, argnums=(1,))(x, m)",
     "pass"),
    ("hessian", X25 + "def f(v):\n    return v.sum() ** 2 + (v.sin() * v).sum()\ny = torch.func.hessian(f)(x)", "pass"),
    ("jacfwd(jacrev)", X5 + "def f(v):\n    return v.sin().sum()\n"
                            "y = torch.func.jacfwd(torch.func.jacrev(f))(x)", "pass"),
    ("jacrev chunk_size", X5 + "y = torch.func.jacrev(torch.sin, chunk_size=2)(x)", "marked"),
    # torch.autograd.grad differentiates a tape: no counterpart
    ("autograd.grad", X5 + "x.requires_grad_()\nz = (x ** 2).sum()\ny = torch.autograd.grad(z, x)", "marked"),
    # Tensor.dot: MindSpore's refuses 1-D tensors
    ("Tensor.dot", X5 + W + "y = x.dot(w)", "pass"),
]


@pytest.mark.slow
def test_transforms_compute_pytorchs_values_or_stay_marked():
    snippets = [parse_snippet(f"transform{i}.py", "# compare: y\n" + HEADER + body + "\n")
                for i, (_, body, _) in enumerate(CASES)]
    verdicts = run_corpus(snippets)
    wrong = []
    for snippet, (what, _, expected) in zip(snippets, CASES):
        verdict = verdicts[snippet.name]
        got = "pass" if not verdict else "marked" if verdict.startswith("not converted") else f"wrong ({verdict})"
        if got != expected:
            wrong.append(f"[{what}] expected {expected}, got {got}\n{snippet.converted}")
    assert not wrong, "\n\n".join(wrong)


def converted(body: str):
    result = convert_source(HEADER + body + "\n")
    return result.text, [u.action for u in result.unconverted]


def test_the_helpers_keep_their_own_names_beside_a_kept_torch_import():
    # `from torch.func import grad` stays for the call left marked: the converted one must not call it
    text, actions = converted("from torch.func import grad\nx = torch.tensor(0.5)\n"
                              "a = grad(lambda v: torch.sin(v))(x)\nb = grad(grad(lambda v: torch.sin(v)))(x)")
    assert "a = func_grad(lambda v: ops.sin(float_input(v)))(x)" in text  # integer inputs read as float32
    assert any("derivative of a derivative" in a for a in actions)


def test_a_function_redefined_later_is_judged_by_the_definition_in_force():
    # docstrings reuse one name: only the function with the no_grad block leaves its call marked
    text, actions = converted("x = torch.tensor([1.0, 2.0])\ndef f(v):\n    return v.sin().sum()\n"
                              "a = torch.func.grad(f)(x)\ndef f(v):\n    with torch.no_grad():\n        c = v ** 2\n"
                              "    return (v - c).sum()\nb = torch.func.grad(f)(x)")
    assert "a = func_grad(f)(x)" in text
    assert [a for a in actions if "no_grad" in a] and "b = torch.func.grad(f)(x)" in text


def test_vmap_keywords_take_mindspores_names_and_defaults_go():
    text, actions = converted("f = lambda v: v\ny = torch.vmap(f, in_dims=1, out_dims=0, randomness='error', "
                              "chunk_size=None)")
    assert "mindspore.vmap(f, in_axes=1, out_axes=0)" in text and not actions


def test_autograd_grad_says_how_to_restructure():
    _, actions = converted("x = torch.ones(2, requires_grad=True)\nz = (x * x).sum()\ng = torch.autograd.grad(z, x)")
    assert any("mindspore.grad(f" in a and "function" in a for a in actions)


def test_a_standalone_backward_says_which_gradient_function_to_write():
    _, actions = converted("x = torch.ones(3, requires_grad=True)\n(x * 2).sum().backward()\ng = x.grad")
    assert any(a.startswith("(x * 2).sum().backward() has no MindSpore counterpart") and "mindspore.grad(f" in a
               for a in actions)
    _, actions = converted("v = torch.zeros(3, requires_grad=True)\nv.backward(torch.ones(3))")
    assert any("mindspore.vjp(f, x)" in a for a in actions)
    # with an optimizer in the file the training-step advice stands
    _, actions = converted("w = torch.ones(3, requires_grad=True)\nopt = torch.optim.SGD([w], lr=0.1)\n"
                           "def step():\n    opt.zero_grad()\n    loss = (w * w).sum()\n    loss.backward()\n"
                           "    if True:\n        opt.step()")
    assert any("optimizer(grads)" in a for a in actions)


# -- the helpers on their own, against torch.func ----------------------------------------------------------

def _pair(values):
    import mindspore
    import torch

    return torch.tensor(np.asarray(values, np.float32)), mindspore.tensor(np.asarray(values, np.float32))


def _close(a, b):
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _close(x, y)
        return
    assert tuple(a.shape) == tuple(b.shape), (a, b)
    np.testing.assert_allclose(a.detach().numpy(), b.asnumpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1,), (1, 0)])
@pytest.mark.parametrize("has_aux", [False, True])
def test_grad_helper_packages_results_as_torch_func(argnums, has_aux):
    import torch

    from analysis.convert.support import helper_transforms as h

    xt, xm = _pair([0.3, -1.2, 0.7, 2.0, -0.5])
    wt, wm = _pair([1.3, -0.2, 1.7, 3.0, 0.5])

    def f(a, b):
        loss = (a * b * b).sum() + (a.sin() * b).sum() ** 2
        return (loss, (b, a * 2)) if has_aux else loss

    _close(torch.func.grad(f, argnums=argnums, has_aux=has_aux)(xt, wt),
           h.func_grad(f, argnums=argnums, has_aux=has_aux)(xm, wm))


@pytest.mark.slow
def test_grad_helper_refuses_a_tuple_argument_mindspore_would_answer_with_nothing():
    import mindspore

    from analysis.convert.support import helper_transforms as h

    _, xm = _pair([0.3, -1.2])
    assert mindspore.grad(lambda p: (p[0] * p[1]).sum())((xm, xm)) == ()  # what the helper guards against
    with pytest.raises(TypeError, match="must be tensors"):
        h.func_grad(lambda p: (p[0] * p[1]).sum())((xm, xm))


@pytest.mark.slow
@pytest.mark.parametrize("transform", ["jacrev", "jacfwd", "hessian"])
@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1,)])
def test_jacobian_helpers_match_torch_func(transform, argnums):
    import torch

    from analysis.convert.support import helper_transforms as h

    xt, xm = _pair([[-1.3, -1.0, 0.7], [0.3, 1.0, 1.7]])
    wt, wm = _pair([[0.5, -1.0, 2.0], [1.0, 0.1, -0.4]])

    def f(a, b):
        out = (a * b).sin() + a.sum() ** 2
        return out.sum() if transform == "hessian" else out

    _close(getattr(torch.func, transform)(f, argnums=argnums)(xt, wt),
           getattr(h, f"func_{transform}")(f, argnums=argnums)(xm, wm))


@pytest.mark.slow
@pytest.mark.parametrize("case", ["scalar", "vector", "tuple", "aux"])
def test_jvp_helper_matches_torch_func(case):
    import torch

    from analysis.convert.support import helper_transforms as h

    xt, xm = _pair([[-1.3, -1.0, 0.7], [0.3, 1.0, 1.7]])
    tt, tm = _pair([[0.5, -1.0, 2.0], [1.0, 0.1, -0.4]])
    functions = {
        "scalar": lambda v: v.sum() ** 2,  # a double reverse pass in PyNative mode gives 0 here
        "vector": lambda v: (v.sin() * v).sum(1),
        "tuple": lambda v: (v.sin(), v.sum()),
        "aux": lambda v: (v.cos() * v.sum(), v * 3),
    }
    f = functions[case]
    has_aux = case == "aux"
    _close(torch.func.jvp(f, (xt,), (tt,), has_aux=has_aux), h.func_jvp(f, (xm,), (tm,), has_aux=has_aux))


@pytest.mark.slow
def test_vjp_helper_matches_torch_func_with_aux():
    import torch

    from analysis.convert.support import helper_transforms as h

    xt, xm = _pair([0.3, -1.2, 0.7])
    out_t, fn_t, aux_t = torch.func.vjp(lambda v: (v.sin(), (v.cos(), v)), xt, has_aux=True)
    out_m, fn_m, aux_m = h.func_vjp(lambda v: (v.sin(), (v.cos(), v)), xm, has_aux=True)
    _close((out_t, fn_t(torch.ones(3)), aux_t), (out_m, fn_m(out_m * 0 + 1), aux_m))
