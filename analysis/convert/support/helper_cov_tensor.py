"""MindSpore definitions for torch.Tensor methods MindSpore's Tensor lacks (casts, new_tensor, put,
to_dense) and for torch.special functions with no MindSpore namesake or one that differs: edge inputs
(negative arguments of the Bessel functions of the second kind, 0 * log(0) in xlogy, the poles of
trigamma), the orthogonal polynomials, and erfinv/ndtri/log_ndtr/erfcx/airy_ai computed in float64
where MindSpore's own lose accuracy or do not exist. Same rules as helper_source.py: copied as it
stands, MindSpore reached only through `mindspore.`, `ops.` and `nn.`; numpy only where PyTorch's
kernel is a per-element loop no MindSpore op has."""
import mindspore
from mindspore import ops


def char(input):
    """x.char(): int8, MindSpore's Tensor has no char()."""
    return input.astype(mindspore.int8)


def cfloat(input):
    """x.cfloat(): complex64 with a zero imaginary part (booleans read as 0 and 1)."""
    if input.dtype == mindspore.bool_:
        input = input.astype(mindspore.float32)
    return input.astype(mindspore.complex64)


def cdouble(input):
    """x.cdouble(): complex128 with a zero imaginary part (booleans read as 0 and 1)."""
    if input.dtype == mindspore.bool_:
        input = input.astype(mindspore.float64)
    return input.astype(mindspore.complex128)


def new_tensor(input, data, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """x.new_tensor(data): a new tensor of data in x's dtype unless dtype= says another (a float list
    given to an integer tensor is truncated toward zero, as PyTorch does); a tensor given as data is copied."""
    import numpy
    dtype = input.dtype if dtype is None else dtype
    if isinstance(data, mindspore.Tensor):
        return data.astype(dtype).copy()
    values = numpy.asarray(data)
    if values.dtype == numpy.bool_ and dtype != mindspore.bool_:
        values = values.astype(numpy.int64)
    return mindspore.Tensor(values.astype(mindspore.dtype_to_nptype(dtype)), dtype)


def new_empty_strided(input, size, stride, dtype=None, device=None, requires_grad=False, layout=None,
                      pin_memory=False):
    """x.new_empty_strided(size, stride): an uninitialised tensor of that size in PyTorch, zeros here,
    laid out contiguously (the strides given are not reproduced: MindSpore builds no tensor from strides)."""
    return ops.zeros(tuple(size), input.dtype if dtype is None else dtype)


def to_dense(input, dtype=None, masked_grad=None):
    """x.to_dense(): a dense tensor is its own dense form; MindSpore's COOTensor and CSRTensor have
    to_dense()."""
    out = input if isinstance(input, mindspore.Tensor) else input.to_dense()
    return out if dtype is None else out.astype(dtype)


def put(input, index, source=None, accumulate=None):
    """x.put(index, source, accumulate=False): x read as one row, the elements at index (negative ones
    counted from the end) replaced by source, or added to with accumulate=True (repeated indices
    add up); MindSpore's put raises on CPU. Anything but a tensor (a queue's put(item, block), a numpy
    array's put(indices, values)) calls its own put with the arguments it was given."""
    if not isinstance(input, mindspore.Tensor):
        given = [index, source, accumulate]
        while given and given[-1] is None:
            given.pop()
        return input.put(*given)
    flat = input.reshape(-1)
    position = index.reshape(-1).astype(mindspore.int64)
    position = ops.where(position < 0, position + flat.shape[0], position).reshape(-1, 1)
    values = source.reshape(-1).astype(input.dtype)
    if position.shape[0] == 0:
        return input.copy()
    if input.dtype == mindspore.bool_:  # no scatter kernel for booleans: through uint8
        values = values.astype(mindspore.uint8)
        flat = flat.astype(mindspore.uint8)
        if accumulate:
            out = ops.tensor_scatter_add(flat, position, values) > 0
        else:
            out = ops.tensor_scatter_update(flat, position, values) > 0
        return out.reshape(input.shape)
    if accumulate and ops.is_complex(input):  # no complex TensorScatterAdd kernel: each part on its own
        real = ops.tensor_scatter_add(ops.real(flat), position, ops.real(values))
        imag = ops.tensor_scatter_add(ops.imag(flat), position, ops.imag(values))
        return ops.Complex()(real, imag).reshape(input.shape)
    if accumulate:
        return ops.tensor_scatter_add(flat, position, values).reshape(input.shape)
    return ops.tensor_scatter_update(flat, position, values).reshape(input.shape)


def polygamma(n, input):
    """torch.polygamma(n, x) / torch.special.polygamma: MindSpore's takes n as a tensor only, and no
    integer or boolean x (PyTorch reads those as float32)."""
    x = input if ops.is_floating_point(input) else input.astype(mindspore.float32)
    if int(n) == 1:
        return _trigamma(x)
    return ops.polygamma(mindspore.Tensor(int(n), mindspore.int64), x)


def _trigamma(input):
    """polygamma(1, x) by PyTorch's formula: the reflection pi^2 / sin(pi x)^2 below 0.5, six steps of the
    recurrence, then the asymptotic series; float16 computed in float32. At the poles (0, -1, -2...)
    sin(pi x) rounds to a tiny number, not 0, and PyTorch gives that large finite value where MindSpore
    gives inf. The constants are tensors of x's dtype (a Python float would be rounded to float32)."""
    x = input.astype(mindspore.float32) if input.dtype == mindspore.float16 else input

    def const(value):
        return mindspore.Tensor(value, x.dtype)
    pi, one = const(3.141592653589793), const(1.0)
    low = x < 0.5
    sine = ops.sin(pi * x)
    result = ops.where(low, -(pi * pi) / (sine * sine), ops.zeros_like(x))
    y = ops.where(low, one - x, x)
    for _ in range(6):
        result = result + one / (y * y)
        y = y + one
    ixx = one / (y * y)
    series = one / const(6.0) - ixx * (one / const(30.0) - ixx * (one / const(42.0)))
    result = result + (one + one / (const(2.0) * y) + ixx * series) / y
    return ops.where(low, -result, result).astype(input.dtype)


def polygamma_method(input, n):
    """x.polygamma(n): torch.polygamma(n, x), the order n first (the method takes it as its argument)."""
    return polygamma(n, input)


def _special_float(input):
    """x as PyTorch's special functions read it: integer and boolean tensors as float32."""
    if not isinstance(input, mindspore.Tensor):
        return mindspore.Tensor(input, mindspore.float32)
    if ops.is_floating_point(input):
        return input
    return input.astype(mindspore.float32)


def special_entr(input):
    """torch.special.entr: -x * log(x), 0 at x = 0 and -inf below 0 (NaN stays NaN)."""
    x = _special_float(input)
    out = -x * ops.log(ops.where(x > 0, x, ops.ones_like(x)))
    out = ops.where(x == 0, ops.zeros_like(x), out)
    return ops.where(x < 0, ops.full_like(x, float("-inf")), ops.where(ops.isnan(x), x, out))


def _xlog_operands(input, other):
    """The two operands of xlogy / xlog1py as tensors of one floating dtype: a Python number takes the
    other's, integers and booleans read as float32, float32 with float64 computed in float64."""
    if not isinstance(input, mindspore.Tensor):
        other = _special_float(other)
        input = mindspore.Tensor(input, other.dtype)
    elif not isinstance(other, mindspore.Tensor):
        input = _special_float(input)
        other = mindspore.Tensor(other, input.dtype)
    x, y = _special_float(input), _special_float(other)
    if x.dtype != y.dtype:
        wide = mindspore.float64 if mindspore.float64 in (x.dtype, y.dtype) else mindspore.float32
        x, y = x.astype(wide), y.astype(wide)
    return x, y


def special_xlog1py(input, other):
    """torch.special.xlog1py: x * log1p(y), 0 where x is 0 unless y is NaN; either operand may be a
    Python number."""
    x, y = _xlog_operands(input, other)
    out = x * ops.log1p(y)
    return ops.where((x == 0) & ~ops.isnan(y), ops.zeros_like(out), out)


def special_spherical_bessel_j0(x):
    """torch.special.spherical_bessel_j0: sin(x) / x, 1 at 0 and 0 at the infinities."""
    x = _special_float(x)
    safe = ops.where(x == 0, ops.ones_like(x), x)
    out = ops.where(x == 0, ops.ones_like(x), ops.sin(safe) / safe)
    return ops.where(ops.isinf(x), ops.zeros_like(x), out)


def _bessel_real_axis(input, op, at_zero=None):
    """A Bessel function defined for x >= 0 only: NaN below 0 as PyTorch gives (MindSpore's kernels
    return an infinity there); at_zero replaces MindSpore's value at 0."""
    x = _special_float(input)
    out = op(x)
    if at_zero is not None:
        out = ops.where(x == 0, ops.full_like(x, at_zero), out)
    return ops.where(x < 0, ops.full_like(x, float("nan")), out)


def special_bessel_y0(input):
    """torch.special.bessel_y0: ops.bessel_y0, NaN for x < 0."""
    return _bessel_real_axis(input, ops.bessel_y0)


def special_bessel_y1(input):
    """torch.special.bessel_y1: ops.bessel_y1, NaN for x < 0 and -inf at 0 (MindSpore: NaN)."""
    return _bessel_real_axis(input, ops.bessel_y1, float("-inf"))


def special_modified_bessel_k0(input):
    """torch.special.modified_bessel_k0: ops.bessel_k0, NaN for x < 0."""
    return _bessel_real_axis(input, ops.bessel_k0)


def special_modified_bessel_k1(input):
    """torch.special.modified_bessel_k1: ops.bessel_k1, NaN for x < 0."""
    return _bessel_real_axis(input, ops.bessel_k1)


def special_scaled_modified_bessel_k0(x):
    """torch.special.scaled_modified_bessel_k0: ops.bessel_k0e, NaN for x < 0."""
    return _bessel_real_axis(x, ops.bessel_k0e)


def special_scaled_modified_bessel_k1(x):
    """torch.special.scaled_modified_bessel_k1: ops.bessel_k1e, NaN for x < 0."""
    return _bessel_real_axis(x, ops.bessel_k1e)


def special_bessel_j0(input):
    """torch.special.bessel_j0: ops.bessel_j0 (integer and boolean tensors read as float32)."""
    return ops.bessel_j0(_special_float(input))


def special_bessel_j1(input):
    """torch.special.bessel_j1: ops.bessel_j1 (integer and boolean tensors read as float32)."""
    return ops.bessel_j1(_special_float(input))


def special_modified_bessel_i0(input):
    """torch.special.modified_bessel_i0: ops.bessel_i0 (integer and boolean tensors read as float32)."""
    return ops.bessel_i0(_special_float(input))


def special_modified_bessel_i1(input):
    """torch.special.modified_bessel_i1: ops.bessel_i1 (integer and boolean tensors read as float32)."""
    return ops.bessel_i1(_special_float(input))


def _polynomial_operands(input, n):
    """(x, n, numpy dtype) of torch.special's polynomials as numpy arrays broadcast together: x in the
    result's dtype (float64 when a float64 tensor is given, float32 otherwise: integers and booleans
    read as float32) and the degree truncated to an integer, as PyTorch's kernels cast it."""
    import numpy
    floats = [v.dtype for v in (input, n) if isinstance(v, mindspore.Tensor) and ops.is_floating_point(v)]
    dtype = numpy.float64 if mindspore.float64 in floats else numpy.float32
    x = input.asnumpy() if isinstance(input, mindspore.Tensor) else numpy.asarray(input)
    k = n.asnumpy() if isinstance(n, mindspore.Tensor) else numpy.asarray(n)
    x, k = numpy.broadcast_arrays(x.astype(dtype), numpy.asarray(k, dtype=dtype))
    with numpy.errstate(invalid="ignore"):
        return x, numpy.trunc(numpy.nan_to_num(k)).astype(numpy.int64), dtype


def _polynomial_by_recurrence(x, n, first, step):
    """The value of degree n at each x: 1 for degree 0, first for degree 1, then step(m, p, q) gives
    degree m + 1 from degrees m - 1 (p) and m (q), in x's dtype; 0 for a negative degree."""
    import numpy
    one = numpy.ones_like(x)
    out = numpy.where(n == 0, one, numpy.where(n == 1, first, numpy.zeros_like(x)))
    p, q = one, first
    with numpy.errstate(all="ignore"):
        for m in range(1, int(n.max(initial=0))):
            r = step(x.dtype.type(m), p, q).astype(x.dtype)
            out = numpy.where(n == m + 1, r, out)
            p, q = q, r
    return out


def _chebyshev(kind, input, n, shifted):
    """Chebyshev polynomials of the four kinds (T, U, V, W), shifted to [0, 1] or not: the three-term
    recurrence, the trigonometric form for large degrees inside (-1, 1) and PyTorch's values at the
    ends of the interval (its kernels' branches, in their order)."""
    import numpy
    x, k, dtype = _polynomial_operands(input, n)
    with numpy.errstate(all="ignore"):
        y = (x + x - dtype(1)) if shifted else x
        first = {"t": y, "u": y + y, "v": y + y - dtype(1), "w": y + y + dtype(1)}[kind]
        out = _polynomial_by_recurrence(y, k, first, lambda m, p, q: (y + y) * q - p)
        kf, even = k.astype(dtype), k % 2 == 0
        angle = numpy.arccos(numpy.clip(y, -1, 1)).astype(dtype)
        if shifted:
            large = {"t": 6, "u": 6, "v": 6, "w": 4}[kind]
        else:
            large = {"t": 6, "u": 8, "v": 8, "w": 8}[kind]
        inside = (k > large) & (numpy.abs(y) < 1)
        if kind == "t":
            trig = numpy.cos(kf * angle)
            top, bottom = numpy.ones_like(y), numpy.where(even, dtype(1), dtype(-1))
        elif kind == "u":
            s = numpy.sin(angle)
            trig = numpy.where(s != 0, numpy.sin((kf + 1) * angle) / s, (kf + 1) * numpy.cos((kf + 1) * angle) / y)
            top, bottom = kf + 1, numpy.where(even, kf + 1, -(kf + 1))
        elif kind == "v":
            odd_end = numpy.where(even, kf + kf + 1, -(kf + kf + 1))
            trig = numpy.where(numpy.sin(angle / 2) != 1, numpy.cos((kf + dtype(0.5)) * angle) / numpy.cos(angle / 2),
                               odd_end)
            top, bottom = numpy.ones_like(y), odd_end
        else:
            sign_end = numpy.where(y > 0, kf + kf + 1, numpy.where(even, dtype(1), dtype(-1)))
            trig = numpy.where(numpy.cos(angle / 2) != 1, numpy.sin((kf + dtype(0.5)) * angle) / numpy.sin(angle / 2),
                               sign_end)
            top, bottom = kf + kf + 1, numpy.where(even, dtype(1), dtype(-1))
        out = numpy.where(inside, trig.astype(dtype), out)
        if shifted:
            out = numpy.where(x == 0, bottom, numpy.where(x == 1, top, out))
        else:
            out = numpy.where(numpy.abs(x) == 1, numpy.where(x > 0, top, bottom), out)
        out = numpy.where(k < 0, dtype(0), out)
    return mindspore.Tensor(numpy.array(out, dtype=dtype))


def special_chebyshev_polynomial_t(x, n):
    """torch.special.chebyshev_polynomial_t(input, n): T_n(x), n truncated to an integer."""
    return _chebyshev("t", x, n, False)


def special_chebyshev_polynomial_u(x, n):
    """torch.special.chebyshev_polynomial_u(input, n): U_n(x), n truncated to an integer."""
    return _chebyshev("u", x, n, False)


def special_chebyshev_polynomial_v(x, n):
    """torch.special.chebyshev_polynomial_v(input, n): V_n(x), n truncated to an integer."""
    return _chebyshev("v", x, n, False)


def special_chebyshev_polynomial_w(x, n):
    """torch.special.chebyshev_polynomial_w(input, n): W_n(x), n truncated to an integer."""
    return _chebyshev("w", x, n, False)


def special_shifted_chebyshev_polynomial_t(x, n):
    """torch.special.shifted_chebyshev_polynomial_t(input, n): T_n(2x - 1)."""
    return _chebyshev("t", x, n, True)


def special_shifted_chebyshev_polynomial_u(x, n):
    """torch.special.shifted_chebyshev_polynomial_u(input, n): U_n(2x - 1)."""
    return _chebyshev("u", x, n, True)


def special_shifted_chebyshev_polynomial_v(x, n):
    """torch.special.shifted_chebyshev_polynomial_v(input, n): V_n(2x - 1)."""
    return _chebyshev("v", x, n, True)


def special_shifted_chebyshev_polynomial_w(x, n):
    """torch.special.shifted_chebyshev_polynomial_w(input, n): W_n(2x - 1)."""
    return _chebyshev("w", x, n, True)


def _simple_polynomial(kind, input, n):
    """Hermite (physicists' H, probabilists' He), Laguerre and Legendre polynomials by PyTorch's
    recurrences, with its values at the special points (L at 0, P at -1 and 1) and NaN past the degree
    its Hermite kernels stop at (128 in float32, 512 in float64)."""
    import numpy
    x, k, dtype = _polynomial_operands(input, n)
    with numpy.errstate(all="ignore"):
        if kind == "h":
            out = _polynomial_by_recurrence(x, k, x + x, lambda m, p, q: (x + x) * q - (m + m) * p)
        elif kind == "he":
            out = _polynomial_by_recurrence(x, k, x, lambda m, p, q: x * q - m * p)
        elif kind == "l":
            out = _polynomial_by_recurrence(x, k, dtype(1) - x,
                                            lambda m, p, q: (((m + m) + (dtype(1) - x)) * q - m * p) / (m + 1))
            out = numpy.where(x == 0, dtype(1), out)
        else:
            out = _polynomial_by_recurrence(x, k, x, lambda m, p, q: ((m + m + 1) * x * q - m * p) / (m + 1))
            ends = numpy.where((x > 0) | (k % 2 == 0), dtype(1), dtype(-1))
            out = numpy.where(numpy.abs(x) == 1, ends, out)
        if kind in ("h", "he"):
            limit = 512 if dtype == numpy.float64 else 128
            out = numpy.where(k > limit, dtype("nan"), out)
        out = numpy.where(k < 0, dtype(0), numpy.where(k == 0, dtype(1), out))
    return mindspore.Tensor(numpy.array(out, dtype=dtype))


def special_hermite_polynomial_h(x, n):
    """torch.special.hermite_polynomial_h(input, n): the physicists' Hermite polynomial H_n(x)."""
    return _simple_polynomial("h", x, n)


def special_hermite_polynomial_he(x, n):
    """torch.special.hermite_polynomial_he(input, n): the probabilists' Hermite polynomial He_n(x)."""
    return _simple_polynomial("he", x, n)


def special_laguerre_polynomial_l(x, n):
    """torch.special.laguerre_polynomial_l(input, n): the Laguerre polynomial L_n(x)."""
    return _simple_polynomial("l", x, n)


def special_legendre_polynomial_p(x, n):
    """torch.special.legendre_polynomial_p(input, n): the Legendre polynomial P_n(x)."""
    return _simple_polynomial("p", x, n)


def _incomplete_gamma(input, other, op, at_a_zero, at_x_zero, at_a_inf, at_x_inf):
    """ops.igamma / ops.igammac with PyTorch's values where MindSpore's give NaN: a or x at 0 or
    infinite (NaN for a negative operand, both at 0 or both infinite); float16 computed in float32."""
    if not isinstance(input, mindspore.Tensor):
        input = mindspore.Tensor(input, other.dtype)
    if not isinstance(other, mindspore.Tensor):
        other = mindspore.Tensor(other, input.dtype)
    dtype = mindspore.float64 if mindspore.float64 in (input.dtype, other.dtype) else \
        (mindspore.float32 if mindspore.float32 in (input.dtype, other.dtype) else input.dtype)
    import numpy
    shape = tuple(numpy.broadcast_shapes(tuple(input.shape), tuple(other.shape)))
    a, x = ops.broadcast_to(input.astype(dtype), shape), ops.broadcast_to(other.astype(dtype), shape)
    wide = mindspore.float32 if dtype == mindspore.float16 else dtype
    a, x = a.astype(wide), x.astype(wide)
    out = op(a, x)

    def full(value):
        return ops.full_like(out, value)
    out = ops.where(ops.isinf(x), full(at_x_inf), out)
    out = ops.where(ops.isinf(a), ops.where(ops.isinf(x), full(float("nan")), full(at_a_inf)), out)
    out = ops.where(x == 0, full(at_x_zero), out)
    out = ops.where(a == 0, ops.where(x > 0, full(at_a_zero), full(float("nan"))), out)
    out = ops.where((x < 0) | (a < 0), full(float("nan")), out)
    return out.astype(dtype)


def special_gammainc(input, other):
    """torch.special.gammainc / torch.igamma: the regularized lower incomplete gamma function."""
    return _incomplete_gamma(input, other, ops.igamma, 1.0, 0.0, 0.0, 1.0)


def special_gammaincc(input, other):
    """torch.special.gammaincc / torch.igammac: the regularized upper incomplete gamma function."""
    return _incomplete_gamma(input, other, ops.igammac, 0.0, 1.0, 1.0, 0.0)


def special_xlogy(input, other):
    """torch.special.xlogy: x * log(y), 0 where x is 0 unless y is NaN (MindSpore's xlogy gives NaN
    for 0 * log(0) and 0 * log(y < 0), and refuses integer tensors, which PyTorch reads as float32)."""
    x, y = _xlog_operands(input, other)
    out = ops.xlogy(x, y)
    return ops.where((x == 0) & ~ops.isnan(y), ops.zeros_like(out), out)


def _float64_of(input):
    """(x in float64, the dtype to give back): PyTorch's dtype rule (integers and booleans read as
    float32) with the computation in float64, where MindSpore's erf/erfc/exp/log are exact enough."""
    x = _special_float(input)
    return x.astype(mindspore.float64), x.dtype


def _f64(value):
    """A float64 constant: MindSpore rounds a Python float to float32 before it meets a float64 tensor
    (x * 0.1 is off by 1.5e-9), which the float64 helpers here cannot afford."""
    return mindspore.Tensor(value, mindspore.float64)


def _erfc_solve(z, y):
    """y with erfc(y) = z, for float64 z in (0, 1]: Newton's method on log(erfc(y)) from the guess y
    (the tail of erfc is solved to float64's precision where erf(y) - 1 would cancel)."""
    root_pi = _f64(1.7724538509055159)
    log_z = ops.log(z)
    for _ in range(8):
        tail = ops.erfc(y)
        step = (ops.log(tail) - log_z) * tail * root_pi / (-2.0 * ops.exp(-y * y))
        y = ops.where(tail > 0, y - step, y)
    return y


def _erfc_guess(z):
    """A starting point for _erfc_solve: MindSpore's erfinv(1 - z) where it is accurate, the tail's
    asymptotic form (erfc(y) ~ exp(-y^2) / (y sqrt(pi))) where z is small."""
    big = -ops.log(ops.clamp(z, 1e-300, 1.0))
    rough = ops.sqrt(big)
    tail = ops.sqrt(ops.clamp(big - ops.log(ops.clamp(rough, 1.0, None) * _f64(1.7724538509055159)), 0.0, None))
    return ops.where(z > 0.01, ops.erfinv(1.0 - z), tail)


def special_erfinv(input):
    """torch.special.erfinv: MindSpore's erfinv loses accuracy past |x| = 0.99, so its value is refined
    by Newton's method in float64 (on erf below |x| = 0.5, on erfc above, where 1 - |x| is exact);
    +-inf at +-1, NaN beyond; integer and boolean tensors read as float32."""
    x, dtype = _float64_of(input)
    a = ops.abs(x)
    inside = a < 1
    safe = ops.where(inside, a, ops.zeros_like(a))
    y = ops.erfinv(safe)
    for _ in range(3):  # near 0: the erf form, where it has full precision
        y = y - (ops.erf(y) - safe) * _f64(0.886226925452758) * ops.exp(y * y)
    tail = _erfc_solve(ops.where(inside & (a >= 0.5), 1.0 - safe, ops.full_like(a, 0.5)),
                       ops.where(inside & (a >= 0.5), y, ops.full_like(a, 0.4769362762044699)))
    y = ops.where(a >= 0.5, tail, y)
    y = ops.where(a == 1, ops.full_like(a, float("inf")), ops.where(a > 1, ops.full_like(a, float("nan")), y))
    y = ops.where(ops.isnan(x), x, y)
    return (ops.where(x < 0, -y, y)).astype(dtype)


def special_ndtri(input):
    """torch.special.ndtri: the standard normal quantile, -sqrt(2) * erfcinv(2p) solved in float64 on the
    tail of erfc (exact for p near 0 and, through 1 - p, near 1); -inf at 0, inf at 1, NaN outside."""
    p, dtype = _float64_of(input)
    upper = p > 0.5
    z = 2.0 * ops.where(upper, 1.0 - p, p)  # in (0, 1]: exact for p in [0.5, 1]
    inside = (p > 0) & (p < 1)
    z = ops.where(inside, z, ops.ones_like(z))
    y = _erfc_solve(z, _erfc_guess(z))
    y = ops.where(z == 1, ops.zeros_like(y), y)
    root_two = _f64(1.4142135623730951)
    out = ops.where(upper, root_two * y, -root_two * y)
    out = ops.where(p == 0, ops.full_like(p, float("-inf")), ops.where(p == 1, ops.full_like(p, float("inf")), out))
    out = ops.where((p < 0) | (p > 1) | ops.isnan(p), ops.full_like(p, float("nan")), out)
    return out.astype(dtype)


def special_log_ndtr(input):
    """torch.special.log_ndtr: log of the standard normal CDF in float64, log1p(-erfc(x / sqrt(2)) / 2)
    above -1, log(erfc(-x / sqrt(2)) / 2) below, and the asymptotic series below -30 (where erfc
    underflows)."""
    x, dtype = _float64_of(input)
    t = x * _f64(0.7071067811865476)
    upper = ops.log1p(-0.5 * ops.erfc(ops.where(x > -1, t, ops.zeros_like(t))))
    middle = ops.log(0.5 * ops.erfc(-ops.where(x > -1, ops.full_like(t, -1.0), t)))
    far = ops.where(x < -30, x, ops.full_like(x, -30.0))
    inv = 1.0 / (far * far)
    series = 1.0 + inv * (-1.0 + inv * (3.0 + inv * (-15.0 + inv * (105.0 - inv * 945.0))))
    lower = -0.5 * far * far - ops.log(-far) - _f64(0.9189385332046727) + ops.log(series)
    out = ops.where(x > -1, upper, ops.where(x < -30, lower, middle))
    return ops.where(ops.isnan(x), x, out).astype(dtype)


def special_erfcx(input):
    """torch.special.erfcx: exp(x^2) * erfc(x) in float64 below 10 (inf past -26.6, where PyTorch's is too),
    its asymptotic series above (where erfc underflows and exp overflows): 0 at +inf."""
    x, dtype = _float64_of(input)
    near = ops.where(x < 10, x, ops.zeros_like(x))
    direct = ops.exp(near * near) * ops.erfc(near)
    far = ops.where(x >= 10, x, ops.full_like(x, 10.0))
    half_inv = 0.5 / (far * far)
    series = ops.ones_like(far)
    term = ops.ones_like(far)
    for k in range(1, 10):
        term = -term * (2 * k - 1) * half_inv
        series = series + term
    asymptotic = series / (far * _f64(1.7724538509055159))
    out = ops.where(x < 10, direct, asymptotic)
    out = ops.where(ops.isinf(x) & (x > 0), ops.zeros_like(x), out)
    return ops.where(ops.isnan(x), x, out).astype(dtype)


def special_log_softmax(input, dim, *, dtype=None):
    """torch.special.log_softmax: torch.log_softmax's helper (dtype= is keyword-only here)."""
    return log_softmax_dtype(input, dim, dtype)


def special_airy_ai(x):
    """torch.special.airy_ai: the Airy function Ai in float64 (MindSpore has none): its Maclaurin series
    on [-8, 5], the decaying asymptotic series above 5 and the oscillating one below -8; NaN at the
    infinities, as PyTorch gives."""
    t, dtype = _float64_of(x)
    root_pi = _f64(1.7724538509055159)
    # Maclaurin: Ai = c1 f - c2 g, the terms of f and g each x^3 times the last over two factors
    near = ops.clamp(t, -8.0, 5.0)
    cube = near * near * near
    f_term, g_term = ops.ones_like(near), near
    f_sum, g_sum = f_term, g_term
    for k in range(60):
        f_term = f_term * cube / ((3 * k + 2) * (3 * k + 3))
        g_term = g_term * cube / ((3 * k + 3) * (3 * k + 4))
        f_sum, g_sum = f_sum + f_term, g_sum + g_term
    series = _f64(0.3550280538878172) * f_sum - _f64(0.2588194037928068) * g_sum
    # asymptotic coefficients u_k = (6k - 5)(6k - 3)(6k - 1) / ((2k - 1) 216 k) u_(k-1)
    u = [1.0]
    for k in range(1, 25):
        u.append(u[-1] * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216 * k))
    u = [_f64(value) for value in u]
    big = ops.where(t > 5, t, ops.full_like(t, 6.0))
    zeta = _f64(2.0 / 3.0) * big * ops.sqrt(big)
    total, power = ops.zeros_like(big), ops.ones_like(big)
    for k in range(25):
        total = total + ((-1) ** k) * u[k] * power
        power = power / zeta
    decaying = ops.exp(-zeta) * total / (2.0 * root_pi * ops.sqrt(ops.sqrt(big)))
    neg = ops.where(t < -8, -t, ops.full_like(t, 9.0))
    zeta = _f64(2.0 / 3.0) * neg * ops.sqrt(neg)
    p_sum, q_sum, power = ops.zeros_like(neg), ops.zeros_like(neg), ops.ones_like(neg)
    for k in range(24):
        term = u[k] * power
        if k % 2 == 0:
            p_sum = p_sum + ((-1) ** (k // 2)) * term
        else:
            q_sum = q_sum + ((-1) ** (k // 2)) * term
        power = power / zeta
    phase = zeta + _f64(0.7853981633974483)
    oscillating = (ops.sin(phase) * p_sum - ops.cos(phase) * q_sum) / (root_pi * ops.sqrt(ops.sqrt(neg)))
    out = ops.where(t > 5, decaying, ops.where(t < -8, oscillating, series))
    out = ops.where(ops.isinf(t), ops.full_like(t, float("nan")), out)
    return ops.where(ops.isnan(t), t, out).astype(dtype)
