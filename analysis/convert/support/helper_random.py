"""In-place random fills (x.uniform_(a, b), x.normal_(), nn.Parameter(torch.zeros(n).normal_(0, s))...).
MindSpore 2.10 has no CPU kernel for its own (InplaceUniform, InplaceNormal, InplaceRandom; bernoulli_ is
"not supported on this device"), so the converter writes x.assign_value(<helper>(x, ...)): each helper
draws fresh values of x's shape from PyTorch's distribution with ops that run on CPU (ops.rand, ops.randn,
ops.randint; seeded by mindspore.set_seed), through the inverse of the distribution function where
MindSpore has no sampler, and returns them in x's dtype (assign_value would otherwise take the draw's).
The same rules as helper_source.py: copied as text, never imported by the converter.
"""
import mindspore
from mindspore import ops


def unit_draw(x):
    """Uniform [0, 1) values of x's shape: float64 for a float64 x (its resolution), float32 otherwise.
    MindSpore's float32 draw rounds to 1.0 about once in 2e7 values: held below 1, as PyTorch's are."""
    wide = x.dtype == mindspore.float64
    draw = ops.rand(tuple(x.shape), dtype=mindspore.float64 if wide else mindspore.float32)
    return ops.clamp(draw, max=1.0 - 2.0 ** (-53 if wide else -24))


def uniform_fill(x, low=0.0, high=1.0):
    """Tensor.uniform_(from, to): U[low, high), as PyTorch computes it (low + (high - low) * u)."""
    return (low + (high - low) * unit_draw(x)).astype(x.dtype)


def normal_fill(x, mean=0.0, std=1.0):
    """Tensor.normal_(mean, std)."""
    dtype = x.dtype if x.dtype in (mindspore.float16, mindspore.float32, mindspore.float64) else mindspore.float32
    return (ops.randn(tuple(x.shape), dtype=dtype) * std + mean).astype(x.dtype)


def log_normal_fill(x, mean=1.0, std=2.0):
    """Tensor.log_normal_(mean, std): exp of a normal draw (PyTorch's defaults 1 and 2)."""
    return ops.exp(normal_fill(x, mean, std))


def bernoulli_fill(x, p=0.5):
    """Tensor.bernoulli_(p): 1 with probability p (a number, or a tensor broadcast to x), else 0, as x's dtype."""
    return (unit_draw(x) < p).astype(x.dtype)


def exponential_fill(x, lambd=1.0):
    """Tensor.exponential_(lambd): -log(1 - u) / lambd (1 - u lies in (0, 1], so the log is finite)."""
    return (-ops.log(1 - unit_draw(x)) / lambd).astype(x.dtype)


def geometric_fill(x, p):
    """Tensor.geometric_(p): trials up to the first success, 1, 2, ...: floor(log(1 - u) / log(1 - p)) + 1 has
    probability (1 - p) ** (k - 1) * p of being k."""
    import math

    return (ops.floor(ops.log(1 - unit_draw(x)) / math.log(1 - p)) + 1).astype(x.dtype)


def random_fill(x, low=0, high=None):
    """Tensor.random_(to) and random_(from, to): integers uniform in [from, to). random_() with no bound
    draws in [0, 2 ** mantissa] for a float (PyTorch's range) and [0, max] for an integer dtype."""
    if high is None and low != 0:
        low, high = 0, low
    if high is None:
        top = {mindspore.float16: 2 ** 11, mindspore.bfloat16: 2 ** 8, mindspore.float32: 2 ** 24,
               mindspore.float64: 2 ** 53, mindspore.bool_: 1, mindspore.uint8: 255, mindspore.int8: 127,
               mindspore.int16: 2 ** 15 - 1, mindspore.int32: 2 ** 31 - 1}.get(x.dtype)
        if top is None:
            raise ValueError(f"random_() without bounds on a {x.dtype} tensor: give the bounds, random_(low, high)")
        high = top + 1
    return ops.randint(low, high, tuple(x.shape), dtype=mindspore.int64).astype(x.dtype)


def random_operator(kind, shape):
    """The random operator (kind: StandardNormal or UniformReal) that a loop's draws of one shape reuse.
    ops.randn and ops.rand build a new operator at every call, seeded from mindspore.set_seed's counter,
    and MindSpore prepares a kernel for each: about 2 ms of CPU a draw (MindSpore 2.10), against 0.15 ms
    drawing again from one operator, whose kernel carries its generator's state from call to call. One
    operator per shape, each seeded on its own (an operator's sequence starts over at a new shape),
    built again after mindspore.set_seed (its counter reset, or another seed): a seeded script repeats
    its draws."""
    import sys

    seeds = sys.modules["mindspore.common.seed"]
    counter = ("ms_support.draws", 0)  # an entry of set_seed's op-seed counters, which set_seed resets
    built = random_operator.__dict__.setdefault("built", {})
    if built.get("seeded") != (seeds.get_seed(), seeds._KERNEL_SEED.get(counter)):
        built.clear()
    if (kind, shape) not in built:
        seed1, seed2 = seeds._get_graph_seed(0, counter[0])
        built[(kind, shape)] = getattr(ops.operations, kind)(seed1, seed2)
    built["seeded"] = (seeds.get_seed(), seeds._KERNEL_SEED.get(counter))
    return built[(kind, shape)]


def randn_draw(*size, dtype=None):
    """torch.randn(*size) in a loop outside any function: standard normal float32 values (cast to dtype)
    from an operator built once for the shape (random_operator)."""
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    draw = random_operator("StandardNormal", shape)(shape)
    return draw if dtype is None or dtype == mindspore.float32 else draw.astype(dtype)


def rand_draw(*size, dtype=None):
    """torch.rand(*size) in a loop outside any function: uniform [0, 1) float32 values (cast to dtype)
    from an operator built once for the shape (random_operator)."""
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    draw = random_operator("UniformReal", shape)(shape)
    return draw if dtype is None or dtype == mindspore.float32 else draw.astype(dtype)
