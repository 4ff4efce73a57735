"""MindSpore definitions for PyTorch's out= argument, which MindSpore's functions lack: the result is
written into the buffer tensor itself (assign_value keeps it the same object, so its aliases see the
values, and it takes the result's shape, as PyTorch resizes an out= tensor). Where the buffer's dtype
is not the result's, PyTorch casts for some ops, computes in the buffer's dtype for others (cumsum,
sum into a wider buffer) or raises: these write only what is certain and raise otherwise, naming the
case. And rrelu, the out-of-place form in-place rrelu_ calls are written back from
(tensors/inplace_functions.py). Same rules as helper_source.py: copied as it stands, MindSpore reached only through `mindspore.` and `ops.`."""
import mindspore
from mindspore import ops


def write_out(out, value, api):
    """torch.<api>(..., out=out) where the result must have out's dtype: value (the call's result
    without out=) written into out, which is returned. out a tuple of tensors (a name holding one):
    write_outs."""
    if isinstance(out, (tuple, list)):
        return write_outs(out, value, api)
    if not isinstance(value, mindspore.Tensor):
        raise TypeError(f"{api}(..., out=): the result is a {type(value).__name__}, not one tensor; pass a "
                        "tuple of tensors as out=")
    if value.dtype == mindspore.int32 and out.dtype == mindspore.int64:
        value = value.astype(out.dtype)  # MindSpore's indices (sort, max, topk) are int32 where PyTorch's are int64
    if value.dtype != out.dtype:
        raise TypeError(f"{api}(..., out=) into a {out.dtype} tensor where the result is {value.dtype}: PyTorch "
                        "casts for some operators and computes in the buffer's dtype for others; cast the "
                        "inputs or assign the result instead")
    out.assign_value(value)
    return out


def write_out_cast(out, value, api):
    """torch.<api>(..., out=out) for an element-wise operator that PyTorch computes in its inputs' dtype
    and casts into out's (measured: analysis/verify/out_probe.py); PyTorch refuses a cast from complex to
    real, from float to integer, and to bool from anything else, and so does this."""
    order = {"bool": 0, "int": 1, "uint": 1, "float": 2, "bfloat": 2, "complex": 3}

    def kind(dtype):
        name = str(dtype).lower()
        return next(rank for prefix, rank in sorted(order.items(), key=lambda p: -len(p[0]))
                    if name.startswith(prefix))

    if isinstance(value, mindspore.Tensor) and value.dtype != out.dtype:
        if kind(value.dtype) > kind(out.dtype):
            raise TypeError(f"{api}(..., out=): a {value.dtype} result cannot be cast to the out= tensor's "
                            f"{out.dtype} (PyTorch refuses it too)")
        value = value.astype(out.dtype)
    return write_out(out, value, api)


def write_outs(outs, values, api):
    """torch.<api>(..., out=(a, b)) for an operator with several results: each written into its buffer
    (write_out's rule); the buffers are returned as a tuple."""
    values = tuple(values)
    if len(values) != len(outs):
        raise TypeError(f"{api}(..., out=): {len(outs)} out= tensors for {len(values)} results")
    return tuple(write_out(out, value, api) for out, value in zip(outs, values))


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """F.rrelu / torch.rrelu: out of training (PyTorch's default) a leaky ReLU whose slope is the mean of
    lower and upper, no draw; in training MindSpore's rrelu draws the slopes. inplace is PyTorch's
    parameter (the result is returned either way)."""
    if training:
        return ops.rrelu(input, lower, upper)
    return ops.where(input >= 0, input, input * ((lower + upper) / 2))


def rrelu_function(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """torch.rrelu: F.rrelu's rule (rrelu above); its fifth parameter is a generator, which MindSpore's draw
    takes none of (a seed: mindspore.set_seed)."""
    return rrelu(input, lower, upper, training)
