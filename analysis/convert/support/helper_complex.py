"""Complex tensors where MindSpore's CPU kernel has no complex dtype (issue 29). The kernel dtype bridge
(helper_kernels.kernel_dtypes) hands a call whose first tensor is complex64 or complex128 to complex_kernel(),
which computes it with the real kernel on the real and imaginary parts (float32 or float64), or to a
composition with the complex arithmetic MindSpore has (mul, matmul, exp, log). Which API goes which way is
data (knowledge/data/kernel_dtypes.json, written by `python -m analysis.verify.kernel_bridge`, which keeps a
way only where the results equal PyTorch's on its OpInfo samples). Same rules as helper_source.py: copied as
it stands."""
import mindspore
from mindspore import ops


def complex_kernel(function, how, args, kwargs):
    """function(*args, **kwargs) (function: a callable, or the name of a method of the first argument) for
    complex tensors, `how` saying which identity computes it from kernels MindSpore has:
    parts        linear in its complex tensors (rearrangements, scatters, trace): f(re) + i f(im)
    magnitude    a real result MindSpore returns in a complex dtype (abs, l1_loss): its real part
    variance     var (and var_mean): the parts' variances add; a mean comes back complex
    deviation    std (and std_mean): the square root of that sum
    either/both  isinf, isnan: either part; isfinite: both parts
    product I J  linear in its complex tensors but for the product of the I-th and J-th (addmm, addcmul,
                 conv): (a + ib)(c + id) written out, each term one real call
    phase        f(z) = z / |z| * f(|z|) (normalize, softsign)
    draws        random like: each part drawn on its own (normal draws: each part of variance 1/2)
    (isclose, lerp, logsumexp, logaddexp and logcumsumexp are compositions of their own, complex_<name>,
    that kernel_dtypes calls with the call's arguments.)"""
    tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, mindspore.Tensor) and a.is_complex()]
    real = mindspore.float32 if tensors[0].dtype == mindspore.complex64 else mindspore.float64
    words = how.split()
    if words[0] in ("draws", "normal"):
        if "dtype" in kwargs and kwargs["dtype"] not in (mindspore.complex64, mindspore.complex128):
            return kernel_call(function, args, kwargs)  # a real dtype= asked for: real draws
        scale = 0.5 ** 0.5 if words[0] == "normal" else 1.0
        kwargs = {k: real if k == "dtype" else v for k, v in kwargs.items()}
        return complex_of(complex_with(function, args, kwargs, complex_real).astype(real) * scale,
                          complex_with(function, args, kwargs, complex_imag).astype(real) * scale)
    if words[0] == "parts":
        return complex_join(complex_with(function, args, kwargs, complex_real, numbers=True),
                            complex_with(function, args, kwargs, complex_imag, numbers=True), real)
    if words[0] == "magnitude":
        return complex_real_part(kernel_call(function, args, kwargs))
    if words[0] in ("variance", "deviation", "either", "both"):
        return complex_spread(words[0], complex_with(function, args, kwargs, complex_real),
                              complex_with(function, args, kwargs, complex_imag), real)
    if words[0] == "product":
        return complex_product(function, args, kwargs, int(words[1]), int(words[2]))
    if words[0] == "phase":
        size = ops.ComplexAbs()(tensors[0])
        scaled = complex_with(function, args, kwargs, lambda z: size)
        ratio = ops.where(size > 0, scaled / ops.where(size > 0, size, ops.ones_like(size)), ops.zeros_like(size))
        return tensors[0] * complex_of(ratio, ops.zeros_like(ratio))
    raise ValueError(f"no complex way named {how!r}")


def complex_real(z):
    """z's real part (ops.real refuses an empty tensor)."""
    if z.size:
        return ops.real(z)
    return ops.zeros(z.shape, mindspore.float32 if z.dtype == mindspore.complex64 else mindspore.float64)


def complex_imag(z):
    """z's imaginary part (ops.imag refuses an empty tensor)."""
    if z.size:
        return ops.imag(z)
    return ops.zeros(z.shape, mindspore.float32 if z.dtype == mindspore.complex64 else mindspore.float64)


def complex_of(re, im):
    """re + i im, of float32 parts complex64, of float64 parts complex128 (ops.Complex refuses empty parts)."""
    if re.size:
        return ops.Complex()(re, im)
    return ops.zeros(re.shape, mindspore.complex64 if re.dtype == mindspore.float32 else mindspore.complex128)


def complex_draw(function, how, *args, **kwargs):
    """torch.randn / torch.rand with a complex dtype=, which MindSpore's refuse: each part drawn in the real
    dtype (uniform on [0, 1), or normal of variance 1/2 as PyTorch draws a complex normal)."""
    real = mindspore.float32 if kwargs.pop("dtype") == mindspore.complex64 else mindspore.float64
    scale = 0.5 ** 0.5 if how == "normal draws" else 1.0
    return complex_of(function(*args, dtype=real, **kwargs) * scale, function(*args, dtype=real, **kwargs) * scale)


def complex_with(function, args, kwargs, part, numbers=False):
    """function called with each complex tensor argument (also inside a list or tuple) replaced by part(it);
    numbers=True: Python float and complex numbers too (a function linear in its data: scatter's value)."""
    def swap(value):
        if isinstance(value, mindspore.Tensor) and value.is_complex():
            return part(value)
        if numbers and isinstance(value, (float, complex)):
            return complex(value).imag if part is complex_imag else complex(value).real
        if isinstance(value, (list, tuple)):
            return type(value)(swap(v) for v in value)
        return value
    return kernel_call(function, [swap(a) for a in args], {k: swap(v) for k, v in kwargs.items()})


def complex_join(re, im, real):
    """re + i im, through tuples; float tensors cast to `real` first, other outputs (indices) taken from re."""
    if isinstance(re, (tuple, list)):
        return type(re)(complex_join(a, b, real) for a, b in zip(re, im))
    if isinstance(re, mindspore.Tensor) and ops.is_floating_point(re):
        return complex_of(re.astype(real), im.astype(real))
    return re


def complex_real_part(out):
    """out with its complex tensors replaced by their real parts, through tuples."""
    if isinstance(out, (tuple, list)):
        return type(out)(complex_real_part(o) for o in out)
    return complex_real(out) if isinstance(out, mindspore.Tensor) and out.is_complex() else out


def complex_spread(how, re, im, real):
    """The variance, deviation or test of a complex tensor from those of its parts; the second output of
    var_mean / std_mean (the mean) is the complex mean."""
    if isinstance(re, (tuple, list)):
        return type(re)([complex_spread(how, re[0], im[0], real), complex_join(re[1], im[1], real)])
    if how == "either":
        return ops.logical_or(re, im)
    if how == "both":
        return ops.logical_and(re, im)
    if how == "variance":
        return (re + im).astype(real)
    return ops.sqrt(re * re + im * im).astype(real)


def complex_product(function, args, kwargs, first, second):
    """A function linear in its complex tensors but for the product of the first-th and second-th (counted
    among the complex tensor arguments): addmm-like beta * x + alpha * (a @ b), conv(x, w) + bias. With
    a = ar + i ai and b = br + i bi, its real part is f(xr, ar, br) - f(0, ai, bi) and its imaginary part
    f(xi, ar, bi) + f(0, ai, br). A complex alpha= or value= scales a first, a complex beta= the others."""
    kwargs = dict(kwargs)
    scale = {}
    for name in ("alpha", "value", "beta"):
        if isinstance(kwargs.get(name), complex):
            scale[name] = kwargs.pop(name)
            kwargs[name] = 1
    slots = [("a", i) for i, a in enumerate(args) if isinstance(a, mindspore.Tensor) and a.is_complex()] + \
        [("k", k) for k, v in kwargs.items() if isinstance(v, mindspore.Tensor) and v.is_complex()]
    values = {slot: (args[slot[1]] if slot[0] == "a" else kwargs[slot[1]]) for slot in slots}
    for n, slot in enumerate(slots):
        factor = scale.get("alpha", scale.get("value")) if n == first else None if n == second else scale.get("beta")
        if factor is not None:
            values[slot] = values[slot] * mindspore.Tensor(factor, values[slot].dtype)
    if len(slots) <= second:  # a factor not complex (trapz with dx=): linear in the complex tensors
        return complex_join(complex_with(function, args, kwargs, complex_real),
                            complex_with(function, args, kwargs, complex_imag), complex_real(values[slots[0]]).dtype)
    a, b = values[slots[first]], values[slots[second]]

    def call(x, pair):  # f with the other complex tensors as x (a part, or zeros) and the factors as pair
        new_args, new_kwargs = list(args), dict(kwargs)
        for n, slot in enumerate(slots):
            value = pair[0] if n == first else pair[1] if n == second else x(values[slot])
            if slot[0] == "a":
                new_args[slot[1]] = value
            else:
                new_kwargs[slot[1]] = value
        return kernel_call(function, new_args, new_kwargs)
    zero = lambda z: ops.zeros_like(complex_real(z))
    re = call(complex_real, (complex_real(a), complex_real(b))) - call(zero, (complex_imag(a), complex_imag(b)))
    im = call(complex_imag, (complex_real(a), complex_imag(b))) + call(zero, (complex_imag(a), complex_real(b)))
    return complex_of(re, im.astype(re.dtype))


def complex_isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """torch.isclose for complex: equal, or both NaN with equal_nan, or |input - other| finite and at most
    atol + rtol * |other| (complex magnitudes)."""
    close = input == other
    if equal_nan:
        close = ops.logical_or(close, ops.logical_and(complex_nan(input), complex_nan(other)))
    error = ops.ComplexAbs()(input - other)
    allowed = atol + rtol * ops.ComplexAbs()(other)
    return ops.logical_or(close, ops.logical_and(ops.isfinite(error), error <= allowed))


def complex_nan(z):
    return ops.logical_or(ops.isnan(complex_real(z)), ops.isnan(complex_imag(z)))


def complex_lerp(input, end, weight):
    """torch.lerp for complex (MindSpore's Lerp has no float64 kernel to take the parts): PyTorch's formula,
    from the nearer end by the weight's magnitude; a Python complex weight becomes a tensor."""
    if not isinstance(weight, mindspore.Tensor):
        weight = mindspore.Tensor(weight, input.dtype)
    weight = weight.astype(input.dtype)
    near = ops.ComplexAbs()(weight) < 0.5
    return ops.where(near, input + weight * (end - input), end - (end - input) * (ops.ones_like(weight) - weight))


def complex_logsumexp(input, dim, keepdim=False):
    """torch.logsumexp for complex: log(sum(exp(z - m))) + m, m the largest real part where finite."""
    m = ops.amax(complex_real(input), dim, keepdims=True)
    m = ops.where(ops.isinf(m), ops.zeros_like(m), m)
    m = complex_of(m, ops.zeros_like(m))
    out = ops.log(ops.sum(ops.exp(input - m), dim, keepdim=True)) + m
    return out if keepdim else out.squeeze(dim)


def complex_logaddexp(input, other):
    """torch.logaddexp for complex, as PyTorch computes it: the operand of the larger real part plus
    log(1 + exp(the other - it)) (the imaginary part keeps that operand's, not reduced to (-pi, pi])."""
    import numpy
    shape = tuple(numpy.broadcast_shapes(tuple(input.shape), tuple(other.shape)))
    input, other = ops.broadcast_to(input, shape), ops.broadcast_to(other, shape)
    larger = complex_real(other) < complex_real(input)
    high, low = ops.where(larger, input, other), ops.where(larger, other, input)
    one = ops.ones_like(high)
    return high + ops.log(one + ops.exp(low - high))


def complex_logcumsumexp(input, axis):
    """torch.logcumsumexp for complex: logaddexp of the running result with each next element, in order."""
    steps = list(ops.unbind(input, axis))
    for k in range(1, len(steps)):
        steps[k] = complex_logaddexp(steps[k - 1], steps[k])
    return ops.stack(steps, axis) if steps else input
