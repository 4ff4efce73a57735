"""MindSpore definitions for torch functions the mapping tables lacked (API coverage of torch.*, issue 29):
where MindSpore has no op of the name, or its op has no CPU kernel for some dtype PyTorch takes. Same rules
as helper_source.py: copied as it stands, MindSpore reached only through `mindspore.`, `ops.` and `nn.`."""
import mindspore
from mindspore import ops


def is_complex_dtype(dtype):
    """Whether `dtype` is one of MindSpore's complex types (several real kernels have no complex one)."""
    return dtype in (mindspore.complex64, mindspore.complex128)


def sort_nan_last(input, axis=-1):
    """ops.sort with NaNs after every number, as PyTorch sorts (MindSpore's CPU sort leaves NaNs wherever
    they fall): (values, int64 indices)."""
    key = input
    if ops.is_floating_point(input):  # +inf becomes float32's largest number and NaN +inf (the kernel
        key = input.astype(mindspore.float64)  # sorts float64 through float32: larger values tie with NaN)
        key = ops.where(key == float("inf"), ops.full_like(key, 3.4028234663852886e38), key)
        key = ops.where(ops.isnan(key), ops.full_like(key, float("inf")), key)
    indices = ops.sort(key, axis=axis)[1].astype(mindspore.int64)
    return ops.gather_elements(input, axis, indices), indices


def triu(input, diagonal=0):
    """torch.triu: ops.triu has no complex kernel on CPU, so a complex input is cut part by part."""
    if is_complex_dtype(input.dtype):
        return ops.Complex()(ops.triu(ops.real(input), diagonal), ops.triu(ops.imag(input), diagonal))
    return ops.triu(input, diagonal)


def fmin(input, other):
    """torch.fmin: the smaller of the two, the number where one of them is NaN, in PyTorch's promoted
    dtype (MindSpore 2.10's Fmin primitive raises on CPU for every dtype)."""
    if input.dtype == mindspore.bool_ and other.dtype == mindspore.bool_:
        return ops.logical_and(input, other)
    dtype = (input.astype(input.dtype if input.dtype != mindspore.bool_ else mindspore.uint8) * 0
             + other.astype(other.dtype if other.dtype != mindspore.bool_ else mindspore.uint8) * 0).dtype
    a, b = input.astype(dtype), other.astype(dtype)
    out = ops.minimum(a, b)
    if ops.is_floating_point(out):
        out = ops.where(ops.isnan(a), b, ops.where(ops.isnan(b), a, out))
    return out


def signbit(input):
    """torch.signbit: the sign bit itself, so -0.0 and a negative NaN count as negative (MindSpore's
    signbit returns False for -0.0); integers are negative below zero, bools never."""
    bits = {mindspore.float16: mindspore.int16, mindspore.float32: mindspore.int32,
            mindspore.float64: mindspore.int64}.get(input.dtype)
    if bits is not None:
        return input.view(bits) < 0
    if input.dtype == mindspore.bool_:
        return ops.zeros(input.shape, mindspore.bool_)
    return input < 0


def quickselect_position(row, k):
    """The position (in the NumPy 1-D `row`) of the element PyTorch's CPU kthvalue returns as the k-th
    smallest (0-based k): its quickselect (median-of-three pivot, NaN largest) replayed on the row, so that
    among equal values the same one is chosen."""
    import numpy
    values, places = row.copy(), numpy.arange(len(row))
    nan = numpy.isnan(values) if values.dtype.kind == "f" else numpy.zeros(len(values), bool)

    def above(a, b):  # values[a] > values[b], a NaN above any number
        return bool(nan[a] and not nan[b]) or bool(not nan[a] and not nan[b] and values[a] > values[b])

    def swap(a, b):
        for array in (values, places, nan):
            array[a], array[b] = array[b], array[a]

    low, high = 0, len(values) - 1
    while True:
        if high <= low + 1:  # one or two left
            if high == low + 1 and above(low, high):
                swap(low, high)
            return int(places[k])
        swap(low + (high - low) // 2, low + 1)
        for a, b in ((low + 1, high), (low, high), (low + 1, low)):  # the median of three lands at low
            if above(a, b):
                swap(a, b)
        i, j = low + 1, high
        while True:
            i += 1
            while above(low, i):
                i += 1
            j -= 1
            while above(j, low):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(low, j)
        if j <= k:
            low = i
        if j >= k:
            high = j - 1


def kthvalue(input, k, dim=-1, keepdim=False):
    """torch.kthvalue: (values, indices) of the k-th smallest along dim, from a sort (MindSpore's kthvalue
    has no CPU kernel); where the k-th value occurs more than once in a slice, the index PyTorch's own
    quickselect picks (quickselect_position, on the host)."""
    import collections
    result = collections.namedtuple("kthvalue", ["values", "indices"])
    if input.ndim == 0:
        return result(input, ops.zeros((), mindspore.int64))
    dim = -1 if dim is None else dim  # x.kthvalue(k, dim=None): the last axis
    x = input.movedim(dim, -1)
    indices = sort_nan_last(x, -1)[1][..., k - 1:k]
    values = ops.gather_elements(x, -1, indices)
    same = x == values
    if ops.is_floating_point(x):
        same = same | (ops.isnan(x) & ops.isnan(values))
    tied = same.astype(mindspore.int32).sum(-1) > 1
    if bool(tied.any()):
        import numpy
        rows, chosen = x.asnumpy().reshape(-1, x.shape[-1]), indices.asnumpy().reshape(-1)
        for r in numpy.flatnonzero(tied.asnumpy().reshape(-1)):
            chosen[r] = quickselect_position(rows[r], k - 1)
        indices = mindspore.tensor(chosen.reshape(tuple(x.shape[:-1]) + (1,)), mindspore.int64)
        values = ops.gather_elements(x, -1, indices)
    values, indices = values.movedim(-1, dim), indices.movedim(-1, dim)
    if not keepdim:
        values, indices = values.squeeze(dim), indices.squeeze(dim)
    return result(values, indices)


def take_along_dim(input, indices, dim=None):
    """torch.take_along_dim: gather_elements after broadcasting input and indices on every axis but dim
    (dim=None: both read flat), negative indices counted from the end as PyTorch does."""
    if dim is None:
        input, indices, dim = input.reshape(-1), indices.reshape(-1), 0
    import numpy
    dim = dim % input.ndim
    rest = numpy.broadcast_shapes(tuple(1 if i == dim else s for i, s in enumerate(input.shape)),
                                  tuple(1 if i == dim else s for i, s in enumerate(indices.shape)))
    shape_of = lambda size: tuple(size if i == dim else s for i, s in enumerate(rest))  # noqa: E731
    input = ops.broadcast_to(input, shape_of(input.shape[dim]))
    indices = ops.broadcast_to(indices, shape_of(indices.shape[dim])).astype(mindspore.int64)
    indices = ops.where(indices < 0, indices + input.shape[dim], indices)
    return ops.gather_elements(input, dim, indices)


def unflatten(input, dim, sizes):
    """torch.unflatten: axis dim becomes the axes `sizes` (one of them may be -1)."""
    dim = dim % input.ndim
    return input.reshape(tuple(input.shape[:dim]) + tuple(sizes) + tuple(input.shape[dim + 1:]))


def sample_spacing(x, dim, ndim):
    """The gaps between trapezoid sample points x along dim (a 1-D x lies along dim of an ndim-D y)."""
    axis = -1 if x.ndim == 1 else dim
    m = x.shape[axis]
    gaps = x.narrow(axis, 1, m - 1) - x.narrow(axis, 0, m - 1)
    return gaps.reshape((-1,) + (1,) * (ndim - 1 - dim % ndim)) if x.ndim == 1 else gaps


def as_sum_dtype(t):
    """t ready to be summed as PyTorch sums it: integers (bool too) accumulate in int64."""
    return t if ops.is_floating_point(t) or is_complex_dtype(t.dtype) else t.astype(mindspore.int64)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """torch.trapezoid / trapz: the trapezoid rule along dim, with sample points x (1-D, or shaped as y)
    or a spacing dx (default 1), in PyTorch's formulas and dtypes: integer sums wrap and accumulate as
    PyTorch's do (MindSpore's trapz returns float32 for float64 and complex input)."""
    n = y.shape[dim]
    if n == 0:
        rest = tuple(s for i, s in enumerate(y.shape) if i != dim % y.ndim)
        exact = ops.is_floating_point(y) or is_complex_dtype(y.dtype)
        return ops.zeros(rest, y.dtype if exact else mindspore.float32)
    if x is None:
        ends = y.narrow(dim, 0, 1).squeeze(dim) + y.narrow(dim, n - 1, 1).squeeze(dim)
        return (as_sum_dtype(y).sum(dim) - ends * 0.5) * (1 if dx is None else dx)
    pairs = y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1)
    return as_sum_dtype(sample_spacing(x, dim, y.ndim) * pairs).sum(dim) * 0.5


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """torch.cumulative_trapezoid: the running trapezoid sums along dim (one fewer than y's samples), in
    PyTorch's formulas."""
    n = y.shape[dim]
    pairs = y.narrow(dim, 1, max(n - 1, 0)) + y.narrow(dim, 0, max(n - 1, 0))
    if x is None:
        return ((1 if dx is None else dx) / 2 * pairs).cumsum(dim)
    return as_sum_dtype(pairs * sample_spacing(x, dim, y.ndim)).cumsum(dim) / 2.0


def broadcast_shapes(*shapes):
    """torch.broadcast_shapes: the shape all of `shapes` (ints or tuples) broadcast to, as a tuple."""
    import numpy
    return tuple(numpy.broadcast_shapes(*[tuple(s) if isinstance(s, (tuple, list)) else (s,)
                                          for s in shapes]))


def broadcast_tensors(*tensors):
    """torch.broadcast_tensors: each tensor broadcast to their common shape."""
    shape = broadcast_shapes(*[tuple(t.shape) for t in tensors])
    return tuple(ops.broadcast_to(t, shape) for t in tensors)


def resolve_conj(input):
    """torch.resolve_conj / resolve_neg: nothing to resolve in MindSpore (no conjugate or negative bit)."""
    return input


def view_as_complex(input):
    """torch.view_as_complex: the last axis (of size 2) read as real and imaginary parts."""
    return ops.Complex()(input[..., 0], input[..., 1])


def select(input, dim, index):
    """torch.select: the slice at `index` along dim, that axis removed."""
    return input[(slice(None),) * (dim % input.ndim) + (int(index),)]


def slice_copy(input, dim=0, start=None, end=None, step=1):
    """torch.slice_copy: input[start:end:step] along dim."""
    return input[(slice(None),) * (dim % input.ndim) + (slice(start, end, step),)]


def unfold_copy(input, dimension, size, step):
    """torch.unfold_copy / Tensor.unfold: the windows of `size` every `step` along dimension, as a new
    axis at the end (MindSpore's Tensor.unfold is im2col)."""
    if input.ndim == 0:
        return input.reshape(1)
    dimension = dimension % input.ndim
    count = (input.shape[dimension] - size) // step + 1
    windows = [input.narrow(dimension, i * step, size) for i in range(count)]
    return ops.stack(windows, dimension).movedim(dimension + 1, -1)


def alias_copy(input):
    """torch.alias_copy / torch.detach_copy: a new tensor of the same values."""
    return input.copy()


def flat_positions(size, stride, storage_offset):
    """The flat element positions torch.as_strided reads for a view of `size` and `stride`."""
    import numpy
    positions = numpy.full(tuple(size), storage_offset or 0, dtype=numpy.int64)
    for axis, (n, s) in enumerate(zip(size, stride)):
        positions += (numpy.arange(n) * s).reshape((-1,) + (1,) * (len(size) - axis - 1))
    return mindspore.tensor(positions)


def as_strided(input, size, stride, storage_offset=None):
    """torch.as_strided on a contiguous tensor (every MindSpore tensor is one): the elements at
    storage_offset + sum(i_k * stride_k) of the flat values."""
    return ops.gather(input.reshape(-1), flat_positions(size, stride, storage_offset), 0)


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """torch.as_strided_scatter on a contiguous tensor: src written at the positions as_strided reads."""
    positions = flat_positions(size, stride, storage_offset).reshape(-1, 1)
    flat = ops.tensor_scatter_update(input.reshape(-1), positions, src.reshape(-1).astype(input.dtype))
    return flat.reshape(input.shape)


def nonzero_static(input, *, size, fill_value=-1):
    """torch.nonzero_static: the indices of the non-zero elements, cut or padded with fill_value to
    `size` rows."""
    if input.ndim == 0:  # one element, no axes to index (the NonZero kernel refuses 0-d input)
        found = ops.zeros((int(input.astype(mindspore.bool_)), 0), mindspore.int64)
    else:
        found = ops.nonzero(input).astype(mindspore.int64)
    if found.shape[0] >= size:
        return found[:size]
    return ops.cat((found, ops.full((size - found.shape[0], input.ndim), fill_value, dtype=mindspore.int64)))


def chain_matmul(*matrices):
    """torch.chain_matmul: the product of the matrices, left to right."""
    out = matrices[0]
    for m in matrices[1:]:
        out = ops.matmul(out, m)
    return out


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """torch.asarray: a tensor stays (cast where dtype says), anything else becomes a tensor (a list of
    floats float32, as PyTorch's default; a NumPy array keeps its dtype)."""
    if isinstance(obj, mindspore.Tensor):
        return obj if dtype is None or obj.dtype == dtype else obj.astype(dtype)
    return mindspore.tensor(obj, dtype=dtype)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """torch.empty_strided: a tensor of `size` (its values are unset in PyTorch, zeros here); MindSpore
    tensors have no strides."""
    return ops.zeros(tuple(size), dtype or mindspore.float32)


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """torch.frombuffer: the buffer's bytes read as `dtype` (a copy: MindSpore tensors own their memory)."""
    import numpy
    return mindspore.tensor(numpy.frombuffer(buffer, mindspore.dtype_to_nptype(dtype), count, offset).copy())


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """torch.unique without dim: the distinct values in ascending order (each NaN its own; PyTorch's CPU
    kernel sorts them with sorted=False too), with where each element went (inverse, shaped as input) and
    how often each occurs, from one sort (MindSpore's mint.unique has no CPU kernel; ops.unique does not
    sort and reads float64 through float32). With dim: unique_slices()."""
    if dim is not None:
        return unique_slices(input, dim, return_inverse, return_counts)
    flat = input.reshape(-1)
    kind = mindspore.int32 if input.dtype == mindspore.bool_ else input.dtype
    ordered, order = sort_nan_last(flat.astype(kind), 0)
    n = flat.shape[0]
    starts = ops.ones((n,), mindspore.bool_)  # where a new value begins in the sorted order
    if n > 1:
        starts = ops.cat((starts[:1], ordered[1:] != ordered[:-1]))
    out = [ops.masked_select(ordered, starts).astype(input.dtype) if n else flat]
    if return_inverse:
        group = ops.cumsum(starts.astype(mindspore.int64), 0) - 1
        inverse = ops.zeros((n,), mindspore.int64)
        if n:
            inverse = ops.tensor_scatter_update(inverse, order.reshape(-1, 1), group)
        out.append(inverse.reshape(input.shape))
    if return_counts:
        first = ops.zeros((0,), mindspore.int64)
        if n:
            first = ops.nonzero(starts).reshape(-1).astype(mindspore.int64)
        out.append(ops.cat((first[1:], mindspore.tensor([n], mindspore.int64))) - first if n else first)
    return out[0] if len(out) == 1 else tuple(out)


def unique_slices(input, dim, return_inverse=False, return_counts=False):
    """torch.unique(dim=d): the distinct slices along d in lexicographic order, the slice each one went to
    (1-d, input.shape[d] long) and how often each occurs. NumPy's unique over an axis orders them the same
    way; MindSpore has no unique over an axis (run op by op: the number of slices is known at run time)."""
    import numpy
    values, inverse, counts = numpy.unique(input.asnumpy(), axis=dim, return_inverse=True, return_counts=True)
    out = [mindspore.tensor(values, input.dtype)]
    if return_inverse:
        out.append(mindspore.tensor(inverse.reshape(-1), mindspore.int64))
    if return_counts:
        out.append(mindspore.tensor(counts, mindspore.int64))
    return out[0] if len(out) == 1 else tuple(out)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """torch.triangular_solve: (X, A) with A @ X = b (transpose: A^T @ X = b) for triangular A."""
    import collections
    result = collections.namedtuple("triangular_solve", ["solution", "cloned_coefficient"])
    M = A.swapaxes(-2, -1) if transpose else A
    solution = linalg_solve_triangular(M, b, upper=upper != transpose, unitriangular=unitriangular)
    return result(solution, A.copy())


def corrcoef(input):
    """torch.corrcoef: the covariance matrix scaled by the standard deviations, clipped to [-1, 1] (real
    and imaginary parts apart for complex input, whose covariance is written out in real products:
    ops.cov and the Div kernel take no complex input on CPU)."""
    if not is_complex_dtype(input.dtype):
        c = ops.cov(input)
        if c.ndim == 0:
            return c / c
        std = ops.sqrt(ops.diagonal(c))
        return ops.clip(c / (std.reshape(-1, 1) * std.reshape(1, -1)), -1, 1)
    x = input.reshape(1, -1) if input.ndim == 1 else input
    a, b = ops.real(x), ops.imag(x)
    a, b = a - a.mean(1, keep_dims=True), b - b.mean(1, keep_dims=True)
    real = ops.matmul(a, a.T) + ops.matmul(b, b.T)  # z_i conj(z_j) summed; 1 / (n - 1) cancels below
    imag = ops.matmul(b, a.T) - ops.matmul(a, b.T)
    std = ops.sqrt(ops.diagonal(real))
    scale = std.reshape(-1, 1) * std.reshape(1, -1)
    out = ops.Complex()(ops.clip(real / scale, -1, 1), ops.clip(imag / scale, -1, 1))
    return out.reshape(()) if input.ndim == 1 else out


def det(input):
    """torch.det: torch.linalg.det's helper under torch.det's parameter name."""
    return linalg_det(input)


def pdist(input, p=2):
    """torch.pdist with ops.pdist, which takes p as a float only (PyTorch's default p=2 is an int)."""
    return ops.pdist(input, float(p))


def unsafe_chunk(input, chunks, dim=0):
    """Tensor.unsafe_chunk: chunk (PyTorch's unsafe variant only skips a check on views)."""
    return ops.chunk(input, chunks, dim)


def unsafe_split(input, split_size, dim=0):
    """Tensor.unsafe_split: split (PyTorch's unsafe variant only skips a check on views)."""
    return ops.split(input, split_size, dim)


def select_scatter(input, src, dim, index):
    """torch.select_scatter: src written at index along dim; complex input part by part (the
    TensorScatterElements kernel has no complex one)."""
    if is_complex_dtype(input.dtype):
        src = src.astype(input.dtype)
        return ops.Complex()(select_scatter(ops.real(input), ops.real(src), dim, index),
                             select_scatter(ops.imag(input), ops.imag(src), dim, index))
    return ops.select_scatter(input, src.astype(input.dtype), dim, index)


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """torch.slice_scatter: src written at input[start:end:step] along dim; complex input part by part."""
    if is_complex_dtype(input.dtype):
        src = src.astype(input.dtype)
        return ops.Complex()(slice_scatter(ops.real(input), ops.real(src), dim, start, end, step),
                             slice_scatter(ops.imag(input), ops.imag(src), dim, start, end, step))
    return ops.slice_scatter(input, src.astype(input.dtype), dim, start, end, step)


def index_copy(input, dim, index, source):
    """torch.index_copy / Tensor.index_copy: source's slices written at index along dim of a copy of input."""
    if input.ndim == 0:
        return source.reshape(()).astype(input.dtype)
    dim = dim % input.ndim
    moved = input.movedim(dim, 0)
    rows = source.movedim(dim, 0) if source.ndim else source.reshape(1)
    targets = index.astype(mindspore.int64).reshape(-1, 1)
    out = ops.tensor_scatter_update(moved, targets, rows.astype(input.dtype))
    return out.movedim(0, dim)


def mode_along(input, dim=-1, keepdim=False):
    """torch.mode: (values, indices) of the most frequent value along dim, the smallest where several are
    as frequent, at the last place it occurs (PyTorch's CPU choice); MindSpore has no mode."""
    import collections
    result = collections.namedtuple("mode", ["values", "indices"])
    if input.ndim == 0:
        return result(input, ops.zeros((), mindspore.int64))
    dim = -1 if dim is None else dim  # x.mode(dim=None): the last axis
    x = input.movedim(dim, -1)
    kind = mindspore.int32 if x.dtype == mindspore.bool_ else x.dtype
    x = x.astype(kind)
    counts = (x.unsqueeze(-1) == x.unsqueeze(-2)).astype(mindspore.int32).sum(-1)
    frequent = counts == counts.max(-1, keepdims=True)
    values = ops.where(frequent, x, x.max(-1, keepdims=True)).min(-1, keepdims=True)
    places = ops.arange(x.shape[-1], dtype=mindspore.int64)
    indices = ops.where(x == values, places, -1).max(-1, keepdims=True)
    values, indices = values.astype(input.dtype).movedim(-1, dim), indices.movedim(-1, dim)
    if not keepdim:
        values, indices = values.squeeze(dim), indices.squeeze(dim)
    return result(values, indices)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """torch.nanquantile: torch.quantile over the values that are not NaN (NaN where a slice has none):
    sorted (NaNs last) and picked at ranks q * (k - 1), k the count of numbers in the slice."""
    x = input.reshape(-1) if dim is None else input
    axis = 0 if dim is None else dim % x.ndim
    qs = q.astype(x.dtype) if isinstance(q, mindspore.Tensor) else mindspore.tensor(q, x.dtype)
    ordered = sort_nan_last(x.movedim(axis, -1), -1)[0]
    count = (~ops.isnan(ordered)).astype(x.dtype).sum(-1, keepdims=True)
    ranks = qs.reshape(-1) * ops.maximum(count - 1, ops.zeros_like(count))  # (..., len(q))
    out = quantile_pick(ordered, ranks, interpolation)
    out = ops.where(count == 0, ops.full_like(out, float("nan")), out).movedim(-1, 0)
    if keepdim:
        out = out.unsqueeze(axis + 1) if dim is not None else out.reshape(out.shape[:1] + (1,) * input.ndim)
    return out.squeeze(0) if qs.ndim == 0 else out


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """torch.scatter_reduce / Tensor.scatter_reduce: src's elements reduced ("sum", "prod", "mean",
    "amax", "amin") into input at index along dim, with or without input's own values there, through
    the TensorScatter{Add,Mul,Max,Min} kernels on each element's full coordinates (integer means
    rounded down, as PyTorch's)."""
    import numpy
    if input.dtype == mindspore.bool_:  # in int32: sum and max are "or", prod and min "and"
        return scatter_reduce(input.astype(mindspore.int32), dim, index, src.astype(mindspore.int32), reduce,
                              include_self=include_self).astype(mindspore.bool_)
    if input.ndim == 0:
        return scatter_reduce(input.reshape(1), 0, index.reshape(1), src.reshape(1), reduce,
                              include_self=include_self).reshape(())
    dim = dim % input.ndim
    src = src[tuple(slice(0, size) for size in index.shape)]
    grids = numpy.indices(tuple(index.shape))
    coords = [index.astype(mindspore.int64) if axis == dim else mindspore.tensor(grids[axis], mindspore.int64)
              for axis in range(input.ndim)]
    targets = ops.stack(coords, -1).reshape(-1, input.ndim)
    values = src.reshape(-1).astype(input.dtype)
    ones = ops.ones((values.shape[0],), mindspore.int32)
    hits = ops.tensor_scatter_add(ops.zeros(input.shape, mindspore.int32), targets, ones)
    start = input
    if not include_self:
        if ops.is_floating_point(input):
            low, high = float("-inf"), float("inf")
        else:
            info = numpy.iinfo(mindspore.dtype_to_nptype(input.dtype))
            low, high = int(info.min), int(info.max)
        neutral = {"sum": 0, "mean": 0, "prod": 1, "amax": low, "amin": high}[reduce]
        start = ops.where(hits > 0, ops.full(input.shape, neutral, dtype=input.dtype), input)
    kernel = {"sum": ops.tensor_scatter_add, "mean": ops.tensor_scatter_add, "prod": ops.tensor_scatter_mul,
              "amax": ops.tensor_scatter_max, "amin": ops.tensor_scatter_min}[reduce]
    out = kernel(start, targets, values)
    if reduce == "mean":
        count = ops.maximum(hits + (1 if include_self else 0), ops.ones_like(hits)).astype(input.dtype)
        out = out / count if ops.is_floating_point(input) else ops.floor_div(out, count)
    return out


def gradient_along(f, axis, h, edge_order):
    """The central differences of f along axis (one-sided at the ends, of edge_order 1 or 2) for a spacing h:
    a number, or the 1-D sample coordinates (then NumPy's and PyTorch's second-order formula for uneven
    gaps)."""
    if is_complex_dtype(f.dtype):  # linear in f: the parts apart (no Mul kernel for real times complex)
        return ops.Complex()(gradient_along(ops.real(f), axis, h, edge_order),
                             gradient_along(ops.imag(f), axis, h, edge_order))
    n = f.shape[axis]
    part = lambda start, length: f.narrow(axis, start, length)  # noqa: E731
    if isinstance(h, mindspore.Tensor) and h.ndim == 1:
        gaps = (h[1:] - h[:-1]).astype(f.dtype)
        gaps = gaps.reshape(tuple(-1 if a == axis else 1 for a in range(f.ndim)))
        gap = lambda start: gaps.narrow(axis, start, 1)  # noqa: E731
        if edge_order == 1:
            first, last = (part(1, 1) - part(0, 1)) / gap(0), (part(n - 1, 1) - part(n - 2, 1)) / gap(n - 2)
        else:
            d1, d2 = gap(0), gap(1)
            first = (-(2 * d1 + d2) / (d1 * (d1 + d2)) * part(0, 1) + (d1 + d2) / (d1 * d2) * part(1, 1)
                     - d1 / (d2 * (d1 + d2)) * part(2, 1))
            d1, d2 = gap(n - 3), gap(n - 2)
            last = (d2 / (d1 * (d1 + d2)) * part(n - 3, 1) - (d2 + d1) / (d1 * d2) * part(n - 2, 1)
                    + (2 * d2 + d1) / (d2 * (d1 + d2)) * part(n - 1, 1))
        if n == 2:
            return ops.cat((first, last), axis)
        d1, d2 = gaps.narrow(axis, 0, n - 2), gaps.narrow(axis, 1, n - 2)
        inner = (-d2 / (d1 * (d1 + d2)) * part(0, n - 2) + (d2 - d1) / (d1 * d2) * part(1, n - 2)
                 + d1 / (d2 * (d1 + d2)) * part(2, n - 2))
        return ops.cat((first, inner, last), axis)
    h = h.item() if isinstance(h, mindspore.Tensor) else h
    if edge_order == 1:
        first, last = (part(1, 1) - part(0, 1)) / h, (part(n - 1, 1) - part(n - 2, 1)) / h
    else:
        first = (-1.5 * part(0, 1) + 2 * part(1, 1) - 0.5 * part(2, 1)) / h
        last = (0.5 * part(n - 3, 1) - 2 * part(n - 2, 1) + 1.5 * part(n - 1, 1)) / h
    if n == 2:
        return ops.cat((first, last), axis)
    return ops.cat((first, (part(2, n - 2) - part(0, n - 2)) / (2 * h), last), axis)


def numerical_gradient(input, *, spacing=1, dim=None, edge_order=1):
    """torch.gradient: one tensor of differences per axis of dim (every axis by default), each with its
    spacing (one number for all, one per axis, or each axis' sample coordinates); integers in float32."""
    if not ops.is_floating_point(input) and not is_complex_dtype(input.dtype):
        input = input.astype(mindspore.float32)
    dims = list(range(input.ndim)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    spacing = 1 if spacing is None else spacing
    if isinstance(spacing, (int, float)) or (isinstance(spacing, mindspore.Tensor) and spacing.ndim == 0):
        spacing = [spacing] * len(dims)
    spacing = list(spacing)
    if len(spacing) == 1 and len(dims) > 1:
        spacing = spacing * len(dims)
    return tuple(gradient_along(input, axis % input.ndim, h, edge_order) for axis, h in zip(dims, spacing))


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """torch.index_reduce / Tensor.index_reduce: source's slices along dim reduced ("prod", "mean", "amax",
    "amin") into input's slices that index names: scatter_reduce with index spread over each slice."""
    if input.ndim == 0:
        return scatter_reduce(input, 0, index.reshape(()), source.reshape(()), reduce,
                              include_self=include_self)
    dim = dim % input.ndim
    spread = index.astype(mindspore.int64).reshape(tuple(-1 if a == dim else 1 for a in range(input.ndim)))
    return scatter_reduce(input, dim, ops.broadcast_to(spread, tuple(source.shape)), source, reduce,
                          include_self=include_self)


def index_add_function(input, dim, index, source, *, alpha=1):
    """torch.index_add: Tensor.index_add's helper under torch.index_add's signature (alpha keyword-only)."""
    return index_add(input, dim, index, source, alpha)


def matrix_exp_of(input):
    """torch.matrix_exp / Tensor.matrix_exp: torch.linalg.matrix_exp's helper under torch.matrix_exp's
    parameter name (ops.matrix_exp raises on CPU); float16 computed in float32, whose Taylor terms it
    would overflow (PyTorch's own float16 result overflows on CPU: the sample verdicts mark that class)."""
    if input.dtype == mindspore.float16:
        return matrix_exp(input.astype(mindspore.float32)).astype(mindspore.float16)
    return matrix_exp(input)
