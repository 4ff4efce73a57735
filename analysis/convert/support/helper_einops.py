"""einops on MindSpore tensors, copied into a converted file like the definitions of
helper_source.py (same rules: read as text by helpers.py, never imported by the converter; tests
import it, with einops installed, to check each one against einops on torch).

einops picks a backend per tensor type among the subclasses of einops._backends.AbstractBackend
whose framework_name is an imported module. einops 0.8 ships none for MindSpore, so a converted
file that uses einops defines one (MindSporeEinopsBackend): once the class statement has run,
einops.rearrange/repeat/reduce/einsum/pack/unpack/parse_shape accept MindSpore tensors and the
file's own einops imports stay as they are. The layers of einops.layers.torch become the cells
Rearrange, Reduce and EinMix below, built on einops's own layer mixins (the same pattern parsing
and checks, the same parameter names weight/bias for EinMix).

The definitions import einops inside functions (the module needs it only where einops is used).
einops calls run as Python: they work in PyNative mode; a graph-compiled (jit) construct cannot
trace them.
"""
import mindspore
from mindspore import nn, ops

from analysis.convert.support.helper_source import einsum  # noqa: F401  (the converted file gets its own copy)


def einops_backend_base():
    """einops's base class of backends (einops is imported only where a file uses it)."""
    from einops._backends import AbstractBackend
    return AbstractBackend


class MindSporeEinopsBackend(einops_backend_base()):
    """The einops backend for MindSpore tensors: defining the class registers it."""

    framework_name = "mindspore"

    def is_appropriate_type(self, tensor):
        return isinstance(tensor, mindspore.Tensor)

    def from_numpy(self, x):
        return mindspore.Tensor(x)

    def to_numpy(self, x):
        return x.asnumpy()

    def arange(self, start, stop):
        return ops.arange(start, stop, dtype=mindspore.int64)

    def shape(self, x):
        return tuple(x.shape)

    def reshape(self, x, shape):
        return ops.reshape(x, tuple(shape))

    def transpose(self, x, axes):
        return ops.transpose(x, tuple(axes))

    def reduce(self, x, operation, axes):
        axes = tuple(axes)
        if operation == "min":
            return ops.amin(x, axes)
        if operation == "max":
            return ops.amax(x, axes)
        if operation == "sum":
            return ops.sum(x, axes)
        if operation == "mean":
            return ops.mean(x, axes)
        if operation == "prod":
            return ops.prod(x, axes)
        if operation == "any":
            return ops.any(x, axes)
        if operation == "all":
            return ops.all(x, axes)
        raise NotImplementedError(f"einops reduction {operation!r} on MindSpore tensors")

    def stack_on_zeroth_dimension(self, tensors):
        return ops.stack(list(tensors))

    def add_axis(self, x, new_position):
        return ops.expand_dims(x, new_position)

    def add_axes(self, x, n_axes, pos2len):
        shape = [-1] * n_axes
        for position, length in pos2len.items():
            x = ops.expand_dims(x, position)
            shape[position] = length
        # broadcast_to reads -1 as "keep": the new axes are views of the same values, as in torch
        return ops.broadcast_to(x, tuple(shape))

    def tile(self, x, repeats):
        return ops.tile(x, tuple(repeats))

    def concat(self, tensors, axis):
        return ops.cat(list(tensors), axis)

    def is_float_type(self, x):
        return x.dtype in (mindspore.float16, mindspore.float32, mindspore.float64, mindspore.bfloat16)

    def einsum(self, pattern, *x):
        return einsum(pattern, *x)  # MindSpore's Einsum has no CPU kernel: the local einsum helper


def einops_layer_bases():
    """einops's mixins for Rearrange, Reduce and EinMix (pattern parsing and checks)."""
    from einops.layers import RearrangeMixin, ReduceMixin
    from einops.layers._einmix import _EinmixMixin
    return RearrangeMixin, ReduceMixin, _EinmixMixin


class Rearrange(einops_layer_bases()[0], nn.Cell):
    """einops.layers.torch.Rearrange as a MindSpore cell: einops.rearrange with a fixed pattern."""

    def construct(self, x):
        MindSporeEinopsBackend.framework_name  # the backend this cell needs is defined in the file
        return self._apply_recipe(x)


class Reduce(einops_layer_bases()[1], nn.Cell):
    """einops.layers.torch.Reduce as a MindSpore cell: einops.reduce with a fixed pattern and reduction."""

    def construct(self, x):
        MindSporeEinopsBackend.framework_name  # the backend this cell needs is defined in the file
        return self._apply_recipe(x)


class EinMix(einops_layer_bases()[2], nn.Cell):
    """einops.layers.torch.EinMix as a MindSpore cell: an einsum of the input with a weight (and a
    bias) whose shapes come from the pattern; parameters named weight and bias as in torch, drawn
    from the same uniform(-bound, bound) ranges."""

    def _create_parameters(self, weight_shape, weight_bound, bias_shape, bias_bound):
        uniform = mindspore.common.initializer.Uniform
        self.weight = mindspore.Parameter(
            mindspore.common.initializer.initializer(uniform(weight_bound), tuple(weight_shape), mindspore.float32),
            name="weight")
        if bias_shape is not None:
            self.bias = mindspore.Parameter(
                mindspore.common.initializer.initializer(uniform(bias_bound), tuple(bias_shape), mindspore.float32),
                name="bias")
        else:
            self.bias = None

    def _create_rearrange_layers(self, pre_reshape_pattern, pre_reshape_lengths, post_reshape_pattern,
                                 post_reshape_lengths):
        self.pre_rearrange = None
        if pre_reshape_pattern is not None:
            self.pre_rearrange = Rearrange(pre_reshape_pattern, **pre_reshape_lengths)
        self.post_rearrange = None
        if post_reshape_pattern is not None:
            self.post_rearrange = Rearrange(post_reshape_pattern, **post_reshape_lengths)

    def construct(self, x):
        if self.pre_rearrange is not None:
            x = self.pre_rearrange(x)
        result = einsum(self.einsum_pattern, x, self.weight)
        if self.bias is not None:
            result = result + self.bias
        if self.post_rearrange is not None:
            result = self.post_rearrange(result)
        return result
