"""Linear algebra (torch.linalg and the older torch.* forms) goes to local functions of
helper_source.py built on MindSpore's CPU kernels (ops.svd, ops.qr, ops.cholesky, ops.matrix_solve,
MatrixTriangularSolve, SelfAdjointEig, the LU primitive): the fast tests read the conversion and the
analyzer's word; the slow one runs every local function and PyTorch on the same inputs (float32/64,
complex where PyTorch takes it, batches, the options each takes).

Where a decomposition is unique only up to signs (svd, eigh) or order (eig), the call is converted
and carries a MIGRATE comment: the reconstruction is PyTorch's, the vectors themselves may not be."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from analysis.convert import convert_source

ROOT = Path(__file__).resolve().parents[2]
HEADER = "import torch\n"


def converted(body: str):
    result = convert_source(HEADER + textwrap.dedent(body))
    return result.text, [(u.torch_api, u.action) for u in result.unconverted]


def test_linear_algebra_calls_go_to_local_functions_unmarked():
    text, marks = converted("""
        L = torch.linalg.cholesky(A, upper=True)
        l = torch.cholesky(A, True)
        X = torch.cholesky_solve(B, L)
        Ai = torch.cholesky_inverse(L)
        x = torch.linalg.solve(A, b, left=False)
        T = torch.linalg.solve_triangular(A, B, upper=True)
        LU, pivots = torch.linalg.lu_factor(A)
        P, Lo, U = torch.linalg.lu(A)
        LU2, piv2, info = torch.lu(A, get_infos=True)
        X2 = torch.linalg.lu_solve(LU, pivots, B, adjoint=True)
        X3 = torch.lu_solve(B, LU, pivots)
        M = torch.linalg.matrix_power(A, -2)
        w = torch.linalg.eigvalsh(A, UPLO="U")
        s = torch.linalg.svdvals(A)
        Q = torch.linalg.qr(A, mode="complete").Q
        q, r = torch.qr(A, some=False)
        Ap = torch.linalg.pinv(A, hermitian=True)
        Ap2 = torch.pinverse(A, rcond=1e-3)
        d = torch.dist(x, y, 3.5)
        n = torch.norm(c, p=1, dim=1)
        e = torch.cdist(a, b, p=2)
        k = torch.linalg.inv(A)
        md = torch.linalg.multi_dot([A, B, C])
        m = A.matrix_power(3)
        nn = c.norm(p="nuc")
    """)
    assert marks == []
    assert "import torch" not in text
    for line in ("L = linalg_cholesky(A, upper=True)", "l = cholesky(A, True)", "X = cholesky_solve(B, L)",
                 "Ai = cholesky_inverse(L)", "x = linalg_solve(A, b, left=False)",
                 "T = linalg_solve_triangular(A, B, upper=True)", "LU, pivots = linalg_lu_factor(A)",
                 "P, Lo, U = linalg_lu(A)", "LU2, piv2, info = lu_with_infos(A, get_infos=True)",
                 "X2 = linalg_lu_solve(LU, pivots, B, adjoint=True)", "X3 = lu_solve(B, LU, pivots)",
                 "M = linalg_matrix_power(A, -2)", 'w = linalg_eigvalsh(A, UPLO="U")', "s = linalg_svdvals(A)",
                 'Q = linalg_qr(A, mode="complete").Q', "q, r = qr(A, some=False)",
                 "Ap = linalg_pinv(A, hermitian=True)", "Ap2 = pinverse(A, rcond=1e-3)",
                 "d = lp_distance(x, y, 3.5)", "n = tensor_norm(c, p=1, dim=1)", "e = cdist(a, b, p=2)",
                 "k = ops.inverse(A)", "md = mindspore.numpy.multi_dot([A, B, C])", "m = matrix_power(A, 3)",
                 'nn = tensor_norm(c, p="nuc")'):
        assert line in text, line
    compile(text, "converted.py", "exec")


def test_decompositions_unique_up_to_signs_or_order_are_converted_with_a_marker():
    text, marks = converted("""
        u, s, v = torch.svd(a)
        U, S, Vh = torch.linalg.svd(a, full_matrices=False)
        L, Q = torch.linalg.eigh(A)
        w, V = torch.linalg.eig(A)
        ev = torch.linalg.eigvals(A)
        u2, s2, v2 = a.svd()
    """)
    assert "import torch" not in text
    for line in ("u, s, v = svd(a)", "U, S, Vh = linalg_svd(a, full_matrices=False)", "L, Q = linalg_eigh(A)",
                 "w, V = linalg_eig(A)", "ev = linalg_eigvals(A)", "u2, s2, v2 = svd(a)"):
        assert line in text, line
    apis = [api for api, _ in marks]
    assert apis == ["torch.svd", "torch.linalg.svd", "torch.linalg.eigh", "torch.linalg.eig", "torch.linalg.eigvals",
                    "torch.Tensor.svd"]
    assert all("up to its sign" in action for api, action in marks if "svd" in api or "eigh" in api)
    assert all("order" in action for api, action in marks if api.endswith(("eig", "eigvals")))
    assert text.count("# MIGRATE(MS-API-DIFF): converted to") == 6


def test_arguments_the_local_functions_do_not_take_leave_the_call_marked():
    text, marks = converted("""
        U, S, Vh = torch.linalg.svd(A, driver="gesvd")
        n = torch.norm(x, 2, 1, False, None, torch.float64)
        L = torch.linalg.cholesky(A, out=buffer)
    """)
    assert [api for api, _ in marks] == ["torch.linalg.svd", "torch.norm"]
    assert 'driver="gesvd"' in marks[0][1] and "positional argument 5" in marks[1][1]
    # out= is written into the buffer (tests/convert/test_out_and_inplace_functions.py)
    assert 'L = write_out(buffer, linalg_cholesky(A), "torch.linalg.cholesky")' in text


def test_the_analyzer_reports_them_as_mapped_and_the_sign_caveat_for_review():
    from analysis.scan import analyze_source

    report = analyze_source(HEADER + "x = torch.linalg.solve(A, b)\nU, S, Vh = torch.linalg.svd(A)\n"
                                     "n = torch.dist(x, y, 3.5)\nk = torch.linalg.inv(A)\n", "e.py")
    found = {f.torch_api: (f.rule_id, f.status.value) for f in report.findings}
    assert found["torch.linalg.solve"] == ("MS-API-MAPPED", "converted")
    assert found["torch.dist"] == ("MS-API-MAPPED", "converted")
    assert found["torch.linalg.inv"] == ("MS-API-MAPPED", "converted")
    assert found["torch.linalg.svd"] == ("MS-API-DIFF", "review")


# Each local function against PyTorch (one subprocess, both frameworks)
CHECK = r'''
import sys
import warnings
import numpy as np
import torch
import mindspore as ms
import mindspore.numpy
from mindspore import ops
sys.path.insert(0, sys.argv[1])
from analysis.convert.support import helper_source as h

warnings.filterwarnings("ignore")  # torch's deprecation notes for torch.lu, torch.qr, torch.lu_solve

rng = np.random.default_rng(0)
failures = []
count = [0]
TOL = {np.float32: (1e-4, 1e-5), np.float64: (1e-10, 1e-12), np.complex64: (1e-4, 1e-5), np.complex128: (1e-10, 1e-12)}


def plain(v):
    if isinstance(v, (tuple, list)):
        return [plain(x) for x in v]
    if hasattr(v, "asnumpy"):
        return v.asnumpy()
    if isinstance(v, torch.Tensor):
        return v.resolve_conj().numpy()
    return v


def outcome(fn, *args, **kwargs):
    try:
        return plain(fn(*args, **kwargs))
    except Exception as exc:  # raising where PyTorch raises is agreement
        return f"{type(exc).__name__}: {str(exc)[:150]}"


def same(t, m, tol):
    if isinstance(t, str) or isinstance(m, str):
        return isinstance(t, str) and isinstance(m, str)
    if isinstance(t, list):
        return isinstance(m, list) and len(t) == len(m) and all(same(a, b, tol) for a, b in zip(t, m))
    t, m = np.asarray(t), np.asarray(m)
    if t.shape != m.shape or t.dtype != m.dtype:
        return False
    if t.dtype.kind in "biu":
        return np.array_equal(t, m)
    rtol, atol = tol
    return np.allclose(t, m, rtol=rtol, atol=atol * max(1.0, np.abs(t).max() if t.size else 1.0))


def check(name, dtype, tf, mf, *arrays, **kw):
    count[0] += 1
    t = outcome(tf, *[torch.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays], **kw)
    m = outcome(mf, *[ms.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays], **kw)
    if not same(t, m, TOL[dtype]):
        failures.append(f"{name} {np.dtype(dtype).name} {[getattr(a, 'shape', a) for a in arrays]} {kw}: "
                        f"torch {str(t)[:300]} | mindspore {str(m)[:300]}")


def draw(shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def spd(shape, dtype):
    x = draw(shape, dtype)
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + np.eye(shape[-1]) * shape[-1]).astype(dtype)


def herm(shape, dtype):
    x = draw(shape, dtype)
    return (x + np.conj(np.swapaxes(x, -1, -2))).astype(dtype)


REAL = [np.float32, np.float64]
ALL = REAL + [np.complex64, np.complex128]
SQUARE = [(3, 3), (2, 4, 4), (2, 3, 2, 2)]

for dtype in ALL:
    for shape in SQUARE:
        a = spd(shape, dtype)
        for upper in (False, True):
            check("linalg.cholesky", dtype, torch.linalg.cholesky, h.linalg_cholesky, a, upper=upper)
            check("cholesky", dtype, torch.cholesky, h.cholesky, a, upper)
            L = torch.linalg.cholesky(torch.tensor(a), upper=upper).numpy()
            for bshape in (shape[:-1] + (2,), (shape[-1], 1), (3,) + shape[:-1] + (2,)) if len(shape) == 2 else \
                    (shape[:-1] + (2,), (shape[-1], 3)):
                b = draw(bshape, dtype)
                check("cholesky_solve", dtype, torch.cholesky_solve, h.cholesky_solve, b, L, upper)
            check("cholesky_inverse", dtype, torch.cholesky_inverse, h.cholesky_inverse, L, upper)
        # a matrix that is not Hermitian: both read the lower triangle only
        lower_only = np.tril(a) + np.triu(draw(shape, dtype), 1)
        check("linalg.cholesky lower triangle", dtype, torch.linalg.cholesky, h.linalg_cholesky, lower_only)
    for shape in SQUARE:
        A = draw(shape, dtype) + np.eye(shape[-1]).astype(dtype) * 3
        for bshape in (shape[-1:], shape[:-1], shape[:-1] + (2,), (shape[-1], 2), (5,) + shape[:-2] + (shape[-1], 1)):
            b = draw(bshape, dtype)
            check("linalg.solve", dtype, torch.linalg.solve, h.linalg_solve, A, b)
        b = draw(shape[:-2] + (2, shape[-1]), dtype)
        check("linalg.solve left=False", dtype, torch.linalg.solve, h.linalg_solve, A, b, left=False)
        for upper in (True, False):
            for unitriangular in (False, True):
                B = draw(shape[:-1] + (2,), dtype)
                check("solve_triangular", dtype, torch.linalg.solve_triangular, h.linalg_solve_triangular, A, B,
                      upper=upper, unitriangular=unitriangular)
                B = draw(shape[:-2] + (2, shape[-1]), dtype)
                check("solve_triangular left=False", dtype, torch.linalg.solve_triangular, h.linalg_solve_triangular,
                      A, B, upper=upper, left=False, unitriangular=unitriangular)
        for n in (0, 1, 2, 3, 4, 5, 7, 12, -1, -2, -5):
            check(f"matrix_power {n}", dtype, torch.linalg.matrix_power, h.linalg_matrix_power, A * 0.5, n)
        check("matrix_power old name", dtype, torch.matrix_power, h.matrix_power, A, 3)
        H = herm(shape, dtype)
        for UPLO in ("L", "U"):
            check("eigvalsh", dtype, torch.linalg.eigvalsh, h.linalg_eigvalsh, H, UPLO)
            # not Hermitian: both read one triangle
            check("eigvalsh triangle", dtype, torch.linalg.eigvalsh, h.linalg_eigvalsh, A, UPLO)
            L, Q = h.linalg_eigh(ms.tensor(H), UPLO)
            tL, tQ = torch.linalg.eigh(torch.tensor(H), UPLO)
            recon = ops.matmul(Q * L.astype(Q.dtype).unsqueeze(-2), h.conj_transpose(Q)).asnumpy()
            count[0] += 1
            if not (same(tL.numpy(), L.asnumpy(), TOL[dtype]) and same(H, recon, (TOL[dtype][0] * 10, TOL[dtype][1] * 10))
                    and same(np.abs(tQ.numpy()), np.abs(Q.asnumpy()), (TOL[dtype][0] * 10, TOL[dtype][1] * 10))):
                failures.append(f"eigh {dtype} {shape} {UPLO}")
    for shape in [(5, 3), (3, 5), (4, 4), (2, 5, 3), (2, 2, 3, 4)]:
        A = draw(shape, dtype)
        check("svdvals", dtype, torch.linalg.svdvals, h.linalg_svdvals, A)
        for full in (False, True):
            U, S, Vh = h.linalg_svd(ms.tensor(A), full)
            tU, tS, tVh = torch.linalg.svd(torch.tensor(A), full)
            k = min(shape[-2:])
            recon = ops.matmul(U[..., :, :k] * S.astype(U.dtype).unsqueeze(-2), Vh[..., :k, :]).asnumpy()
            count[0] += 1
            if not (same(tS.numpy(), S.asnumpy(), TOL[dtype]) and same(A, recon, (TOL[dtype][0] * 10, TOL[dtype][1] * 10))
                    and tU.shape == U.shape and tVh.shape == Vh.shape
                    and same(np.abs(tU.numpy()[..., :k]), np.abs(U.asnumpy()[..., :k]), (1e-3, 1e-4))):
                failures.append(f"linalg.svd {dtype} {shape} {full}")
            u, s, v = h.svd(ms.tensor(A), not full)
            tu, ts, tv = torch.svd(torch.tensor(A), not full)
            recon = ops.matmul(u[..., :, :k] * s.astype(u.dtype).unsqueeze(-2), h.conj_transpose(v[..., :, :k])).asnumpy()
            count[0] += 1
            if not (same(ts.numpy(), s.asnumpy(), TOL[dtype]) and same(A, recon, (TOL[dtype][0] * 10, TOL[dtype][1] * 10))
                    and tu.shape == u.shape and tv.shape == v.shape):
                failures.append(f"svd {dtype} {shape} some={not full}")
        check("svd compute_uv=False", dtype, torch.svd, h.svd, A, compute_uv=False)
        for mode in ("reduced", "complete", "r"):
            check(f"linalg.qr {mode}", dtype, torch.linalg.qr, h.linalg_qr, A, mode)
        check("qr some=False", dtype, torch.qr, h.qr, A, False)
        check("qr", dtype, torch.qr, h.qr, A)
        check("pinv", dtype, torch.linalg.pinv, h.linalg_pinv, A)
        check("pinv rtol", dtype, torch.linalg.pinv, h.linalg_pinv, A, rtol=0.5)
        check("pinv atol", dtype, torch.linalg.pinv, h.linalg_pinv, A, atol=0.8)
        check("pinv atol rtol", dtype, torch.linalg.pinv, h.linalg_pinv, A, atol=0.1, rtol=0.3)
        check("pinverse", dtype, torch.pinverse, h.pinverse, A)
        check("pinverse rcond", dtype, torch.pinverse, h.pinverse, A, 0.4)
        if shape[-1] == shape[-2]:
            H = herm(shape, dtype)
            check("pinv hermitian", dtype, torch.linalg.pinv, h.linalg_pinv, H, hermitian=True)
            check("pinv hermitian rtol", dtype, torch.linalg.pinv, h.linalg_pinv, H, hermitian=True, rtol=0.3)
    # rank-deficient: the cut-off drops the zero singular values in both
    A = np.ones((4, 3), dtype)
    check("pinv rank 1", dtype, torch.linalg.pinv, h.linalg_pinv, A)

for dtype in REAL:
    for shape in [(3, 3), (2, 4, 4), (2, 3, 2), (2, 2, 3), (5, 3), (1, 2, 3, 3)]:
        A = draw(shape, dtype)
        check("lu_factor", dtype, torch.linalg.lu_factor, h.linalg_lu_factor, A)
        check("lu", dtype, torch.linalg.lu, h.linalg_lu, A)
        check("torch.lu", dtype, torch.lu, h.lu_with_infos, A)
        check("torch.lu get_infos", dtype, torch.lu, h.lu_with_infos, A, get_infos=True)
        if shape[-1] == shape[-2]:
            LU, piv = torch.linalg.lu_factor(torch.tensor(A))
            LU, piv = LU.numpy(), piv.numpy()
            n = shape[-1]
            for bshape in (shape[:-1] + (2,), (n, 1), (3,) + shape[:-1] + (2,)):
                B = draw(bshape, dtype)
                for adjoint in (False, True):
                    check("linalg.lu_solve", dtype, torch.linalg.lu_solve, h.linalg_lu_solve, LU, piv, B, adjoint=adjoint)
                check("lu_solve old", dtype, torch.lu_solve, h.lu_solve, B, LU, piv)
            B = draw(shape[:-2] + (2, n), dtype)
            for adjoint in (False, True):
                check("linalg.lu_solve left=False", dtype, torch.linalg.lu_solve, h.linalg_lu_solve, LU, piv, B,
                      left=False, adjoint=adjoint)
    singular = np.array([[1.0, 2.0], [2.0, 4.0]], dtype)
    check("torch.lu singular infos", dtype, torch.lu, h.lu_with_infos, np.stack([singular, np.eye(2, dtype=dtype)]), get_infos=True)

    for cdtype in (np.complex64, np.complex128):
        for p in (2, 3.5, 1, float("inf")):
            check(f"dist complex {p}", cdtype, torch.dist, h.lp_distance, draw((2, 3), cdtype), draw((3,), cdtype), p)
            check(f"norm complex {p}", cdtype, torch.norm, h.tensor_norm, draw((2, 3), cdtype), p)
    x, y = draw((4,), dtype), draw((4,), dtype)
    for p in (2, 3.5, 3, 0, 1, 0.5, float("inf"), -float("inf"), -1):
        check(f"dist {p}", dtype, torch.dist, h.lp_distance, x, y, p)
        check(f"dist bcast {p}", dtype, torch.dist, h.lp_distance, draw((2, 3), dtype), draw((3,), dtype), p)
    check("dist default", dtype, torch.dist, h.lp_distance, x, y)
    a = (np.arange(9) - 4).astype(dtype)
    b = a.reshape(3, 3)
    c = draw((2, 3, 4), dtype)
    for args, kw in [((a,), {}), ((b,), {}), ((a, float("inf")), {}), ((b, float("inf")), {}), ((b, 1), {"dim": 1}),
                     ((c,), {"dim": (1, 2)}), ((c,), {"dim": 0, "keepdim": True}), ((c, 3), {"dim": [0, 2]}),
                     ((b, "nuc"), {}), ((c, "nuc"), {"dim": (0, 2), "keepdim": True}), ((c, "fro"), {"dim": (0, 1)}),
                     ((c, "fro"), {"dim": (0, 1, 2)}), ((c, 0), {}), ((c, -float("inf")), {"dim": 2}),
                     ((c, 2), {"dtype": torch.float64}), ((c, "nuc"), {}), ((c, "bad"), {})]:
        kw_ms = {k: (ms.float64 if v is torch.float64 else v) for k, v in kw.items()}
        count[0] += 1
        t = outcome(torch.norm, torch.tensor(args[0]), *args[1:], **kw)
        m = outcome(h.tensor_norm, ms.tensor(args[0]), *args[1:], **kw_ms)
        if not same(t, m, TOL[dtype]):
            failures.append(f"norm {dtype} {args[1:]} {kw}: {t} | {m}")
    for p in (2, 2.0, 1, 0, 3.5, float("inf")):
        for s1, s2 in [((3, 4), (5, 4)), ((2, 3, 4), (2, 5, 4)), ((30, 4), (27, 4))]:
            check(f"cdist {p}", dtype, torch.cdist, h.cdist, draw(s1, dtype), draw(s2, dtype), p)

for dtype in ALL:
    for shape in [(2, 2), (3, 3), (3, 2, 2)]:
        A = draw(shape, dtype)
        vals, vecs = h.linalg_eig(ms.tensor(A))
        tvals, tvecs = torch.linalg.eig(torch.tensor(A))
        recon = ops.matmul(vecs * vals.unsqueeze(-2), ops.inverse(vecs)).asnumpy()
        count[0] += 1
        order = lambda v: np.sort_complex(np.round(v, 4).reshape(-1, v.shape[-1]))
        if not (tvals.dtype == torch.complex64 and vals.dtype == ms.complex64 or
                tvals.dtype == torch.complex128 and vals.dtype == ms.complex128) or \
                not np.allclose(order(tvals.numpy()), order(vals.asnumpy()), atol=1e-3) or \
                not np.allclose(recon, A, atol=1e-4):
            failures.append(f"eig {dtype} {shape}")

for dtype in REAL + [np.int64]:
    mats = [np.array([1, 2]), np.array([[1, 2]]), np.array([[2], [3]]), np.array([2, 3])]
    for seq in [(mats[0], mats[3]), (mats[1], mats[3]), (mats[1], mats[2]),
                (np.arange(6).reshape(2, 3), np.arange(6).reshape(3, 2), np.arange(4).reshape(2, 2)),
                (np.arange(12).reshape(3, 4), np.arange(20).reshape(4, 5), np.arange(5))]:
        seq = [s.astype(dtype) for s in seq]
        count[0] += 1
        t = outcome(torch.linalg.multi_dot, [torch.tensor(s) for s in seq])
        m = outcome(ms.numpy.multi_dot, [ms.tensor(s) for s in seq])
        if not same(t, m, (1e-6, 1e-6)):
            failures.append(f"multi_dot {dtype} {[s.shape for s in seq]}: {t} | {m}")
    if dtype != np.int64:
        for shape in [(4, 4), (2, 3, 3)]:
            check("inverse", dtype, torch.linalg.inv, ops.inverse, draw(shape, dtype) + 3 * np.eye(shape[-1]).astype(dtype))

print("\n".join(failures) if failures else f"all agree ({count[0]} checks)")
'''


@pytest.mark.slow
def test_each_linear_algebra_function_returns_pytorchs_values(tmp_path):
    script = tmp_path / "check.py"
    script.write_text(CHECK)
    proc = subprocess.run([sys.executable, str(script), str(ROOT)], capture_output=True, text=True, cwd=tmp_path,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1].startswith("all agree"), proc.stdout[-5000:]
