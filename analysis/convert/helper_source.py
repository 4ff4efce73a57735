"""MindSpore definitions the converter copies into a converted file where a PyTorch call has no
classic-API counterpart of the same shape. The converter reads this file as text (helpers.py) and
never imports it; tests import it to check each definition against PyTorch.

Rules for what is written here, since it is copied as it stands:
- one top-level definition per helper; refer to MindSpore only through `mindspore.`, `ops.` and
  `nn.` (renamed to the converted file's spelling of those modules), to other helpers of this file
  by name (they are written along with it), to modules that come with MindSpore (numpy, PIL) only by
  importing them inside the function, and to nothing else outside;
- the helper's name is the PyTorch name it stands for, or says what it does (renamed when the
  converted file already uses it).
"""
import mindspore
from mindspore import nn, ops


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    """PyTorch's F.scaled_dot_product_attention with classic MindSpore ops (no fused attention
    kernel on CPU): softmax(query @ key^T * scale + mask) @ value. A boolean mask keeps the True
    positions, a float mask is added; is_causal keeps the lower triangle; dropout_p > 0 drops
    attention weights, as PyTorch does whenever it is passed (callers pass 0 outside training)."""
    scale = query.shape[-1] ** -0.5 if scale is None else scale
    scores = ops.matmul(query, key.swapaxes(-2, -1)) * scale
    if is_causal:
        keep = ops.tril(ops.ones((query.shape[-2], key.shape[-2]), mindspore.bool_))
        scores = scores.masked_fill(ops.logical_not(keep), float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == mindspore.bool_:
            scores = scores.masked_fill(ops.logical_not(attn_mask), float("-inf"))
        else:
            scores = scores + attn_mask
    weights = ops.softmax(scores, axis=-1)
    if dropout_p > 0.0:
        weights = ops.dropout(weights, p=dropout_p)
    return ops.matmul(weights, value)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """PyTorch's F.layer_norm with the LayerNorm primitive (ops.layer_norm has no CPU kernel):
    normalises the trailing len(normalized_shape) axes; a missing weight or bias is ones or zeros."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    axis = input.ndim - len(shape)
    weight = ops.ones(shape, input.dtype) if weight is None else weight
    bias = ops.zeros(shape, input.dtype) if bias is None else bias
    return ops.LayerNorm(begin_norm_axis=axis, begin_params_axis=axis, epsilon=eps)(input, weight, bias)[0]


class ModuleDict(nn.Cell):
    """PyTorch's nn.ModuleDict for entries MindSpore's CellDict refuses (CellList, SequentialCell,
    CellDict): every entry is an attribute of this cell, so `d.key`, `d["key"]`, iteration over the
    keys and parameter names (`d.key.0.weight`, as in PyTorch's state dict) all read the same."""

    def __init__(self, modules=None):
        super().__init__()
        self._entry_names = []
        if modules is not None:
            self.update(modules)

    def update(self, modules):
        for name, cell in (modules.items() if hasattr(modules, "items") else modules):
            self[name] = cell

    def __setitem__(self, name, cell):
        setattr(self, name, cell)
        if name not in self._entry_names:
            self._entry_names.append(name)

    def __getitem__(self, name):
        if name not in self._entry_names:
            raise KeyError(name)
        return getattr(self, name)

    def __delitem__(self, name):
        self._entry_names.remove(name)
        delattr(self, name)

    def __contains__(self, name):
        return name in self._entry_names

    def __len__(self):
        return len(self._entry_names)

    def __iter__(self):
        return iter(list(self._entry_names))

    def keys(self):
        return list(self._entry_names)

    def values(self):
        return [getattr(self, name) for name in self._entry_names]

    def items(self):
        return [(name, getattr(self, name)) for name in self._entry_names]

    def pop(self, name):
        cell = self[name]
        del self[name]
        return cell


def make_grid_array(tensor, nrow=8, padding=2, normalize=False, value_range=None, scale_each=False, pad_value=0.0):
    """torchvision.utils.make_grid's layout as a numpy array (C, H, W): 1-channel images repeated to 3
    channels, tiles of the image size separated and framed by `padding` pixels of pad_value, nrow
    tiles a row, a single image returned as it is; normalize= rescales to [0, 1] from value_range or
    the min/max (per image with scale_each)."""
    import math
    import numpy as np

    def as_array(t):
        return t.asnumpy() if hasattr(t, "asnumpy") else np.asarray(t)

    array = np.stack([as_array(t) for t in tensor]) if isinstance(tensor, (list, tuple)) else as_array(tensor).copy()
    if array.ndim == 2:
        array = array[None]
    if array.ndim == 3:
        if array.shape[0] == 1:
            array = np.concatenate([array] * 3, 0)
        array = array[None]
    if array.ndim == 4 and array.shape[1] == 1:
        array = np.concatenate([array] * 3, 1)
    if normalize:
        def rescale(part):
            low, high = value_range if value_range is not None else (float(part.min()), float(part.max()))
            np.clip(part, low, high, out=part)
            part -= low
            part /= max(high - low, 1e-5)
        for part in (array if scale_each else [array]):
            rescale(part)
    if array.shape[0] == 1:
        return array[0]
    count = array.shape[0]
    columns = min(nrow, count)
    rows = int(math.ceil(float(count) / columns))
    height, width = array.shape[2] + padding, array.shape[3] + padding
    grid = np.full((array.shape[1], height * rows + padding, width * columns + padding), pad_value, dtype=array.dtype)
    for k in range(count):
        y, x = divmod(k, columns)
        grid[:, y * height + padding:(y + 1) * height, x * width + padding:(x + 1) * width] = array[k]
    return grid


def make_grid(tensor, **kwargs):
    """torchvision.utils.make_grid: the images tiled into one (C, H, W) tensor."""
    return mindspore.Tensor(make_grid_array(tensor, **kwargs))


def save_image(tensor, fp, format=None, **kwargs):
    """torchvision.utils.save_image: the images tiled as make_grid does, written with PIL as an 8-bit
    image file (round(x * 255) clamped to 0..255)."""
    import numpy as np
    from PIL import Image
    grid = make_grid_array(tensor, **kwargs)
    pixels = np.clip(grid * 255 + 0.5, 0, 255).transpose(1, 2, 0).astype(np.uint8)
    Image.fromarray(pixels.squeeze(2) if pixels.shape[2] == 1 else pixels).save(fp, format=format)


def cast_cell(cell, dtype):
    """A network's .double()/.float()/.half(): its floating-point parameters and buffers cast to
    dtype, the network returned."""
    for param in cell.get_parameters():
        if param.dtype in (mindspore.float16, mindspore.float32, mindspore.float64, mindspore.bfloat16):
            param.set_dtype(dtype)
    return cell


def int64_indices(result):
    """(values, indices) of a top-k with PyTorch's int64 indices (MindSpore gives int32, which int64
    ids refuse to be concatenated with)."""
    values, indices = result
    return values, indices.astype(mindspore.int64)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """torch.isclose elementwise (broadcast): input == other, or |input - other| finite and at most
    atol + rtol * |other|; NaNs close only with equal_nan. ops.isclose for real dtypes (it refuses
    complex ones: those in NumPy, with PyTorch's rules for infinite and NaN parts)."""
    if input.dtype not in (mindspore.complex64, mindspore.complex128):
        return ops.isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)
    import numpy as np
    a, b = input.asnumpy(), other.asnumpy()
    with np.errstate(invalid="ignore", over="ignore"):
        close = a == b
        if equal_nan:
            close = close | (np.isnan(a) & np.isnan(b))
        if rtol != 0 or atol != 0:
            error = np.abs(a - b)
            close = close | (np.isfinite(error) & (error <= atol + rtol * np.abs(b)))
    return mindspore.Tensor(close)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """torch.allclose: whether every element pair is close as isclose() says (one Python bool);
    like PyTorch, tensors of two dtypes are an error, not a comparison."""
    if input.dtype != other.dtype:
        raise RuntimeError(f"{input.dtype} did not match {other.dtype}")
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


def equal(input, other):
    """torch.equal: one Python bool, True when both have one shape and equal elements (NaN is equal
    to nothing); MindSpore's ops.equal compares element by element."""
    return tuple(input.shape) == tuple(other.shape) and bool((input == other).all())


def cartesian_prod(*tensors):
    """torch.cartesian_prod: ops.cartesian_prod, whose result for one tensor is a column (n, 1) where
    PyTorch returns the tensor's n elements as they are."""
    out = ops.cartesian_prod(*tensors)
    return out.reshape(-1) if len(tensors) == 1 else out


def unravel_index(indices, shape):
    """torch.unravel_index: the coordinates (a tuple of int64 tensors of indices' shape) of flat
    indices into `shape`, computed as PyTorch does: floor(index / stride) mod size per axis, so
    negative and too large indices wrap."""
    if indices.dtype not in (mindspore.int8, mindspore.int16, mindspore.int32, mindspore.int64, mindspore.uint8,
                             mindspore.uint16, mindspore.uint32, mindspore.uint64):
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(size < 0 for size in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if 0 in shape:
        raise RuntimeError("ZeroDivisionError")
    flat, strides, stride = indices.astype(mindspore.int64), [], 1
    for size in reversed(shape):
        strides.insert(0, stride)
        stride *= size
    return tuple(ops.floor_mod(ops.floor_divide(flat, stride), size) for stride, size in zip(strides, shape))


def one_hot(tensor, num_classes=-1):
    """F.one_hot: int64 indices -> int64 one-hot rows of num_classes (-1: the largest index + 1),
    with PyTorch's errors for other index dtypes, negative or too large indices and an empty input
    whose class count must be inferred."""
    if tensor.dtype != mindspore.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.size == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return ops.zeros(tuple(tensor.shape) + (num_classes,), mindspore.int64)
    if int(tensor.min()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    largest = int(tensor.max())
    if num_classes == -1:
        num_classes = largest + 1
    elif largest >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    on, off = mindspore.Tensor(1, mindspore.int64), mindspore.Tensor(0, mindspore.int64)
    return ops.one_hot(tensor, num_classes, on, off)




def hfft(input, n=None, dim=-1, norm=None):
    """torch.fft.hfft as the inverse real transform of the conjugate under the opposite normalisation
    (PyTorch's definition): MindSpore 2.10's ops.hfft returns the conjugated result on every other
    call."""
    return ops.irfft(ops.conj(input), n, dim, {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm])


def ihfft(input, n=None, dim=-1, norm=None):
    """torch.fft.ihfft as the conjugate of the real transform under the opposite normalisation (see
    hfft: ops.ihfft alternates too)."""
    return ops.conj(ops.rfft(input, n, dim, {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]))


def hfft2(input, s=None, dim=(-2, -1), norm=None):
    """torch.fft.hfft2 as irfft2 of the conjugate under the opposite normalisation (see hfft)."""
    return ops.irfft2(ops.conj(input), s, dim, {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm])


def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    """torch.fft.ihfft2 as the conjugate of rfft2 under the opposite normalisation (see hfft)."""
    return ops.conj(ops.rfft2(input, s, dim, {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]))


def hfftn(input, s=None, dim=None, norm=None):
    """torch.fft.hfftn as irfftn of the conjugate under the opposite normalisation (see hfft)."""
    return ops.irfftn(ops.conj(input), s, dim, {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm])


def ihfftn(input, s=None, dim=None, norm=None):
    """torch.fft.ihfftn as the conjugate of rfftn under the opposite normalisation (see hfft)."""
    return ops.conj(ops.rfftn(input, s, dim, {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]))

def fftfreq(n, d=1.0, *, dtype=None):
    """torch.fft.fftfreq with ops.fftfreq, which takes the sample spacing d as a float only."""
    return ops.fftfreq(n, float(d), dtype=dtype)


def rfftfreq(n, d=1.0, *, dtype=None):
    """torch.fft.rfftfreq with ops.rfftfreq, which takes the sample spacing d as a float only."""
    return ops.rfftfreq(n, float(d), dtype=dtype)


def histogram_edges(low, high, bins, dtype):
    """The bin_edges PyTorch's histogram functions use for `bins` equal bins over [low, high] (as a
    NumPy array of dtype): low == high widens by 0.5 each side, then torch.linspace's formula (from
    the start for the first half, from the end for the rest)."""
    import numpy as np
    low, high = dtype.type(low), dtype.type(high)
    if not (np.isfinite(low) and np.isfinite(high)):
        raise ValueError(f"histogram range [{low}, {high}] is not finite")
    if low > high:
        raise ValueError(f"histogram range: min should not exceed max, but got min {low} max {high}")
    if low == high:
        low, high = low - dtype.type(0.5), high + dtype.type(0.5)
    step = dtype.type((high - low) / dtype.type(bins))
    index = np.arange(bins + 1)
    return np.where(index < (bins + 1) // 2, low + step * index.astype(dtype),
                    high - step * (bins - index).astype(dtype)).astype(dtype)


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """torch.histogramdd in NumPy: the last axis of input holds the D coordinates; bins an int, D ints
    or D tensors of edges; range [min0, max0, min1, max1, ...] (default each coordinate's min and
    max); a value on a bin's left edge falls in it, the last bin also takes its right edge, values
    outside or NaN are left out; weight sums per bin; density divides by the total and the bin
    volume. Returns (hist, [bin_edges per dimension]) with input's float dtype."""
    import collections
    import numpy as np
    points = input.asnumpy()
    if points.dtype.kind != "f":
        raise RuntimeError(f"histogramdd is not implemented for {input.dtype}")
    if points.ndim < 2:
        raise RuntimeError("histogramdd: input tensor should have at least 2 dimensions")
    points = points.reshape(-1, points.shape[-1])
    dims = points.shape[1]
    if isinstance(bins, int):
        bins = [bins] * dims
    edges = []
    for dim, spec in enumerate(bins):
        if isinstance(spec, mindspore.Tensor):
            edges.append(spec.asnumpy().astype(points.dtype))
            continue
        if range is not None:
            low, high = range[2 * dim], range[2 * dim + 1]
        elif len(points):
            low, high = points[:, dim].min(), points[:, dim].max()
        else:
            low, high = 0.0, 1.0
        edges.append(histogram_edges(low, high, int(spec), points.dtype))
    weights = None if weight is None else weight.asnumpy().reshape(-1).astype(np.float64)
    keep = ~np.isnan(points).any(axis=1)
    hist, _ = np.histogramdd(points[keep].astype(np.float64), bins=[e.astype(np.float64) for e in edges],
                             weights=None if weights is None else weights[keep])
    hist = hist.astype(points.dtype)
    if density:
        with np.errstate(invalid="ignore", divide="ignore"):  # no values: NaN, as in PyTorch
            hist = hist / hist.sum()
            for dim, e in enumerate(edges):
                shape = [1] * dims
                shape[dim] = -1
                hist = hist / np.diff(e).reshape(shape)
    result = collections.namedtuple("histogramdd", ["hist", "bin_edges"])
    return result(mindspore.Tensor(hist.astype(points.dtype)), [mindspore.Tensor(e) for e in edges])


def histogram(input, bins, *, range=None, weight=None, density=False):
    """torch.histogram: histogramdd of the flattened input as one coordinate; returns (hist,
    bin_edges)."""
    import collections
    if isinstance(range, (list, tuple)):
        range = list(range)
    out = histogramdd(input.reshape(-1, 1), [bins], range=range,
                      weight=None if weight is None else weight.reshape(-1), density=density)
    result = collections.namedtuple("histogram", ["hist", "bin_edges"])
    return result(out.hist, out.bin_edges[0])


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """F.fold with ops.fold, which takes output_size as an int32 tensor and a batched (N, C * k, L)
    input only: an unbatched (C * k, L) input is folded as a batch of one."""
    size = (output_size, output_size) if isinstance(output_size, int) else tuple(output_size)
    batched = input.ndim == 3
    out = ops.fold(input if batched else input.expand_dims(0), mindspore.Tensor(size, mindspore.int32),
                   kernel_size, dilation, padding, stride)
    return out if batched else out.squeeze(0)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """F.unfold with ops.unfold, which takes a batched (N, C, H, W) input only: an unbatched
    (C, H, W) input is unfolded as a batch of one."""
    batched = input.ndim == 4
    out = ops.unfold(input if batched else input.expand_dims(0), kernel_size, dilation, padding, stride)
    return out if batched else out.squeeze(0)


class Fold(nn.Cell):
    """nn.Fold: the layer form of fold() (MindSpore has no Fold cell)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def construct(self, input):
        return fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)


class Unfold(nn.Cell):
    """nn.Unfold: the layer form of unfold() (MindSpore's nn.Unfold extracts image patches with
    another layout and other arguments)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def construct(self, input):
        return unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)


def aminmax(input, *, dim=None, keepdim=False):
    """torch.aminmax: (min, max) over dim (None: all elements) as a named tuple; a NaN in a reduced
    slice gives NaN for both, as in PyTorch (MindSpore's amin/amax skip NaN)."""
    import collections
    if input.size == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension")
    axis = tuple(range(input.ndim)) if dim is None else (dim,)
    low, high = input.amin(axis, keepdim), input.amax(axis, keepdim)
    if ops.is_floating_point(input):
        missing = ops.isnan(input).any(axis=axis, keep_dims=keepdim)
        nan = mindspore.Tensor(float("nan"), input.dtype)
        low, high = ops.where(missing, nan, low), ops.where(missing, nan, high)
    if dim is None and keepdim:
        low, high = low.reshape((1,) * input.ndim), high.reshape((1,) * input.ndim)
    return collections.namedtuple("aminmax", ["min", "max"])(low, high)


def vdot(input, other):
    """torch.vdot: the dot product of two 1-D tensors of one dtype, the first conjugated when
    complex."""
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input.dtype != other.dtype:
        raise RuntimeError(f"vdot: expected both vectors to have same dtype, but found {input.dtype} and {other.dtype}")
    if input.shape != other.shape:
        raise RuntimeError("inconsistent tensor size")
    if input.dtype in (mindspore.complex64, mindspore.complex128):
        input = ops.conj(input)
    return ops.inner(input, other)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """torch.isin: whether each element of `elements` equals one of `test_elements` (either may be a
    Python number; NaN matches nothing); invert negates."""
    elements = elements if isinstance(elements, mindspore.Tensor) else mindspore.Tensor(elements)
    test_elements = test_elements if isinstance(test_elements, mindspore.Tensor) else mindspore.Tensor(test_elements)
    flat = test_elements.reshape(-1)
    if flat.shape[0] == 0:
        found = ops.zeros(elements.shape, mindspore.bool_)
    else:
        found = (elements.reshape(elements.shape + (1,)) == flat).any(axis=-1)
    return ops.logical_not(found) if invert else found


def take(input, index):
    """torch.take: input read as 1-D at `index` (negative indices count from the end), shaped like
    index; an index out of range raises IndexError as in PyTorch (MindSpore's Take has no CPU
    kernel)."""
    flat = input.reshape(-1)
    count = flat.shape[0]
    if index.size and (int(index.max()) >= count or int(index.min()) < -count):
        raise IndexError(f"out of range: tried to access an index outside a tensor of {count} elements")
    index = index.astype(mindspore.int64)
    index = ops.where(index < 0, index + count, index)
    return ops.gather(flat, index.reshape(-1), 0).reshape(index.shape)


def shift_operands(input, other):
    """Two operands of a shift as tensors of the dtype PyTorch computes in (a Python int takes the
    tensor's dtype; two integer tensors promote as in NumPy)."""
    import numpy as np
    if not isinstance(input, mindspore.Tensor):
        input = mindspore.Tensor(input, other.dtype)
    if not isinstance(other, mindspore.Tensor):
        other = mindspore.Tensor(other, input.dtype)
    if input.dtype != other.dtype:
        common = np.promote_types(mindspore.dtype_to_nptype(input.dtype), mindspore.dtype_to_nptype(other.dtype))
        dtype = mindspore.Tensor(np.zeros(0, common)).dtype
        input, other = input.astype(dtype), other.astype(dtype)
    return input, other, 8 * input.itemsize


def bitwise_left_shift(input, other):
    """torch.bitwise_left_shift: ops.bitwise_left_shift, with PyTorch's 0 where the shift is negative
    or not smaller than the bit width (MindSpore wraps those for 32- and 64-bit integers)."""
    input, other, bits = shift_operands(input, other)
    out = ops.bitwise_left_shift(input, other)
    return ops.where((other < 0) | (other >= bits), ops.zeros_like(out), out)


def bitwise_right_shift(input, other):
    """torch.bitwise_right_shift: ops.bitwise_right_shift, with PyTorch's sign fill (-1 for negative
    values, else 0) where the shift is negative or not smaller than the bit width."""
    input, other, bits = shift_operands(input, other)
    out = ops.bitwise_right_shift(input, other)
    fill = ops.where(input < 0, ops.full_like(out, -1), ops.zeros_like(out))
    return ops.where((other < 0) | (other >= bits), fill, out)


def bitwise_not(input):
    """torch.bitwise_not: ops.invert for integers, logical not for bool (ops.invert refuses bool)."""
    return ops.logical_not(input) if input.dtype == mindspore.bool_ else ops.invert(input)


def conj_physical(input):
    """torch.conj_physical: ops.conj for complex tensors, the values as they are for the others
    (ops.conj refuses bool)."""
    return ops.conj(input) if input.dtype in (mindspore.complex64, mindspore.complex128) else input.copy()


def complex_tensor(real, imag):
    """torch.complex (named apart from Python's complex()): real + imag * 1j of one float dtype (float32 -> complex64, float64 ->
    complex128), the two broadcast first (the Complex primitive does not broadcast)."""
    import numpy as np
    shape = tuple(np.broadcast_shapes(tuple(real.shape), tuple(imag.shape)))
    return ops.Complex()(ops.broadcast_to(real, shape), ops.broadcast_to(imag, shape))


def frexp(input):
    """torch.frexp in NumPy: (mantissa, exponent) with input = mantissa * 2 ** exponent, mantissa in
    [0.5, 1) in magnitude and input's dtype, exponent int32 (0 for 0, infinities and NaN)."""
    import collections
    import numpy as np
    if not ops.is_floating_point(input):
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = np.frexp(input.asnumpy())
    return collections.namedtuple("frexp", ["mantissa", "exponent"])(
        mindspore.Tensor(mantissa), mindspore.Tensor(exponent.astype(np.int32)))


def element_size(input):
    """Tensor.element_size(): the bytes of one element (MindSpore's itemsize)."""
    return input.itemsize


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """torch.nn.utils.rnn.pad_sequence: tensors of lengths L_i (and one trailing shape) padded with
    padding_value to the longest, on the right or the left, stacked as (L, B, *) or, batch_first,
    (B, L, *)."""
    if padding_side not in ("right", "left"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    longest = max(sequence.shape[0] for sequence in sequences)
    padded = []
    for sequence in sequences:
        extra = longest - sequence.shape[0]
        if extra:
            fill = ops.full((extra,) + tuple(sequence.shape[1:]), padding_value, dtype=sequence.dtype)
            sequence = ops.cat([sequence, fill] if padding_side == "right" else [fill, sequence])
        padded.append(sequence)
    out = ops.stack(padded)
    return out if batch_first else out.swapaxes(0, 1)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, msg=None):
    """torch.testing.assert_close for MindSpore tensors, NumPy arrays, Python numbers and sequences or
    mappings of them: raises AssertionError where PyTorch does (shapes, dtypes unless check_dtype is
    False, then values: |actual - expected| <= atol + rtol * |expected|, equal infinities, NaN only
    with equal_nan; rtol/atol default by dtype as in PyTorch), TypeError for pairs PyTorch cannot
    compare. MindSpore has no devices or layouts to compare; msg replaces the message (a callable
    gets it)."""
    import numpy as np
    tolerances = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
                  "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}
    numbers = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, "
                         f"but got no {'rtol' if rtol is None else 'atol'}.")

    def fail(default):
        raise AssertionError(msg(default) if callable(msg) else default if msg is None else msg)

    def values(item):
        """(array, dtype name, what it is) for a tensor, an array or a number; None for anything else."""
        if isinstance(item, mindspore.Tensor):
            name = str(item.dtype).lower()
            return (item.astype(mindspore.float32) if name == "bfloat16" else item).asnumpy(), name, "Tensor-likes"
        if isinstance(item, np.ndarray):
            return item, str(item.dtype), "Tensor-likes"
        if isinstance(item, np.generic) or type(item) in numbers:
            array = np.asarray(item, numbers.get(type(item)))
            return array, str(array.dtype), "Scalars"
        return None

    def compare(a, e):
        if a is None and e is None:
            return
        pair_a, pair_e = values(a), values(e)
        tensors = isinstance(a, mindspore.Tensor) and isinstance(e, mindspore.Tensor)
        related = tensors and (allow_subclasses and (isinstance(a, type(e)) or isinstance(e, type(a)))
                               or type(a) is type(e))
        arrays = isinstance(a, np.ndarray) and isinstance(e, np.ndarray)
        scalars = pair_a is not None and pair_e is not None and pair_a[2] == pair_e[2] == "Scalars"
        if not (related or arrays or scalars):
            if isinstance(a, (list, tuple)) and isinstance(e, (list, tuple)):
                if len(a) != len(e):
                    fail(f"The length of the sequences mismatch: {len(a)} != {len(e)}")
                for x, y in zip(a, e):
                    compare(x, y)
                return
            if isinstance(a, dict) and isinstance(e, dict):
                if set(a) != set(e):
                    fail(f"The keys of the mappings do not match: missing in the actual mapping: "
                         f"{sorted(set(e) - set(a), key=str)}, additional: {sorted(set(a) - set(e), key=str)}")
                for key in e:
                    compare(a[key], e[key])
                return
            raise TypeError(f"No comparison pair was able to handle inputs of type {type(a)} and {type(e)}.")
        (x, x_dtype, kind), (y, y_dtype, _) = pair_a, pair_e
        if x.shape != y.shape:
            fail(f"The values for attribute 'shape' do not match: {x.shape} != {y.shape}.")
        if check_dtype and x_dtype != y_dtype:
            fail(f"The values for attribute 'dtype' do not match: {x_dtype} != {y_dtype}.")
        low, high = (rtol, atol) if rtol is not None else tuple(
            max(tolerances.get(name, (0.0, 0.0))[i] for name in (x_dtype, y_dtype)) for i in (0, 1))
        if x.dtype != y.dtype:
            common = np.promote_types(x.dtype, y.dtype)
            x, y = x.astype(common), y.astype(common)
        with np.errstate(invalid="ignore", over="ignore"):
            close = x == y
            if equal_nan and x.dtype.kind in "fc":
                close = close | (np.isnan(x) & np.isnan(y))
            if (low or high) and x.dtype.kind != "b":
                wide = x.dtype if x.dtype.kind in "fc" else np.float64  # floats in their own precision
                error = np.abs(x.astype(wide) - y.astype(wide))
                close = close | (np.isfinite(error) & (error <= high + low * np.abs(y.astype(wide))))
        if not np.all(close):
            wrong = int(np.size(close) - np.count_nonzero(close))
            fail(f"{kind} are not close!\n\nMismatched elements: {wrong} / {np.size(close)} "
                 f"({100.0 * wrong / max(np.size(close), 1):.1f}%)")

    compare(actual, expected)


def result_type(tensor, other):
    """torch.result_type: the dtype PyTorch's arithmetic on tensor and other gives. Operands rank by
    kind (tensors with dimensions, then 0-d tensors, then Python numbers: bool, int64, float32,
    complex64); a lower-ranked operand counts only when its category (bool < integer < float <
    complex) is higher, as in PyTorch's type promotion."""
    import numbers
    import numpy as np
    names = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
             "complex64", "complex128"]

    def category(name):
        return 0 if name == "bool" else 1 if "int" in name else 3 if "complex" in name else 2

    def promote(a, b):
        if a is None or a == b:
            return b
        if b is None:
            return a
        if category(a) != category(b):
            high, low = (a, b) if category(a) > category(b) else (b, a)
            if category(high) == 3 and category(low) == 2 and low == "float64":
                return "complex128"
            return high
        if {a, b} == {"float16", "bfloat16"}:
            return "float32"
        if "uint8" in (a, b) and category(a) == 1:
            signed = b if a == "uint8" else a
            return "int16" if signed == "int8" else signed
        return max(a, b, key=names.index)

    def combine(higher, lower):
        if higher is None:
            return lower
        if lower is None or category(higher) >= category(lower):
            return higher if category(higher) > 0 or lower is None else promote(higher, lower)
        if category(lower) == 3 and category(higher) == 2:
            return {"float64": "complex128", "float16": "complex32"}.get(higher, "complex64")
        return promote(higher, lower) if category(lower) == 2 and category(higher) == 0 else lower

    groups = {"dims": None, "zero": None, "number": None}
    for operand in (tensor, other):
        if isinstance(operand, mindspore.Tensor):
            key = "dims" if operand.ndim else "zero"
            groups[key] = promote(groups[key], str(operand.dtype).lower())
        elif isinstance(operand, numbers.Number):
            name = "bool" if isinstance(operand, (bool, np.bool_)) else "int64" if isinstance(operand, numbers.Integral) \
                else "float32" if isinstance(operand, numbers.Real) else "complex64"
            groups["number"] = promote(groups["number"], name)
        else:
            raise TypeError(f"result_type() takes tensors and numbers, not {type(operand).__name__}")
    name = combine(groups["dims"], combine(groups["zero"], groups["number"]))
    if name == "complex32":
        raise TypeError("the result would be complex32, which MindSpore does not have")
    return getattr(mindspore, {"bool": "bool_"}.get(name, name))


def ndtr(input):
    """torch.special.ndtr: the standard normal CDF, 0.5 * erfc(-x / sqrt(2)) as PyTorch computes it
    (integer and bool inputs as float32)."""
    if not ops.is_floating_point(input):
        input = input.astype(mindspore.float32)
    return 0.5 * ops.erfc(-input * 0.7071067811865476)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """torch.nn.utils.rnn.unpad_sequence: the list of each sequence cut to its length. Like PyTorch,
    with batch_first=False it first transposes padded_sequences in place to (B, T, *)."""
    if not batch_first:
        padded_sequences.assign_value(padded_sequences.swapaxes(0, 1))
    return [sequence[:max(int(length), 0)] for sequence, length in zip(padded_sequences, lengths, strict=True)]
