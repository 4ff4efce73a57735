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


def diag(input, diagonal=0):
    """torch.diag: a vector becomes a square matrix holding it on the diagonal-th diagonal (above the
    main one when positive), a matrix gives its diagonal-th diagonal (ops.diag builds a matrix of
    either). Booleans go through int8: diag_embed has no bool kernel."""
    if input.ndim == 1:
        if input.dtype == mindspore.bool_:
            return ops.diag_embed(input.astype(mindspore.int8), diagonal).astype(mindspore.bool_)
        return ops.diag_embed(input, diagonal)
    return ops.diagonal(input, diagonal)


def max_all(input):
    """torch.max(input): the largest element as a 0-d tensor. NaN wherever the input holds one (the
    MindSpore reduction skips a NaN after the first element); any() for booleans (no bool kernel)."""
    if input.dtype == mindspore.bool_:
        return input.any()
    value = input.max()
    if input.is_floating_point():
        value = ops.where(ops.isnan(input).any(), ops.full((), float("nan"), dtype=input.dtype), value)
    return value


def min_all(input):
    """torch.min(input): the smallest element as a 0-d tensor. NaN wherever the input holds one (the
    MindSpore reduction skips a NaN after the first element); all() for booleans (no bool kernel)."""
    if input.dtype == mindspore.bool_:
        return input.all()
    value = input.min()
    if input.is_floating_point():
        value = ops.where(ops.isnan(input).any(), ops.full((), float("nan"), dtype=input.dtype), value)
    return value


def median_all(input):
    """torch.median(input) / input.median(): the lower of the two middle elements of the flattened
    input (NaN if it holds one), a 0-d tensor; MindSpore's median works along an axis and returns
    (values, indices). Types the Median kernel lacks go through a wider one (the result is one of
    the elements, so it is exact). Anything that is no MindSpore tensor keeps its own median()."""
    if not isinstance(input, mindspore.Tensor):
        return input.median()
    flat = input.reshape(-1)
    wider = {mindspore.float16: mindspore.float32, mindspore.bfloat16: mindspore.float32,
             mindspore.int8: mindspore.int16, mindspore.uint8: mindspore.int16}.get(flat.dtype)
    if wider is not None:
        return ops.median(flat.astype(wider), 0)[0].astype(flat.dtype)
    return ops.median(flat, 0)[0]


def nanmedian_all(input):
    """torch.nanmedian(input) / input.nanmedian(): as median_all with NaN left out (NaN only when
    every element is NaN). Anything that is no MindSpore tensor keeps its own nanmedian()."""
    if not isinstance(input, mindspore.Tensor):
        return input.nanmedian()
    flat = input.reshape(-1)
    wider = {mindspore.float16: mindspore.float32, mindspore.bfloat16: mindspore.float32,
             mindspore.int8: mindspore.int16, mindspore.uint8: mindspore.int16}.get(flat.dtype)
    if wider is not None:
        return ops.nanmedian(flat.astype(wider), 0)[0].astype(flat.dtype)
    return ops.nanmedian(flat, 0)[0]


def copysign(input, other):
    """torch.copysign: input's magnitude with other's sign, read from other's sign bit, so -0.0 and
    -nan count as negative (MindSpore's copysign takes them as positive). The result's dtype follows
    PyTorch's promotion: a 0-d tensor or a number counts only when of a higher kind (int < float);
    an integer result becomes float32."""
    if not isinstance(other, mindspore.Tensor):
        other = mindspore.tensor(other, mindspore.float64 if isinstance(other, float) else mindspore.int64)
        dtype = input.dtype if input.is_floating_point() or not other.is_floating_point() else mindspore.float32
    elif (input.ndim == 0) == (other.ndim == 0) or input.is_floating_point() == other.is_floating_point():
        pair = (input, other) if (input.ndim == 0) == (other.ndim == 0) else \
            (input, input) if other.ndim == 0 else (other, other)
        dtype = (pair[0].reshape(-1)[:1] + pair[1].reshape(-1)[:1]).dtype
    else:
        dtype = other.dtype if other.is_floating_point() else input.dtype
    if dtype not in (mindspore.float16, mindspore.bfloat16, mindspore.float32, mindspore.float64):
        dtype = mindspore.float32
    magnitude = ops.abs(input.astype(dtype))
    if other.is_floating_point():
        bits = {mindspore.float16: mindspore.int16, mindspore.bfloat16: mindspore.int16,
                mindspore.float32: mindspore.int32, mindspore.float64: mindspore.int64}[other.dtype]
        negative = other.view(bits) < 0
    else:
        negative = other < 0
    return ops.where(negative, -magnitude, magnitude)


def repeat_interleave_index(repeats):
    """torch.repeat_interleave(repeats): each index i of repeats written repeats[i] times
    ([2, 0, 1] -> [0, 0, 2]), in repeats' dtype."""
    return ops.repeat_interleave(ops.arange(repeats.shape[0], dtype=repeats.dtype), repeats, 0)


def bucketize(input, boundaries, out_int32=False, right=False):
    """torch.bucketize: for each value, the index of the bucket of the sorted 1-D boundaries it falls
    in, which is ops.searchsorted(boundaries, input) (MindSpore's bucketize takes a list of floats).
    Both go to their common dtype first, as PyTorch compares them; out_int32 casts the result
    (searchsorted's own out_int32 fails on CPU)."""
    if not isinstance(input, mindspore.Tensor):
        input = mindspore.tensor(input)
    common = (input.reshape(-1)[:1] + boundaries[:1]).dtype
    result = ops.searchsorted(boundaries.astype(common), input.astype(common), right=right)
    return result.astype(mindspore.int32) if out_int32 else result


def combinations(input, r=2, with_replacement=False):
    """torch.combinations: ops.combinations, except where there is nothing to combine (r=0, or fewer
    elements than r without replacement), which PyTorch answers with an empty (0, r) tensor of the
    input's dtype ((0,) for r=0) and MindSpore with a float (0,) tensor or an error."""
    import math

    n = input.shape[0]
    if r == 0 or (math.comb(n + r - 1, r) if with_replacement else math.comb(n, r)) == 0:
        return ops.zeros((0,) if r == 0 else (0, r), input.dtype)
    return ops.combinations(input, r, with_replacement)


def narrow(input, dim, start, length):
    """torch.narrow / x.narrow: length elements along dim from start, which PyTorch takes negative
    (counted from the end) or as a 0-d tensor; MindSpore's narrow takes a non-negative int only."""
    start = int(start)
    if start < 0:
        start += input.shape[dim]
    return ops.narrow(input, dim, start, length)


def masked_scatter(input, mask, source):
    """torch.masked_scatter / x.masked_scatter: source's leading elements, in order, written where
    mask is True. PyTorch broadcasts input and mask together; MindSpore's needs mask broadcastable
    to input, so both are broadcast first."""
    import numpy as np

    shape = tuple(np.broadcast_shapes(tuple(input.shape), tuple(mask.shape)))
    return ops.broadcast_to(input, shape).masked_scatter(ops.broadcast_to(mask, shape), source)


def conv_transpose_output_size(layer, input, output_size):
    """A PyTorch ConvTranspose1d/2d/3d layer called with output_size=: MindSpore's cell takes the
    input only, so the transposed convolution runs here on the layer's own weight and bias, with
    the output grown to the requested size as PyTorch does (the extra rows, fewer than
    max(stride, dilation) per axis, get what the kernel reaches there, not zeros)."""
    dims = len(layer.kernel_size) if not isinstance(layer, nn.Conv1dTranspose) else 1
    batched = input.ndim == dims + 2
    x = input if batched else input.expand_dims(0)
    kernel, stride, dilation = layer.kernel_size[-dims:], layer.stride[-dims:], layer.dilation[-dims:]
    pads = layer.padding if isinstance(layer.padding, tuple) else (layer.padding,) * (2 * dims)
    pads = pads[-2 * dims:]
    sizes = tuple(int(s) for s in tuple(output_size)[-dims:])
    extra = []
    for axis in range(dims):
        natural = (x.shape[2 + axis] - 1) * stride[axis] - pads[2 * axis] - pads[2 * axis + 1] \
            + dilation[axis] * (kernel[axis] - 1) + 1
        extra.append(sizes[axis] - natural)
        if not 0 <= extra[axis] < max(stride[axis], dilation[axis]):
            raise ValueError(f"requested an output size of {sizes}, but valid sizes along axis {axis} range "
                             f"from {natural} to {natural + max(stride[axis], dilation[axis]) - 1}")
    if dims == 3:
        out = ops.Conv3DTranspose(layer.in_channels, layer.out_channels, kernel, mode=1, pad_mode="pad", pad=pads,
                                  stride=stride, dilation=dilation, group=layer.group,
                                  output_padding=tuple(extra))(x, layer.weight)
    else:
        flat = x.expand_dims(2) if dims == 1 else x
        out = ops.Conv2DTranspose(out_channel=layer.in_channels, kernel_size=layer.kernel_size, mode=1, pad_mode="pad",
                                  pad=(0, 0, *pads) if dims == 1 else pads, stride=layer.stride,
                                  dilation=layer.dilation, group=layer.group)(
            flat, layer.weight, (x.shape[0], layer.out_channels, *((1,) if dims == 1 else ()), *sizes))
        out = out.squeeze(2) if dims == 1 else out
    if layer.has_bias:
        out = ops.bias_add(out, layer.bias)
    return out if batched else out.squeeze(0)


def multilabel_margin_loss(input, target, reduction="mean"):
    """F.multilabel_margin_loss (MindSpore's has no CPU kernel): a sample's targets are the class
    indices before its first -1; its loss sums max(0, 1 - (x[t] - x[c])) over each target t and each
    class c that is no target, over the number of classes. Input (C) or (N, C), targets alike."""
    x = input if input.ndim == 2 else input.expand_dims(0)
    y = (target if target.ndim == 2 else target.expand_dims(0)).astype(mindspore.int32)
    classes = x.shape[1]
    valid = ops.cumprod((y >= 0).astype(mindspore.int32), 1) > 0
    index = ops.where(valid, y, ops.zeros_like(y))
    chosen = ops.one_hot(index, classes, ops.ones((), mindspore.int32), ops.zeros((), mindspore.int32)) \
        * valid.astype(mindspore.int32).expand_dims(2)
    is_target = chosen.sum(1) > 0
    picked = ops.gather_elements(x, 1, index)
    margins = ops.relu(1 - picked.expand_dims(2) + x.expand_dims(1))
    keep = ops.logical_and(valid.expand_dims(2), ops.logical_not(is_target).expand_dims(1))
    loss = (margins * keep.astype(x.dtype)).sum((1, 2)) / classes
    if input.ndim == 1:
        loss = loss.squeeze(0)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


class MultiLabelMarginLoss(nn.Cell):
    """torch.nn.MultiLabelMarginLoss: multilabel_margin_loss as a cell (mindspore.nn has none)."""

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def construct(self, input, target):
        return multilabel_margin_loss(input, target, self.reduction)
