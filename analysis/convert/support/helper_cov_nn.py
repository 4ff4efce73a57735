"""MindSpore definitions for torch.nn layers, torch.nn.functional calls and torch.linalg functions that the
tables left without a counterpart (issue 29, API coverage): the MindSpore op is missing, has no CPU kernel
for PyTorch's dtypes, or takes other defaults. Same rules as helper_source.py: copied as it stands,
MindSpore reached only through `mindspore.`, `ops.` and `nn.`; a helper may call those of other files."""
import mindspore
from mindspore import nn, ops


def spatial_tuple(value, count):
    """An int or a sequence given for each of `count` spatial axes, as a tuple of ints."""
    if isinstance(value, (tuple, list)):
        return tuple(int(v) for v in value)
    return (int(value),) * count


def zeros_between(x, axis, step):
    """x with step - 1 zeros between neighbours along axis (a transposed convolution's strided input)."""
    if step == 1:
        return x
    size = x.shape[axis]
    wide = x.expand_dims(axis + 1)
    shape = list(wide.shape)
    shape[axis + 1] = step - 1
    wide = ops.cat((wide, ops.zeros(tuple(shape), x.dtype)), axis + 1)
    shape = list(x.shape)
    shape[axis] = size * step
    return wide.reshape(tuple(shape)).narrow(axis, 0, (size - 1) * step + 1) if size else wide.reshape(tuple(shape))


def pad_or_crop(x, axis, before, after):
    """x with `before` zeros in front of axis and `after` behind (a negative amount removes items)."""
    if before < 0:
        x = x.narrow(axis, -before, x.shape[axis] + before)
        before = 0
    if after < 0:
        x = x.narrow(axis, 0, x.shape[axis] + after)
        after = 0
    parts = []
    for amount in (before, after):
        shape = list(x.shape)
        shape[axis] = amount
        parts.append(ops.zeros(tuple(shape), x.dtype) if amount else None)
    pieces = [p for p in (parts[0], x, parts[1]) if p is not None]
    return ops.cat(pieces, axis) if len(pieces) > 1 else x


def conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation):
    """F.conv_transpose1d/2d/3d as the convolution it is the gradient of: the input with stride - 1 zeros
    between items, padded by dilation * (kernel - 1) - padding (output_padding more after), convolved with
    the kernel flipped and its in/out channels swapped per group (conv_nd: any dtype, MindSpore's transposed
    convolutions have no 1-D or float64 CPU kernel and refuse output_padding forms PyTorch takes)."""
    spatial = weight.ndim - 2
    batched = input.ndim == weight.ndim
    x = input if batched else input.expand_dims(0)
    stride, padding = spatial_tuple(stride, spatial), spatial_tuple(padding, spatial)
    output_padding, dilation = spatial_tuple(output_padding, spatial), spatial_tuple(dilation, spatial)
    kernel = tuple(weight.shape[2:])
    for i in range(spatial):
        x = zeros_between(x, 2 + i, stride[i])
        reach = dilation[i] * (kernel[i] - 1) - padding[i]
        x = pad_or_crop(x, 2 + i, reach, reach + output_padding[i])
    channels_in, per_group_out = weight.shape[0], weight.shape[1]
    w = weight.reshape((groups, channels_in // groups, per_group_out) + kernel).swapaxes(1, 2)
    w = w.reshape((groups * per_group_out, channels_in // groups) + kernel)
    w = ops.flip(w, tuple(range(2, 2 + spatial)))
    if x.dtype == mindspore.float16:
        out = conv_transpose_half(input if batched else input.expand_dims(0), weight, bias, stride, padding,
                                  output_padding, groups, dilation)
        return out if batched else out.squeeze(0)
    op = (ops.conv1d, ops.conv2d, ops.conv3d)[spatial - 1] if spatial <= 3 else None
    out = conv_nd(op, x, w, bias, 1, 0, dilation, groups)
    return out if batched else out.squeeze(0)


def conv_transpose_half(input, weight, bias, stride, padding, output_padding, groups, dilation):
    """A float16 transposed convolution summed as PyTorch's CPU kernel sums it: for each kernel offset in
    order, the products over input channels in float32 rounded to float16, then added to the float16 output
    at that offset's positions (each addition rounded), the bias last."""
    import itertools
    spatial = weight.ndim - 2
    kernel = tuple(weight.shape[2:])
    sizes_in = tuple(input.shape[2:])
    sizes = [(sizes_in[i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kernel[i] - 1) + output_padding[i] + 1
             for i in range(spatial)]
    channels_in, per_group_out = weight.shape[0], weight.shape[1]
    per_group_in = channels_in // groups
    x = input.astype(mindspore.float32)
    w = weight.astype(mindspore.float32)
    last = list(range(2, 2 + spatial)) + [1]
    x = x.permute(0, *last)  # (N, *sizes_in, C)
    out = ops.zeros((input.shape[0], per_group_out * groups) + tuple(sizes), mindspore.float16)
    for offset in itertools.product(*[range(k) for k in kernel]):
        taps = w[(slice(None), slice(None)) + tuple(offset)]  # (C_in, C_out / groups)
        parts = [ops.matmul(x[..., g * per_group_in:(g + 1) * per_group_in], taps[g * per_group_in:(g + 1) * per_group_in])
                 for g in range(groups)]
        part = (parts[0] if groups == 1 else ops.cat(parts, -1)).astype(mindspore.float16)
        part = part.permute(0, spatial + 1, *range(1, spatial + 1))
        for i in range(spatial):
            part = zeros_between(part, 2 + i, stride[i])
            before = offset[i] * dilation[i] - padding[i]
            part = pad_or_crop(part, 2 + i, before, sizes[i] - before - part.shape[2 + i])
        out = out + part
    if bias is not None:
        out = out + bias.astype(mindspore.float16).reshape((1, -1) + (1,) * spatial)
    return out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """F.conv_transpose1d: see conv_transpose_nd."""
    return conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """F.conv_transpose2d: see conv_transpose_nd."""
    return conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """F.conv_transpose3d: see conv_transpose_nd."""
    return conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_tbc(input, weight, bias, pad=0):
    """F.conv_tbc: a 1-D convolution of a (time, batch, channels) input with a (kernel, in, out) weight."""
    out = conv_nd(ops.conv1d, input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, 1, pad, 1, 1)
    return out.permute(2, 0, 1)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    """F.embedding: the rows of weight that input names. With max_norm, as PyTorch, the named rows whose
    norm_type-norm exceeds max_norm are first scaled to max_norm / (norm + 1e-7) in weight itself.
    padding_idx, scale_grad_by_freq and sparse act on gradients only."""
    if max_norm is not None:
        rows = weight.shape[0]
        named = ops.zeros(rows, mindspore.int32).index_add(0, input.reshape(-1).astype(mindspore.int32),
                                                        ops.ones(input.size, mindspore.int32)) > 0
        norms = lp_norm(weight, norm_type, -1, True)
        scale = ops.where(named.expand_dims(-1) & (norms > max_norm), max_norm / (norms + 1e-7), 1.0)
        weight.assign_value((weight * scale.astype(weight.dtype)).astype(weight.dtype))
    return ops.gather(weight, input, 0)


def max_pool_nd(input, spatial, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    """F.max_pool1d/2d/3d (and *_with_indices) for any dtype: the maximum over each window (NaN wins, the
    first of equal maxima is kept), windows of PyTorch's sizes (ceil_mode's last window starts inside the
    input or its left padding), indices flat over each input plane."""
    import itertools
    batched = input.ndim == spatial + 2
    x = input if batched else input.expand_dims(0)
    kernel = spatial_tuple(kernel_size, spatial)
    stride = kernel if stride is None or (isinstance(stride, (tuple, list)) and not stride) else spatial_tuple(stride, spatial)
    padding, dilation = spatial_tuple(padding, spatial), spatial_tuple(dilation, spatial)
    sizes_in = tuple(x.shape[2:])
    sizes = []
    for i in range(spatial):
        span = sizes_in[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1
        size = (span + (stride[i] - 1 if ceil_mode else 0)) // stride[i] + 1
        if ceil_mode and (size - 1) * stride[i] >= sizes_in[i] + padding[i]:
            size -= 1
        sizes.append(size)
    if x.dtype == mindspore.bool_:
        low = mindspore.Tensor(False)
    elif ops.is_floating_point(x):
        low = mindspore.Tensor(float("-inf"), x.dtype)
    else:
        import numpy as np
        low = mindspore.Tensor(np.iinfo(mindspore.dtype_to_nptype(x.dtype)).min, x.dtype)
    best, where = None, None
    for offset in itertools.product(*[range(k) for k in kernel]):
        window, flat = x, None
        for i, k in enumerate(offset):
            starts = [o * stride[i] + k * dilation[i] - padding[i] for o in range(sizes[i])]
            inside = mindspore.Tensor([0 <= s < sizes_in[i] for s in starts])
            at = mindspore.Tensor([min(max(s, 0), sizes_in[i] - 1) for s in starts], mindspore.int64)
            window = ops.gather(window, at, 2 + i)
            shape = [1] * (spatial + 2)
            shape[2 + i] = sizes[i]
            window = ops.where(inside.reshape(tuple(shape)), window, low)
            place = mindspore.Tensor(starts, mindspore.int64).reshape(tuple(shape))
            flat = place if flat is None else flat * sizes_in[i] + place
        if best is None:
            best, where = window, ops.broadcast_to(flat, window.shape)
            continue
        if ops.is_floating_point(x):
            wins = (window > best) | (ops.isnan(window) & ~ops.isnan(best))
        elif x.dtype == mindspore.bool_:
            wins = window & ~best
        else:
            wins = window > best
        best = ops.where(wins, window, best)
        where = ops.where(wins, ops.broadcast_to(flat, window.shape), where)
    if not batched:
        best, where = best.squeeze(0), where.squeeze(0)
    return (best, where) if return_indices else best


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """F.max_pool1d: see max_pool_nd."""
    return max_pool_nd(input, 1, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    """F.max_pool1d_with_indices: (values, indices), see max_pool_nd."""
    return max_pool_nd(input, 1, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    """F.max_pool2d_with_indices: (values, indices), see max_pool_nd."""
    return max_pool_nd(input, 2, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    """F.max_pool3d_with_indices: (values, indices), see max_pool_nd."""
    return max_pool_nd(input, 3, kernel_size, stride, padding, dilation, ceil_mode, True)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """F.instance_norm: each (sample, channel) plane less its mean over its biased deviation; given running
    statistics, they move by momentum toward the batch's average of the planes' mean and unbiased variance
    (in place, as PyTorch, after the output is computed: a tensor passed as both a statistic and weight or
    bias scales by its value before the update), or with use_input_stats=False they normalise instead."""
    axes = tuple(range(2, input.ndim))
    shape = (1, -1) + (1,) * (input.ndim - 2)
    if use_input_stats:
        mean = input.mean(axes, keep_dims=True)
        var = ((input - mean) ** 2).mean(axes, keep_dims=True)
    else:
        mean, var = running_mean.reshape(shape), running_var.reshape(shape)
    out = (input - mean) / ops.sqrt(var + eps)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    if use_input_stats and (running_mean is not None or running_var is not None):
        count = 1
        for axis in axes:
            count *= input.shape[axis]
        # both new values from the old ones before either is written (one tensor may be both)
        updates = []
        if running_mean is not None:
            batch = mean.mean(0).reshape(-1).astype(running_mean.dtype)
            updates.append((running_mean, (1 - momentum) * running_mean + momentum * batch))
        if running_var is not None:
            batch = (var * count / max(count - 1, 1)).mean(0).reshape(-1).astype(running_var.dtype)
            updates.append((running_var, (1 - momentum) * running_var + momentum * batch))
        for statistic, value in updates:
            statistic.assign_value(value)
    return out


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """F.rms_norm: input times the reciprocal root of the mean square over the last len(normalized_shape)
    axes plus eps (the dtype's machine epsilon by default), half precision computed in float32 as PyTorch
    does (ops.rms_norm has no CPU kernel)."""
    import numpy as np
    count = 1 if isinstance(normalized_shape, int) else len(tuple(normalized_shape))
    axes = tuple(range(input.ndim - count, input.ndim))
    wide = input.astype(mindspore.float32) if input.dtype in (mindspore.float16, mindspore.bfloat16) else input
    if eps is None:  # the epsilon of the dtype computed in (float32 for half precision)
        eps = float(np.finfo(mindspore.dtype_to_nptype(wide.dtype)).eps)
    out = (wide * ops.rsqrt((wide * wide).mean(axes, keep_dims=True) + eps)).astype(input.dtype)
    return out * weight if weight is not None else out


class RMSNorm(nn.Cell):
    """nn.RMSNorm: rms_norm() with a weight of ones (elementwise_affine) over normalized_shape."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        self.weight = mindspore.Parameter(ops.ones(shape, dtype or mindspore.float32), name="weight") \
            if elementwise_affine else None

    def construct(self, x):
        return rms_norm(x, self.normalized_shape, self.weight, self.eps)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """F.alpha_dropout: see alpha_dropout_draw."""
    return alpha_dropout_draw(input, p, training, False)


def alpha_dropout_draw(input, p, training, feature):
    """F.alpha_dropout / feature_alpha_dropout with PyTorch's constants (alpha = 1.7580993408473766,
    a = 1 / sqrt((alpha^2 p + 1)(1 - p))): a kept item becomes a x + alpha a p, a dropped one
    alpha a (p - 1); feature draws one mask per (sample, channel). An identity outside training."""
    if not training or p == 0 or input.size == 0:
        return input
    if p == 1:
        return input * 0
    alpha = 1.7580993408473766
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2) if feature else tuple(input.shape)
    keep = (ops.rand(shape) < 1 - p).astype(input.dtype)
    a = 1.0 / (((alpha * alpha * p) + 1) * (1 - p)) ** 0.5
    shift = (keep - 1) * (alpha * a) + alpha * a * p
    return input * (keep * a) + shift


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """F.feature_alpha_dropout: alpha_dropout_draw with one mask per (sample, channel)."""
    return alpha_dropout_draw(input, p, training, True)


class AlphaDropout(nn.Cell):
    """nn.AlphaDropout: alpha_dropout() while the cell is training."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        self.p = p

    def construct(self, x):
        return alpha_dropout_draw(x, self.p, self.training, False)


class FeatureAlphaDropout(nn.Cell):
    """nn.FeatureAlphaDropout: feature_alpha_dropout() while the cell is training."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        self.p = p

    def construct(self, x):
        return alpha_dropout_draw(x, self.p, self.training, True)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """F.dropout1d: whole channels of a (N, C, L) or (C, L) input zeroed with probability p, the rest
    scaled by 1 / (1 - p)."""
    if not training or p == 0:
        return input
    batched = input.ndim == 3
    x = input if batched else input.expand_dims(0)
    if p == 1:
        out = x * 0
    else:
        keep = (ops.rand(tuple(x.shape[:2]) + (1,)) < 1 - p).astype(x.dtype)
        out = x * keep / (1 - p)
    return out if batched else out.squeeze(0)


class Dropout1d(nn.Cell):
    """nn.Dropout1d: dropout1d() while the cell is training."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        self.p = p

    def construct(self, x):
        return dropout1d(x, self.p, self.training)


class CosineSimilarity(nn.Cell):
    """nn.CosineSimilarity: cosine_similarity() over dim."""

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def construct(self, x1, x2):
        return cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(nn.Cell):
    """nn.PairwiseDistance: pairwise_distance() over the last axis."""

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def construct(self, x1, x2):
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


def upsample_nearest(input, size=None, scale_factor=None):
    """F.upsample_nearest: interpolate() in nearest mode."""
    return interpolate(input, size, scale_factor, "nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """F.upsample_bilinear: interpolate() in bilinear mode with align_corners=True."""
    return interpolate(input, size, scale_factor, "bilinear", True)


class UpsamplingNearest2d(nn.Cell):
    """nn.UpsamplingNearest2d: upsample_nearest()."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__()
        self.size, self.scale_factor = size, scale_factor

    def construct(self, x):
        return interpolate(x, self.size, self.scale_factor, "nearest")


class UpsamplingBilinear2d(nn.Cell):
    """nn.UpsamplingBilinear2d: upsample_bilinear()."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__()
        self.size, self.scale_factor = size, scale_factor

    def construct(self, x):
        return interpolate(x, self.size, self.scale_factor, "bilinear", True)


class PadNd(nn.Cell):
    """The padding layers: `padding` an int (every side) or PyTorch's (left, right, top, bottom, front,
    back) tuple, applied by circular_pad (circular: by concatenation, any dtype) or ops.pad."""
    dims, mode = 1, "constant"

    def __init__(self, padding, value=0.0):
        super().__init__()
        self.padding = tuple(padding) if isinstance(padding, (tuple, list)) else (int(padding),) * (2 * self.dims)
        self.value = value

    def construct(self, x):
        if self.mode == "constant":
            return pad_or_crop_all(x, self.padding, self.value)
        if self.mode == "reflect":
            return reflection_pad(x, self.padding)
        return circular_pad(x, self.padding, self.mode)


class ZeroPad1d(PadNd):
    """nn.ZeroPad1d: see PadNd."""
    dims = 1

    def __init__(self, padding):
        super().__init__(padding, 0.0)


class ZeroPad3d(PadNd):
    """nn.ZeroPad3d: see PadNd."""
    dims = 3

    def __init__(self, padding):
        super().__init__(padding, 0.0)


class CircularPad1d(PadNd):
    """nn.CircularPad1d: see PadNd."""
    dims, mode = 1, "circular"

    def __init__(self, padding):
        super().__init__(padding)


class CircularPad2d(PadNd):
    """nn.CircularPad2d: see PadNd."""
    dims, mode = 2, "circular"

    def __init__(self, padding):
        super().__init__(padding)


class CircularPad3d(PadNd):
    """nn.CircularPad3d: see PadNd."""
    dims, mode = 3, "circular"

    def __init__(self, padding):
        super().__init__(padding)


class ReflectionPad3d(PadNd):
    """nn.ReflectionPad3d: see PadNd."""
    dims, mode = 3, "reflect"

    def __init__(self, padding):
        super().__init__(padding)


def pad_or_crop_all(x, pad, value=0.0):
    """F.pad's constant mode by concatenation (any dtype; a negative amount crops): pad holds (before,
    after) pairs from the last axis."""
    for i in range(len(pad) // 2):
        axis = x.ndim - 1 - i
        before, after = int(pad[2 * i]), int(pad[2 * i + 1])
        if before < 0:
            x = x.narrow(axis, -before, x.shape[axis] + before)
        if after < 0:
            x = x.narrow(axis, 0, x.shape[axis] + after)
        parts = []
        for amount in (max(before, 0), max(after, 0)):
            shape = list(x.shape)
            shape[axis] = amount
            parts.append(ops.full(tuple(shape), value, dtype=x.dtype) if amount else None)
        pieces = [p for p in (parts[0], x, parts[1]) if p is not None]
        x = ops.cat(pieces, axis) if len(pieces) > 1 else x
    return x


def reflection_pad(x, pad):
    """F.pad's reflect mode by gathering mirrored indices, last axis first (ops.pad's reflect mode takes at
    most 4-D inputs on CPU): (before, after) pairs, each smaller than its axis."""
    for i in range(len(pad) // 2):
        axis = x.ndim - 1 - i
        before, after, size = int(pad[2 * i]), int(pad[2 * i + 1]), x.shape[x.ndim - 1 - i]
        at = [before - j for j in range(before)] + list(range(size)) + [size - 2 - j for j in range(after)]
        x = ops.gather(x, mindspore.Tensor(at, mindspore.int64), axis)
    return x


def linalg_slogdet(A):
    """torch.linalg.slogdet: (sign, logabsdet) with attribute names; logabsdet is real for complex A
    (ops.slogdet returns it complex). Matrices of size 0 (determinant 1) and 1 (their item), and empty
    batches, which ops.slogdet refuses, are computed here."""
    import collections
    pair = collections.namedtuple("slogdet", ("sign", "logabsdet"))
    complex_input = A.dtype in (mindspore.complex64, mindspore.complex128)
    real = {mindspore.complex64: mindspore.float32, mindspore.complex128: mindspore.float64}.get(A.dtype, A.dtype)
    size, batch = A.shape[-1], tuple(A.shape[:-2])
    if size >= 2 and A.size:
        sign, logabsdet = ops.slogdet(A)
        return pair(sign, ops.real(logabsdet) if complex_input else logabsdet)
    if A.size == 0 and size:  # an empty batch
        return pair(ops.zeros(batch, A.dtype), ops.zeros(batch, real))
    value = ops.ones(batch, A.dtype) if size == 0 else A[..., 0, 0]
    if complex_input:
        magnitude = ops.sqrt(ops.real(value) * ops.real(value) + ops.imag(value) * ops.imag(value))
        safe = ops.where(magnitude == 0, ops.ones_like(magnitude), magnitude)
        sign = ops.where(magnitude == 0, ops.zeros_like(value), value / safe.astype(A.dtype))
    else:
        magnitude, sign = ops.abs(value), ops.sign(value)
    return pair(sign, ops.log(magnitude))


def matrix_exp(A):
    """torch.linalg.matrix_exp by scaling and squaring: A / 2^s (s from the largest 1-norm, below 1/2)
    through its Taylor series to 18 terms, squared s times (MindSpore's MatrixExp has no CPU kernel)."""
    import math
    if A.size == 0:
        return A
    size = A.shape[-1]
    size_of = ops.abs(ops.real(A)) + ops.abs(ops.imag(A)) if A.dtype in (mindspore.complex64, mindspore.complex128) \
        else ops.abs(A)  # a bound of the moduli (MindSpore's abs of a complex tensor stays complex)
    norm = float(size_of.sum(-2).max().asnumpy()) if size else 0.0
    s = max(0, int(math.ceil(math.log2(norm / 0.5)))) if norm > 0.5 else 0
    x = A / (2 ** s)
    eye = ops.broadcast_to(ops.eye(size, size, A.dtype), A.shape)
    term, total = eye, eye
    for k in range(1, 19):
        term = ops.matmul(term, x) / k
        total = total + term
    for _ in range(s):
        total = ops.matmul(total, total)
    return total


def linalg_vander(x, N=None):
    """torch.linalg.vander: the powers x^0 .. x^(N-1) along a new last axis (N defaults to x's last size),
    any batch (a scalar as one item), in x's dtype, as running products."""
    if x.ndim == 0:
        x = x.reshape(1)
    count = x.shape[-1] if N is None else int(N)
    ones = ops.ones(tuple(x.shape) + (1,), x.dtype)
    if count <= 1:
        return ones[..., :count]
    repeated = ops.broadcast_to(x.expand_dims(-1), tuple(x.shape) + (count - 1,))
    return ops.cumprod(ops.cat((ones, repeated), -1), -1)


def linalg_vecdot(x, y, dim=-1):
    """torch.linalg.vecdot: the sum over dim of conj(x) * y, operands broadcast (empty ones sum to 0:
    MindSpore's Conj refuses them)."""
    import numpy
    shape = tuple(numpy.broadcast_shapes(tuple(x.shape), tuple(y.shape)))
    if 0 in shape:
        kept = list(shape)
        del kept[dim]
        return ops.zeros(tuple(kept), x.dtype)
    if x.dtype in (mindspore.complex64, mindspore.complex128):
        x = ops.conj(x)
    return (x * y).sum(dim)


def linalg_cross(input, other, dim=-1):
    """torch.linalg.cross: cross() with dim defaulting to the last axis."""
    return cross(input, other, dim)


def linalg_matrix_rank(A, tol=None, hermitian=False, atol=None, rtol=None):
    """torch.linalg.matrix_rank: the number of singular values (eigenvalue moduli for hermitian) above
    max(atol, rtol * largest), rtol defaulting to eps * max(rows, columns) when atol is not given (a
    positional tol is atol), as int64."""
    import numpy as np
    if tol is not None:
        atol = tol
    if A.size == 0:  # no singular values: rank 0 (MindSpore's Svd refuses empty input)
        return ops.zeros(tuple(A.shape[:-2]), mindspore.int64)
    if hermitian:
        values = ops.abs(linalg_eigvalsh(A))
    else:
        values = linalg_svdvals(A)
    real = mindspore.float32 if A.dtype in (mindspore.float32, mindspore.complex64) else mindspore.float64
    if rtol is None:
        rtol = 0.0 if atol is not None and (not isinstance(atol, (int, float)) or atol > 0) else \
            float(np.finfo(mindspore.dtype_to_nptype(real)).eps) * max(A.shape[-2], A.shape[-1])
    if atol is None:
        atol = 0.0
    largest = values.max(-1, keepdims=True) if values.shape[-1] else ops.zeros(tuple(values.shape[:-1]) + (1,), values.dtype)
    floor = (atol if isinstance(atol, mindspore.Tensor) else mindspore.Tensor(atol)).astype(values.dtype)
    bound = ops.maximum(floor.expand_dims(-1) if floor.ndim else floor, rtol * largest)
    return (values > bound).astype(mindspore.int64).sum(-1)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """F.poisson_nll_loss: exp(input) - target * input (log_input) or input - target * log(input + eps),
    with full the Stirling term target log target - target + log(2 pi target) / 2 where target > 1."""
    import math
    if size_average is not None or reduce is not None:  # PyTorch's deprecated spelling of reduction
        reduction = "none" if reduce is False else ("sum" if size_average is False else "mean")
    for_float = input.dtype if ops.is_floating_point(input) else \
        (target.dtype if ops.is_floating_point(target) else mindspore.float32)
    if not ops.is_floating_point(input):  # PyTorch's exp and log of integers are float32
        input = input.astype(for_float)
    if not ops.is_floating_point(target):
        target = target.astype(for_float)
    loss = ops.exp(input) - target * input if log_input else input - target * ops.log(input + eps)
    if full:
        stirling = target * ops.log(target) - target + 0.5 * ops.log(2 * math.pi * target)
        loss = loss + ops.where(target > 1, stirling, ops.zeros_like(stirling))
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


class PoissonNLLLoss(nn.Cell):
    """nn.PoissonNLLLoss: the layer form of poisson_nll_loss()."""

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"):
        super().__init__()
        self.log_input, self.full, self.eps = log_input, full, eps
        self.size_average, self.reduce, self.reduction = size_average, reduce, reduction

    def construct(self, log_input, target):
        return poisson_nll_loss(log_input, target, self.log_input, self.full, self.size_average, self.eps,
                                self.reduce, self.reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    """F.triplet_margin_with_distance_loss: max(d(a, p) - d(a, n) + margin, 0), d pairwise_distance unless
    given (swap: the smaller of d(a, n) and d(p, n))."""
    distance = distance_function if distance_function is not None else pairwise_distance
    near = distance(anchor, positive)
    far = distance(anchor, negative)
    if swap:
        far = ops.minimum(far, distance(positive, negative))
    loss = ops.relu(near - far + margin)
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


class TripletMarginWithDistanceLoss(nn.Cell):
    """nn.TripletMarginWithDistanceLoss: the layer form of triplet_margin_with_distance_loss()."""

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__()
        self.distance_function, self.margin, self.swap, self.reduction = distance_function, margin, swap, reduction

    def construct(self, anchor, positive, negative):
        return triplet_margin_with_distance_loss(anchor, positive, negative, distance_function=self.distance_function,
                                                 margin=self.margin, swap=self.swap, reduction=self.reduction)


def lp_pool_infinite(input, spatial, norm_type, kernel_size, stride, ceil_mode):
    """PyTorch's lp_pool with norm_type +inf or -inf: the largest (smallest) |x| in each window; None for
    a finite norm_type (MindSpore's lp_pool computes those as PyTorch does)."""
    if norm_type == float("inf"):
        return max_pool_nd(input.abs(), spatial, kernel_size, stride, 0, 1, ceil_mode, False)
    if norm_type == -float("inf"):
        return -max_pool_nd(-input.abs(), spatial, kernel_size, stride, 0, 1, ceil_mode, False)
    return None


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """F.lp_pool1d: MindSpore's lp_pool1d, except for an infinite norm_type (lp_pool_infinite), which it
    turns into 1s or NaN."""
    infinite = lp_pool_infinite(input, 1, norm_type, kernel_size, stride, ceil_mode)
    if infinite is not None:
        return infinite
    return ops.lp_pool1d(input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """F.lp_pool2d: MindSpore's lp_pool2d, except for an infinite norm_type (lp_pool_infinite)."""
    infinite = lp_pool_infinite(input, 2, norm_type, kernel_size, stride, ceil_mode)
    if infinite is not None:
        return infinite
    return ops.lp_pool2d(input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """F.lp_pool3d as PyTorch computes it: the window sums of x^p (avg_pool3d times the window's volume) to
    the power 1/p (an infinite p: lp_pool_infinite). PyTorch's sign(s) * relu(|s|) is s itself, NaN
    included (MindSpore's relu and sign turn NaN into 0), so it is left out."""
    infinite = lp_pool_infinite(input, 3, norm_type, kernel_size, stride, ceil_mode)
    if infinite is not None:
        return infinite
    kernel = spatial_tuple(kernel_size, 3)
    pooled = avg_pool3d(input ** norm_type, kernel, stride, 0, ceil_mode)
    return (pooled * (kernel[0] * kernel[1] * kernel[2])) ** (1.0 / norm_type)


class LPPool3d(nn.Cell):
    """nn.LPPool3d: lp_pool3d()."""

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def construct(self, x):
        return lp_pool3d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class ConvTransposeNd(nn.Cell):
    """nn.ConvTranspose1d/2d/3d built with output_padding (MindSpore's transposed convolutions give that
    output's shape but other values on CPU): weight (in_channels, out_channels / groups, *kernel) and bias
    under PyTorch's names, drawn from PyTorch's initial distributions (uniform within 1 / sqrt(fan_in)),
    the convolution computed by conv_transpose_nd. Called with output_size=, the extra rows it asks for
    replace output_padding, as in PyTorch."""
    dims = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        if padding_mode != "zeros":
            raise ValueError(f"ConvTranspose{self.dims}d supports padding_mode='zeros' only, as in PyTorch")
        init = mindspore.common.initializer
        kernel = spatial_tuple(kernel_size, self.dims)
        self.stride, self.padding = spatial_tuple(stride, self.dims), spatial_tuple(padding, self.dims)
        self.output_padding = spatial_tuple(output_padding, self.dims)
        self.dilation, self.groups = spatial_tuple(dilation, self.dims), groups
        fan_in = out_channels // groups
        for size in kernel:
            fan_in *= size
        bound = 1.0 / fan_in ** 0.5 if fan_in else 0.0
        kind = dtype or mindspore.float32
        self.weight = mindspore.Parameter(init.initializer(init.Uniform(bound), (in_channels, out_channels // groups)
                                                           + kernel, kind), name="weight")
        self.bias = mindspore.Parameter(init.initializer(init.Uniform(bound), (out_channels,), kind), name="bias") \
            if bias else None

    def construct(self, x, output_size=None):
        extra = self.output_padding
        if output_size is not None:
            sizes = tuple(int(s) for s in tuple(output_size)[-self.dims:])
            kernel = self.weight.shape[2:]
            extra = tuple(sizes[i] - ((x.shape[x.ndim - self.dims + i] - 1) * self.stride[i] - 2 * self.padding[i]
                                      + self.dilation[i] * (kernel[i] - 1) + 1) for i in range(self.dims))
        return conv_transpose_nd(x, self.weight, self.bias, self.stride, self.padding, extra, self.groups,
                                 self.dilation)


class ConvTranspose1d(ConvTransposeNd):
    """nn.ConvTranspose1d with output_padding: see ConvTransposeNd."""
    dims = 1


class ConvTranspose2d(ConvTransposeNd):
    """nn.ConvTranspose2d with output_padding: see ConvTransposeNd."""
    dims = 2


class ConvTranspose3d(ConvTransposeNd):
    """nn.ConvTranspose3d with output_padding: see ConvTransposeNd."""
    dims = 3


class ParameterList(nn.Cell):
    """nn.ParameterList: parameters held under the names "0", "1", ... (as PyTorch's state_dict keys), indexed,
    iterated, appended and extended."""

    def __init__(self, values=None):
        super().__init__()
        self.count = 0
        for value in values or ():
            self.append(value)

    def append(self, value):
        if not isinstance(value, mindspore.Parameter):
            value = mindspore.Parameter(value, name=str(self.count))
        setattr(self, str(self.count), value)
        self.count += 1
        return self

    def extend(self, values):
        for value in values:
            self.append(value)
        return self

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [getattr(self, str(i)) for i in range(self.count)[index]]
        return getattr(self, str(index % self.count if index < 0 else index))

    def __setitem__(self, index, value):
        setattr(self, str(index % self.count if index < 0 else index),
                value if isinstance(value, mindspore.Parameter) else mindspore.Parameter(value, name=str(index)))

    def __len__(self):
        return self.count

    def __iter__(self):
        return iter([getattr(self, str(i)) for i in range(self.count)])


class ParameterDict(nn.Cell):
    """nn.ParameterDict: parameters held under their keys (PyTorch's state_dict keys), in insertion order,
    read and written as a dict."""

    def __init__(self, parameters=None):
        super().__init__()
        self.names = []
        if parameters is not None:
            self.update(parameters)

    def __setitem__(self, key, value):
        if not isinstance(value, mindspore.Parameter):
            value = mindspore.Parameter(value, name=key)
        if key not in self.names:
            self.names.append(key)
        setattr(self, key, value)

    def __getitem__(self, key):
        return getattr(self, key)

    def __delitem__(self, key):
        self.names.remove(key)
        delattr(self, key)

    def __contains__(self, key):
        return key in self.names

    def __len__(self):
        return len(self.names)

    def __iter__(self):
        return iter(list(self.names))

    def keys(self):
        return list(self.names)

    def values(self):
        return [getattr(self, k) for k in self.names]

    def items(self):
        return [(k, getattr(self, k)) for k in self.names]

    def get(self, key, default=None):
        return getattr(self, key) if key in self.names else default

    def update(self, parameters):
        for key, value in (parameters.items() if hasattr(parameters, "items") else parameters):
            self[key] = value


class LazyCell(nn.Cell):
    """A layer whose parameters take their shape from its first input (PyTorch's Lazy* modules): `build`
    creates them under PyTorch's names, initialised as PyTorch does (weights and biases uniform within
    1 / sqrt(fan_in)). As in PyTorch, an optimizer sees them only once a first call has run."""

    def __init__(self):
        super().__init__()
        self.built = False

    def uniform_parameter(self, name, shape, bound, dtype):
        draw = mindspore.common.initializer.initializer(mindspore.common.initializer.Uniform(bound), shape,
                                                        dtype or mindspore.float32)
        setattr(self, name, mindspore.Parameter(draw.init_data(), name=name))

    def construct(self, x):
        if not self.built:
            self.build(x)
            self.built = True
        return self.forward(x)


class LazyLinear(LazyCell):
    """nn.LazyLinear: in_features read from the first input's last axis."""

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.out_features, self.has_bias, self.param_dtype = out_features, bias, dtype

    def build(self, x):
        self.in_features = x.shape[-1]
        bound = 1.0 / self.in_features ** 0.5 if self.in_features else 0.0
        self.uniform_parameter("weight", (self.out_features, self.in_features), bound, self.param_dtype)
        if self.has_bias:
            self.uniform_parameter("bias", (self.out_features,), bound, self.param_dtype)

    def forward(self, x):
        out = ops.matmul(x, self.weight.swapaxes(0, 1))
        return out + self.bias if self.has_bias else out


class LazyConvNd(LazyCell):
    """nn.LazyConv1d/2d/3d and nn.LazyConvTranspose1d/2d/3d: in_channels read from the first input (axis 0
    unbatched, 1 batched), then PyTorch's convolution (conv1d/2d/3d, conv_transpose_nd), padding_mode's
    reflect, replicate or circular applied first."""
    dims, transposed = 2, False

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", output_padding=0, dtype=None):
        super().__init__()
        self.out_channels, self.kernel_size = out_channels, spatial_tuple(kernel_size, self.dims)
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups
        self.has_bias, self.padding_mode, self.output_padding, self.param_dtype = bias, padding_mode, output_padding, dtype

    def build(self, x):
        self.in_channels = x.shape[1 if x.ndim == self.dims + 2 else 0]
        area = 1
        for k in self.kernel_size:
            area *= k
        if self.transposed:
            shape = (self.in_channels, self.out_channels // self.groups) + self.kernel_size
        else:
            shape = (self.out_channels, self.in_channels // self.groups) + self.kernel_size
        fan_in = shape[1] * area
        bound = 1.0 / fan_in ** 0.5 if fan_in else 0.0
        self.uniform_parameter("weight", shape, bound, self.param_dtype)
        if self.has_bias:
            self.uniform_parameter("bias", (self.out_channels,), bound, self.param_dtype)

    def forward(self, x):
        bias = self.bias if self.has_bias else None
        if self.transposed:
            return conv_transpose_nd(x, self.weight, bias, self.stride, self.padding, self.output_padding,
                                     self.groups, self.dilation)
        padding = self.padding
        if self.padding_mode != "zeros" and not isinstance(padding, str):
            pads = []
            for p in reversed(spatial_tuple(padding, self.dims)):
                pads += [p, p]
            x = circular_pad(x, tuple(pads), self.padding_mode)
            padding = 0
        conv = (conv1d, conv2d, conv3d)[self.dims - 1]
        return conv(x, self.weight, bias, self.stride, padding, self.dilation, self.groups)


class LazyConv1d(LazyConvNd):
    """nn.LazyConv1d: see LazyConvNd."""
    dims = 1

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode, 0, dtype)


class LazyConv2d(LazyConvNd):
    """nn.LazyConv2d: see LazyConvNd."""
    dims = 2

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode, 0, dtype)


class LazyConv3d(LazyConvNd):
    """nn.LazyConv3d: see LazyConvNd."""
    dims = 3

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode, 0, dtype)


class LazyConvTranspose1d(LazyConvNd):
    """nn.LazyConvTranspose1d: see LazyConvNd."""
    dims, transposed = 1, True

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         output_padding, dtype)


class LazyConvTranspose2d(LazyConvNd):
    """nn.LazyConvTranspose2d: see LazyConvNd."""
    dims, transposed = 2, True

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         output_padding, dtype)


class LazyConvTranspose3d(LazyConvNd):
    """nn.LazyConvTranspose3d: see LazyConvNd."""
    dims, transposed = 3, True

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         output_padding, dtype)


class LazyNormNd(LazyCell):
    """nn.LazyBatchNorm1d/2d/3d and nn.LazyInstanceNorm1d/2d/3d: num_features read from the first input
    (axis 1; an unbatched instance-norm input, axis 0); weight ones, bias zeros, the running statistics
    under MindSpore's names (moving_mean zeros, moving_variance ones: the converter renames running_mean and
    running_var on every layer) and num_batches_tracked. Batch norm: batch statistics while training (the
    running ones move by momentum, or by a cumulative average for momentum=None, with the unbiased
    variance), running ones otherwise; instance norm: instance_norm()."""
    instance, dims = False, 1

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None,
                 bias=True):
        super().__init__()
        self.eps, self.momentum, self.affine, self.track_running_stats = eps, momentum, affine, track_running_stats
        self.has_bias, self.param_dtype = bias, dtype

    def build(self, x):
        unbatched = self.instance and x.ndim == self.dims + 1
        self.make_parameters(x.shape[0 if unbatched else 1])

    def make_parameters(self, features):
        kind = self.param_dtype or mindspore.float32
        if self.affine:
            self.weight = mindspore.Parameter(ops.ones(features, kind), name="weight")
            if self.has_bias:
                self.bias = mindspore.Parameter(ops.zeros(features, kind), name="bias")
        if self.track_running_stats:
            self.moving_mean = mindspore.Parameter(ops.zeros(features, kind), name="moving_mean",
                                                    requires_grad=False)
            self.moving_variance = mindspore.Parameter(ops.ones(features, kind), name="moving_variance",
                                                       requires_grad=False)
            self.num_batches_tracked = mindspore.Parameter(mindspore.Tensor(0, mindspore.int64),
                                                           name="num_batches_tracked", requires_grad=False)

    def forward(self, x):
        weight = self.weight if self.affine else None
        bias = self.bias if self.affine and self.has_bias else None
        tracked = self.track_running_stats
        if self.instance:
            unbatched = x.ndim == self.dims + 1
            image = x.expand_dims(0) if unbatched else x
            out = instance_norm(image, self.moving_mean if tracked else None,
                                self.moving_variance if tracked else None, weight, bias, self.training or not tracked,
                                self.momentum or 0.0, self.eps)
            return out.squeeze(0) if unbatched else out
        axes = (0,) + tuple(range(2, x.ndim))
        shape = (1, -1) + (1,) * (x.ndim - 2)
        if self.training or not tracked:
            mean = x.mean(axes, keep_dims=True)
            var = ((x - mean) ** 2).mean(axes, keep_dims=True)
            if self.training and tracked:
                self.num_batches_tracked.assign_value(self.num_batches_tracked + 1)
                factor = self.momentum if self.momentum is not None else \
                    1.0 / float(self.num_batches_tracked.asnumpy())
                count = x.size // x.shape[1]
                unbiased = var.reshape(-1) * count / max(count - 1, 1)
                self.moving_mean.assign_value((1 - factor) * self.moving_mean + factor * mean.reshape(-1))
                self.moving_variance.assign_value((1 - factor) * self.moving_variance + factor * unbiased)
        else:
            mean, var = self.moving_mean.reshape(shape), self.moving_variance.reshape(shape)
        out = (x - mean) / ops.sqrt(var + self.eps)
        if weight is not None:
            out = out * weight.reshape(shape)
        if bias is not None:
            out = out + bias.reshape(shape)
        return out


class LazyBatchNorm1d(LazyNormNd):
    """nn.LazyBatchNorm1d: see LazyNormNd."""
    dims = 1

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        super().__init__(eps, momentum, affine, track_running_stats, device, dtype, bias)


class LazyBatchNorm2d(LazyNormNd):
    """nn.LazyBatchNorm2d: see LazyNormNd."""
    dims = 2

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        super().__init__(eps, momentum, affine, track_running_stats, device, dtype, bias)


class LazyBatchNorm3d(LazyNormNd):
    """nn.LazyBatchNorm3d: see LazyNormNd."""
    dims = 3

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        super().__init__(eps, momentum, affine, track_running_stats, device, dtype, bias)


class InstanceNormNd(LazyNormNd):
    """nn.InstanceNorm1d/2d/3d (MindSpore's InstanceNorm has no CPU kernel): LazyNormNd's instance norm, its
    parameters made at once from num_features, with PyTorch's defaults (no weight or bias, no running
    statistics)."""
    instance = True

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None, *, bias=True):
        super().__init__(eps, momentum, affine, track_running_stats, device, dtype, bias)
        self.num_features = num_features
        self.make_parameters(num_features)
        self.built = True


class InstanceNorm1d(InstanceNormNd):
    """nn.InstanceNorm1d: see InstanceNormNd."""
    dims = 1

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)


class InstanceNorm2d(InstanceNormNd):
    """nn.InstanceNorm2d: see InstanceNormNd."""
    dims = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)


class InstanceNorm3d(InstanceNormNd):
    """nn.InstanceNorm3d: see InstanceNormNd."""
    dims = 3

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)


class LazyInstanceNorm1d(LazyNormNd):
    """nn.LazyInstanceNorm1d: see LazyNormNd."""
    instance, dims = True, 1

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        super().__init__(eps, momentum, affine, track_running_stats, device, dtype, bias)


class LazyInstanceNorm2d(LazyNormNd):
    """nn.LazyInstanceNorm2d: see LazyNormNd."""
    instance, dims = True, 2

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        super().__init__(eps, momentum, affine, track_running_stats, device, dtype, bias)


class LazyInstanceNorm3d(LazyNormNd):
    """nn.LazyInstanceNorm3d: see LazyNormNd."""
    instance, dims = True, 3

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        super().__init__(eps, momentum, affine, track_running_stats, device, dtype, bias)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    """F.adaptive_max_pool1d_with_indices: (values, indices) of adaptive_max_pool1d()."""
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    """F.adaptive_max_pool2d_with_indices: (values, int64 indices) of ops.adaptive_max_pool2d."""
    values, indices = ops.adaptive_max_pool2d(input, output_size, True)
    return values, indices.astype(mindspore.int64)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=True):
    """F.adaptive_max_pool3d_with_indices: (values, indices) of adaptive_max_pool3d()."""
    return adaptive_max_pool3d(input, output_size, True)


def channel_shuffle(input, groups):
    """F.channel_shuffle: the channels (axis 1) read as groups x (C / groups) and transposed, by reshapes
    (any dtype; ops.channel_shuffle refuses bool and complex inputs)."""
    shape = tuple(input.shape)
    split = shape[:1] + (groups, shape[1] // groups) + shape[2:]
    return input.reshape(split).swapaxes(1, 2).reshape(shape)


def linalg_lstsq(A, B, rcond=None, driver=None):
    """torch.linalg.lstsq as PyTorch's CPU drivers report it: the minimum-norm least-squares solution (from
    the SVD, singular values up to rcond times the largest, rcond eps * max(m, n) by default); rank for
    gelsy (the default), gelsd and gelss; singular values for gelsd and gelss; residuals (squared norms
    of B - A X per column) for gelsd, gelss and gels when m > n and every matrix has full rank; what a
    driver does not report is an empty tensor, as in PyTorch. A B of one axis fewer than A is one column."""
    import collections
    import numpy as np
    result = collections.namedtuple("lstsq", ("solution", "residuals", "rank", "singular_values"))
    driver = driver or "gelsy"
    column = B.ndim == A.ndim - 1
    rhs = B.expand_dims(-1) if column else B
    m, n = A.shape[-2], A.shape[-1]
    real = {mindspore.complex64: mindspore.float32, mindspore.complex128: mindspore.float64}.get(A.dtype, A.dtype)
    if rcond is None:
        rcond = float(np.finfo(mindspore.dtype_to_nptype(real)).eps) * max(m, n)
    U, S, Vh = linalg_svd(A, full_matrices=False)
    keep = S > rcond * S[..., :1]
    inverse = ops.where(keep, 1.0 / ops.where(keep, S, ops.ones_like(S)), ops.zeros_like(S))
    projected = ops.matmul(conj_transpose(U), rhs) * inverse.expand_dims(-1).astype(A.dtype)
    solution = ops.matmul(conj_transpose(Vh), projected)
    rank = keep.astype(mindspore.int64).sum(-1)
    empty = ops.zeros(0, real)
    residuals = empty
    if driver != "gelsy" and m > n and bool((rank == n).all()):
        miss = ops.matmul(A, solution) - rhs
        if miss.dtype in (mindspore.complex64, mindspore.complex128):
            size = ops.real(miss) * ops.real(miss) + ops.imag(miss) * ops.imag(miss)
        else:
            size = miss * miss
        residuals = size.sum(-2)
        residuals = residuals.squeeze(-1) if column else residuals
    return result(solution.squeeze(-1) if column else solution, residuals,
                  rank if driver != "gels" else ops.zeros(0, mindspore.int64),
                  S if driver in ("gelsd", "gelss") else empty)


def householder_product(A, tau):
    """torch.linalg.householder_product: the first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H with
    v_i the i-th column of A below the diagonal and 1 on it (MindSpore 2.10 has no CPU kernel for it)."""
    m, n, k = A.shape[-2], A.shape[-1], tau.shape[-1]
    batch = tuple(A.shape[:-2])
    product = ops.broadcast_to(ops.eye(m, m, A.dtype), batch + (m, m))
    if A.size == 0 or m == 0:
        return product[..., :n]
    rows = mindspore.Tensor(list(range(m)), mindspore.int64)
    complex_input = A.dtype in (mindspore.complex64, mindspore.complex128)
    for i in range(k):
        v = A[..., :, i]
        v = ops.where(rows < i, ops.zeros_like(v), ops.where(rows == i, ops.ones_like(v), v))
        w = ops.conj(v) if complex_input else v
        reflector = ops.matmul(v.expand_dims(-1), w.expand_dims(-2)) * tau[..., i].reshape(batch + (1, 1))
        product = product - ops.matmul(product, reflector)
    return product[..., :n]


def ormqr(input, input2, input3, left=True, transpose=False):
    """torch.ormqr (its keywords are input2= for tau and input3= for other): other multiplied by Q = H_1 ... H_k,
    the reflectors of a QR factorisation (input, tau), from the left or the right, Q or its conjugate
    transpose. Q is householder_product() of the reflectors padded to a square (a zero tau is the identity);
    MindSpore's ops.ormqr has no CPU kernel."""
    tau, other = input2, input3
    size, columns = input.shape[-2], input.shape[-1]
    if columns < size:
        input = ops.cat((input, ops.zeros(tuple(input.shape[:-1]) + (size - columns,), input.dtype)), -1)
    input = input[..., :size]
    if tau.shape[-1] < size:
        tau = ops.cat((tau, ops.zeros(tuple(tau.shape[:-1]) + (size - tau.shape[-1],), tau.dtype)), -1)
    q = householder_product(input, tau)
    if transpose:
        q = (ops.conj(q) if q.dtype in (mindspore.complex64, mindspore.complex128) else q).swapaxes(-1, -2)
    return ops.matmul(q, other) if left else ops.matmul(other, q)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """F.embedding_bag: the rows input names (rows of a 2-D input, or runs of a 1-D one starting at offsets)
    reduced per bag by sum (times per_sample_weights), mean or max; padding_idx entries left out (a mean
    counts the others), an empty bag gives zeros; max_norm renorms the named rows of weight first, as
    embedding() does. A float input with an integer weight is PyTorch's old argument order: swapped."""
    if ops.is_floating_point(input) and not ops.is_floating_point(weight):  # PyTorch's old order, swapped as it does
        input, weight = weight, input
    if max_norm is not None:
        embedding(input, weight, None, max_norm, norm_type)
    if padding_idx is not None and padding_idx < 0:  # counted from the end, as PyTorch
        padding_idx += weight.shape[0]
    if input.ndim == 2:
        bags, length = input.shape[0], input.shape[1]
        flat = input.reshape(-1)
        bag_of = ops.repeat_interleave(mindspore.Tensor(list(range(bags)), mindspore.int64), length) \
            if input.size else ops.zeros(0, mindspore.int64)
        weights = per_sample_weights.reshape(-1) if per_sample_weights is not None else None
    else:
        starts = offsets[:-1] if include_last_offset else offsets
        bags = starts.shape[0]
        flat = input
        positions = ops.arange(input.shape[0]).astype(mindspore.int64)
        bag_of = (positions.expand_dims(1) >= starts.astype(mindspore.int64).expand_dims(0)).astype(mindspore.int64).sum(1) - 1
        weights = per_sample_weights
    rows = ops.gather(weight, flat, 0) if flat.size else ops.zeros((0, weight.shape[1]), weight.dtype)
    kept = ops.ones(flat.shape, mindspore.bool_) if padding_idx is None else flat != padding_idx
    if weights is not None:
        rows = rows * weights.expand_dims(-1).astype(rows.dtype)
    member = (bag_of.expand_dims(0) == ops.arange(bags).astype(mindspore.int64).expand_dims(1)) & kept.expand_dims(0)
    if mode == "max":
        low = mindspore.Tensor(float("-inf"), rows.dtype)
        spread = ops.where(member.expand_dims(-1), rows.expand_dims(0), low)
        largest = ops.amax(spread, 1) if flat.size else ops.zeros((bags, weight.shape[1]), weight.dtype)
        return ops.where(member.any(1).expand_dims(-1), largest, ops.zeros_like(largest))
    total = ops.matmul(member.astype(rows.dtype), rows)
    if mode == "sum":
        return total
    count = member.astype(rows.dtype).sum(1, keepdims=True)
    return total / ops.where(count > 0, count, ops.ones_like(count))


class EmbeddingBag(nn.Cell):
    """nn.EmbeddingBag: a weight drawn from the standard normal (PyTorch's init; _weight given: that one)
    and embedding_bag() over it."""

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None, device=None,
                 dtype=None):
        super().__init__()
        if _weight is None:
            _weight = ops.randn((num_embeddings, embedding_dim), dtype=dtype or mindspore.float32)
            if padding_idx is not None:
                _weight[padding_idx] = 0
        self.weight = mindspore.Parameter(_weight, name="weight")
        self.max_norm, self.norm_type, self.mode = max_norm, norm_type, mode
        self.include_last_offset, self.padding_idx = include_last_offset, padding_idx

    def construct(self, input, offsets=None, per_sample_weights=None):
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, False, self.mode, False,
                             per_sample_weights, self.include_last_offset, self.padding_idx)
