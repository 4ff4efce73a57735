"""Tensor methods in the forms real code writes them, where MindSpore's namesake takes another form or
has no CPU kernel: x.new_full(...) (Ascend only), x.new_empty(2, 3) (several sizes), x.type() (PyTorch's
type string), x.type('torch.DoubleTensor'), x.bernoulli(p) (no BernoulliExt kernel on CPU).
The same rules as helper_source.py: copied as text, never imported by the converter.
"""
import mindspore
from mindspore import ops


def new_filled(input, size, fill_value, dtype=None):
    """x.new_ones / new_zeros / new_empty / new_full(size, fill_value, dtype=None): a tensor of that size
    filled with fill_value, in x's dtype unless dtype says another. size is an int or a sequence of ints
    (the converter gathers x.new_ones(2, 3)'s sizes into one tuple). new_empty's values are unspecified
    in PyTorch: zeros here."""
    dtype = input.dtype if dtype is None else dtype
    shape = (int(size),) if isinstance(size, int) else tuple(int(s) for s in size)
    if isinstance(fill_value, mindspore.Tensor):
        fill_value = fill_value.item()
    return ops.full(shape, fill_value, dtype=dtype)


def tensor_type(input, dtype=None, non_blocking=False):
    """x.type(): PyTorch's type string ('torch.FloatTensor'); x.type(dtype) / x.type('torch.DoubleTensor'):
    x cast to it (x itself when it already has it, as PyTorch returns). non_blocking is a device copy's
    detail: there is none here."""
    names = {"FloatTensor": mindspore.float32, "DoubleTensor": mindspore.float64, "HalfTensor": mindspore.float16,
             "BFloat16Tensor": mindspore.bfloat16, "ByteTensor": mindspore.uint8, "CharTensor": mindspore.int8,
             "ShortTensor": mindspore.int16, "IntTensor": mindspore.int32, "LongTensor": mindspore.int64,
             "BoolTensor": mindspore.bool_, "ComplexFloatTensor": mindspore.complex64,
             "ComplexDoubleTensor": mindspore.complex128}  # PyTorch's legacy tensor type names
    if dtype is None:
        name = next((k for k, v in names.items() if v == input.dtype), None)
        if name is None:
            raise TypeError(f"x.type(): PyTorch has no legacy type name for {input.dtype}")
        return f"torch.{name}"
    if isinstance(dtype, str):
        name = dtype.rsplit(".", 1)[-1]
        if name not in names:
            raise TypeError(f"x.type({dtype!r}): not a tensor type name PyTorch knows")
        dtype = names[name]
    return input if input.dtype == dtype else input.astype(dtype)


def bernoulli_draw(input, p=None):
    """torch.bernoulli(input) / x.bernoulli(): 1 with the probability each element of input gives, else 0;
    torch.bernoulli(input, p) / x.bernoulli(p): 1 with probability p (a number, or a tensor broadcast to
    input). The result has input's shape and dtype. Drawn as uniform u < p (MindSpore 2.10 has no
    BernoulliExt kernel on CPU): P(u < p) = p for u uniform in [0, 1); float64 draws for a float64 input."""
    u = ops.rand(tuple(input.shape), dtype=mindspore.float64 if input.dtype == mindspore.float64 else mindspore.float32)
    if p is None:
        p = input
    if isinstance(p, mindspore.Tensor):
        p = p.astype(u.dtype)
    return (u < p).astype(input.dtype)


def whole_reduction(input, name, keepdim=False):
    """x.argmax(keepdim=True) / x.argmin(dim=None, keepdim=k) / x.any(keepdim=True): the reduction over every
    element, shaped (1,) * x.ndim when keepdim is true, as PyTorch gives it (MindSpore answers a 0-d tensor
    for argmax/argmin and refuses any(keepdim=) without an axis). argmax/argmin index the flattened tensor,
    as int64."""
    flat = input.reshape(-1)
    out = {"argmax": lambda: flat.argmax().astype(mindspore.int64),
           "argmin": lambda: flat.argmin().astype(mindspore.int64),
           "any": lambda: flat.astype(mindspore.bool_).any().astype(
               mindspore.uint8 if input.dtype == mindspore.uint8 else mindspore.bool_)}[name]()  # PyTorch keeps uint8
    return out.reshape((1,) * input.ndim) if keepdim else out


def any_along(input, dim, keepdim=False):
    """x.any(dim) / torch.any(x, dim): MindSpore 2.10's any along an axis answers wrongly for a float or
    integer tensor (float32 [[0, .3, 0], [0, 0, 0], [-.2, 0, 0]].any(1) gave [False, True, True], int32
    all False); on a bool tensor it is right, so the input is cast to bool first (NaN counts as true, as
    in PyTorch; a uint8 tensor's answer is uint8, as PyTorch's). A tuple of axes goes as axis=, which only that overload takes. A numpy array's any
    (a receiver the converter could not type) is called as numpy's."""
    if not isinstance(input, mindspore.Tensor):
        return input.any(dim, keepdims=keepdim)
    out = input.astype(mindspore.bool_).any(axis=dim if isinstance(dim, int) else tuple(dim), keep_dims=keepdim)
    return out.astype(mindspore.uint8) if input.dtype == mindspore.uint8 else out  # PyTorch keeps uint8
