"""MindSpore definitions for PyTorch calls whose MindSpore namesake fails or computes something else
on edge inputs: 0-d tensors, operands that broadcast, argument forms MindSpore's signature lacks
(found on PyTorch's OpInfo samples, issue 29). Same rules as helper_source.py: copied as it stands,
MindSpore reached only through `mindspore.`, `ops.` and `nn.`."""
import mindspore
from mindspore import ops


def cross(input, other, dim=None):
    """torch.cross / x.cross: MindSpore's Cross gives wrong values where the operands broadcast (a (1, 3)
    and a (5, 3) tensor), so both are broadcast first; dim=None is PyTorch's default, the first axis
    of size 3."""
    import numpy
    shape = tuple(numpy.broadcast_shapes(tuple(input.shape), tuple(other.shape)))
    if dim is None:
        dim = shape.index(3)
    return ops.cross(ops.broadcast_to(input, shape), ops.broadcast_to(other, shape), dim)


def index_select(input, dim, index):
    """torch.index_select / x.index_select: PyTorch reads a 0-d input as one element and takes a 0-d
    index; MindSpore's index_select refuses both."""
    if input.ndim == 0:
        return ops.index_select(input.reshape(1), 0, index.reshape(-1)).reshape(())
    return ops.index_select(input, dim, index.reshape(-1))


def squeeze_dims(input, dim):
    """torch.squeeze(x, dim) with dim a tuple: an empty one squeezes no axis in PyTorch and every axis of
    size 1 in MindSpore."""
    return input if len(dim) == 0 else ops.squeeze(input, tuple(dim))


def tensordot(a, b, dims=2):
    """torch.tensordot / x.tensordot: MindSpore's tensor_dot refuses contracted axes whose sizes match only
    in PyTorch's pairing (a's dims[0][i] with b's dims[1][i]) or where one of the pair has size 1, so the
    contracted axes are moved to the end of a and the front of b, in that pairing, and broadcast
    first. dims: a count of axes or two lists of axes."""
    if isinstance(dims, mindspore.Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        axes_a, axes_b = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        axes_a, axes_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    axes_a, axes_b = [d % a.ndim for d in axes_a], [d % b.ndim for d in axes_b]
    a = a.transpose(tuple([d for d in range(a.ndim) if d not in axes_a] + axes_a))
    b = b.transpose(tuple(axes_b + [d for d in range(b.ndim) if d not in axes_b]))
    n = len(axes_a)
    # PyTorch broadcasts a contracted axis of size 1 against its partner; MindSpore refuses the pair
    sizes = [max(a.shape[a.ndim - n + i], b.shape[i]) for i in range(n)]
    a = ops.broadcast_to(a, tuple(a.shape[:a.ndim - n]) + tuple(sizes))
    b = ops.broadcast_to(b, tuple(sizes) + tuple(b.shape[n:]))
    if n == 0:  # the outer product, which tensor_dot refuses
        return a.reshape(tuple(a.shape) + (1,) * b.ndim) * b
    return ops.tensor_dot(a, b, (list(range(a.ndim - n, a.ndim)), list(range(n))))


def tensor_split(input, indices_or_sections, dim=0):
    """torch.tensor_split / x.tensor_split: PyTorch also takes the sections (0-d) or indices (1-D) as a
    tensor; MindSpore's takes Python ints only."""
    if isinstance(indices_or_sections, mindspore.Tensor):
        indices_or_sections = indices_or_sections.tolist()
    return ops.tensor_split(input, indices_or_sections, dim)


def hsplit(input, indices_or_sections):
    """torch.hsplit / x.hsplit: along axis 1, or axis 0 of a 1-D tensor (MindSpore's refuses 1-D input)."""
    return tensor_split(input, indices_or_sections, 1 if input.ndim > 1 else 0)


def rot90(input, k=1, dims=(0, 1)):
    """x.rot90(): PyTorch's defaults k=1, dims=(0, 1); MindSpore's Tensor.rot90 has none."""
    return ops.rot90(input, k, tuple(dims))


def any_dims(input, dim, keepdim=False):
    """x.any(dim=(1, 3)): MindSpore's Tensor.any takes a tuple of axes only as axis=."""
    return input.any(axis=tuple(dim), keep_dims=keepdim)


def index_put(input, indices, values, accumulate=False):
    """torch.index_put / x.index_put: PyTorch takes boolean masks among the indices and values that
    broadcast to the indexed part; MindSpore's IndexPut takes integer indices and 1-D values only. A
    mask becomes the integer indices of its True places; accumulate=True sums repeated places."""
    import numpy
    columns = []
    for index in indices:
        if index.dtype == mindspore.bool_:
            columns += list(ops.nonzero(index).unbind(1))
        else:
            columns.append(index.astype(mindspore.int64))
    shape = tuple(numpy.broadcast_shapes(*(tuple(c.shape) for c in columns)))
    if 0 in shape:  # no place named (an all-False mask): MindSpore's scatter kernels refuse empty updates
        return ops.deepcopy(input)
    where = ops.stack([ops.broadcast_to(c, shape) for c in columns], -1)
    where = ops.where(where < 0, where + mindspore.Tensor(list(input.shape[:len(columns)]), where.dtype), where)
    if not isinstance(values, mindspore.Tensor):
        values = mindspore.Tensor(values, input.dtype)
    values = ops.broadcast_to(values.astype(input.dtype), shape + tuple(input.shape[len(columns):]))
    if accumulate and input.dtype == mindspore.bool_:  # a sum of booleans is their or (no bool kernel)
        return ops.tensor_scatter_add(input.astype(mindspore.int32), where, values.astype(mindspore.int32)) > 0
    if accumulate and input.is_complex():  # no complex kernel: real and imaginary parts apart
        real = ops.tensor_scatter_add(ops.real(input), where, ops.real(values))
        return ops.Complex()(real, ops.tensor_scatter_add(ops.imag(input), where, ops.imag(values)))
    if accumulate:
        return ops.tensor_scatter_add(input, where, values)
    return ops.tensor_scatter_update(input, where, values)


def logdet(input):
    """torch.logdet / x.logdet: the log-determinant of an empty (0, 0) matrix is 0 (its determinant is 1);
    MindSpore's MatrixDeterminant refuses a matrix of no rows."""
    if input.shape[-1] == 0:
        return ops.zeros(tuple(input.shape[:-2]), input.dtype)
    return ops.logdet(input)


def repeat_interleave(input, repeats, dim=None, *, output_size=None):
    """x.repeat_interleave(repeats, dim): MindSpore's method has no CPU kernel for repeats given as a
    tensor, so they are read as Python ints; output_size (a hint that spares PyTorch a device sync) is
    not needed."""
    if isinstance(repeats, mindspore.Tensor):
        repeats = repeats.tolist()
    return ops.repeat_interleave(input, repeats, dim)


# -- dtypes MindSpore's kernels refuse or compute otherwise (issue 29, real dtypes of PyTorch's samples) --

def topk(input, k, dim=-1, largest=True, sorted=True):
    """torch.topk / x.topk: PyTorch takes a 0-d tensor as one element (k is 0 or 1 there); MindSpore's TopK
    refuses it, or takes the process down."""
    if input.ndim == 0:
        values, indices = ops.topk(input.reshape(1), k, 0, largest=largest, sorted=sorted)
        return (values.reshape(()), indices.reshape(())) if k == 1 else (values, indices)
    return ops.topk(input, k, dim, largest=largest, sorted=sorted)


def _integer_scaled_sum(input, product, beta, alpha):
    """beta * input + alpha * product for integer tensors as PyTorch computes them: float scalars cut to
    ints (PyTorch reads beta=0.6 as 0 for integer tensors), the sum exact in int64 and wrapped back to
    the input's dtype as its own integer arithmetic wraps; beta=0 ignores the input."""
    beta, alpha = int(beta), int(alpha)
    out = alpha * product
    if beta != 0:
        out = out + beta * input.astype(mindspore.int64)
    return out.astype(input.dtype)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """torch.addbmm / x.addbmm: beta * input + alpha * (the sum of the batch of products). MindSpore's
    gives float32 for integer tensors with float scalars and wraps integer products in their own narrow
    dtype, and sums float16 in float16: integers go through int64 (_integer_scaled_sum), float16 through
    float32 one batch at a time, as PyTorch's CPU kernel adds them."""
    if input.dtype == mindspore.bool_ or not (ops.is_floating_point(input) or input.is_complex()):
        product = ops.bmm(batch1.astype(mindspore.int64), batch2.astype(mindspore.int64)).sum(0)
        return _integer_scaled_sum(input, product, beta, alpha)
    if input.dtype == mindspore.float16:  # PyTorch adds one product at a time, each in float32, rounded to float16
        out = input.astype(mindspore.float32) * beta if beta != 0 else ops.zeros(input.shape, mindspore.float32)
        for b in range(batch1.shape[0]):
            step = out + alpha * ops.matmul(batch1[b].astype(mindspore.float32), batch2[b].astype(mindspore.float32))
            out = step.astype(mindspore.float16).astype(mindspore.float32)
        return out.astype(mindspore.float16)
    return ops.addbmm(input, batch1, batch2, beta=beta, alpha=alpha)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """torch.baddbmm / x.baddbmm: beta * input + alpha * (batch1 @ batch2). MindSpore's refuses float
    scalars for integer tensors, which PyTorch cuts to ints: integers go through int64 as in addbmm."""
    if input.dtype == mindspore.bool_ or not (ops.is_floating_point(input) or input.is_complex()):
        product = ops.bmm(batch1.astype(mindspore.int64), batch2.astype(mindspore.int64))
        return _integer_scaled_sum(input, product, beta, alpha)
    return ops.baddbmm(input, batch1, batch2, beta=beta, alpha=alpha)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """torch.searchsorted: MindSpore's CPU kernel takes no sorter= and fails on float16 and uint8 (and,
    through the kernel bridge's probe, int8/int16). The sequence is put in order with sorter first, both
    operands go to float64 or int64 (comparisons are exact there: every float16/32 and integer value is
    kept), and side='right' is right=True."""
    if not isinstance(input, mindspore.Tensor):
        input = mindspore.tensor(input)
    if sorter is not None:
        sorted_sequence = ops.gather_elements(sorted_sequence, -1, sorter.astype(mindspore.int64))
    wide = mindspore.float64 if (ops.is_floating_point(sorted_sequence) or ops.is_floating_point(input)) \
        else mindspore.int64
    right = right or side == "right"
    result = ops.searchsorted(sorted_sequence.astype(wide), input.astype(wide), right=right)
    return result.astype(mindspore.int32 if out_int32 else mindspore.int64)


def lerp(input, end, weight):
    """torch.lerp / x.lerp: MindSpore's Lerp kernel has no float64, so float64 (or a float64 weight) takes
    PyTorch's own formula, which is exact there: input + weight * (end - input) for |weight| < 0.5, else
    end - (end - input) * (1 - weight)."""
    if input.dtype != mindspore.float64:
        return ops.lerp(input, end, weight)
    if not isinstance(weight, mindspore.Tensor):
        weight = mindspore.Tensor(weight, mindspore.float64)
    difference = end - input
    return ops.where(ops.abs(weight) < 0.5, input + weight * difference, end - difference * (1 - weight))


def mvlgamma(input, p):
    """torch.mvlgamma / x.mvlgamma: MindSpore's Mvlgamma kernel takes float32 and float64 only. PyTorch reads
    integer tensors as float32 (float_input) and computes float16 through float32, rounded back."""
    if input.dtype == mindspore.float16:
        return ops.mvlgamma(input.astype(mindspore.float32), p).astype(mindspore.float16)
    return ops.mvlgamma(float_input(input), p)


def empty_mean_nan(function, *args, **kwargs):
    """function(*args, **kwargs), a (var, mean) or (std, mean) pair, with the mean NaN where the input (the
    first tensor argument) is empty: PyTorch's mean of nothing is NaN, MindSpore's 0 or whatever memory
    held."""
    spread, mean = function(*args, **kwargs)
    tensors = [a for a in args if isinstance(a, mindspore.Tensor)] + \
        [v for v in kwargs.values() if isinstance(v, mindspore.Tensor)]
    if tensors and tensors[0].size == 0 and mean.size > 0:
        mean = ops.full(mean.shape, float("nan"), dtype=mean.dtype)
    return spread, mean


def histc(input, bins=100, min=0, max=0):
    """torch.histc / x.histc: MindSpore's Histogram kernel has no float64, so float64 counts with PyTorch's
    own rule: the data's range where min == max (widened by 1 each way if that is one value), bin
    (x - min) * bins / (max - min) cut to an int, x == max in the last bin, values outside (and NaN) left
    out; the counts in float64."""
    if input.dtype != mindspore.float64:
        return ops.histc(input, bins, min, max)
    low, high = float(min), float(max)
    if low == high and input.size:
        low, high = input.min().asnumpy().item(), input.max().asnumpy().item()
    if low == high:
        low, high = low - 1, high + 1
    # as float64 tensors: a Python float next to a float64 tensor would be read as float32
    low, high = mindspore.Tensor(low, mindspore.float64), mindspore.Tensor(high, mindspore.float64)
    flat = input.reshape(-1)
    keep = (flat >= low) & (flat <= high)
    where = ops.where(keep, (flat - low) * bins / (high - low), ops.zeros_like(flat)).astype(mindspore.int64)
    where = ops.minimum(where, bins - 1)
    hits = (where.reshape(-1, 1) == ops.arange(bins, dtype=mindspore.int64)) & keep.reshape(-1, 1)
    return hits.astype(mindspore.float64).sum(0)


def unfold_windows(input, dimension, size, step):
    """x.unfold(dimension, size, step): the windows of `size` elements along `dimension`, `step` apart, as a
    new last axis (MindSpore's Tensor.unfold takes image patches); gathered, so gradients flow back."""
    if input.ndim == 0:  # PyTorch's 0-d case: one window of the one element
        return input.reshape(1)
    dim = dimension % input.ndim
    length = input.shape[dim]
    if size > length or step <= 0:
        raise ValueError(f"unfold: size {size} is larger than dimension {dimension} ({length}) or step {step} < 1")
    count = (length - size) // step + 1
    index = (ops.arange(count) * step).reshape(-1, 1) + ops.arange(size).reshape(1, -1)
    out = ops.gather(input, index.reshape(-1), dim)
    out = out.reshape(input.shape[:dim] + (count, size) + input.shape[dim + 1:])
    return ops.moveaxis(out, dim + 1, -1)
