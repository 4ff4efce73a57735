"""The kernel dtype bridge, copied into a converted file like the definitions of helper_source.py
(same rules: read as text by helpers.py, never imported by the converter; tests import it).

MindSpore's CPU kernels lack dtypes PyTorch's take (Sort has no bool, Diag no int8, Median no
float16...). Where the tensor's dtype is only known at run time, the converted call goes through
kernel_dtypes(), which casts to a dtype the kernel takes only when the input's dtype is one it refuses,
and casts the outputs in that dtype back. Which APIs, which dtypes and through which dtype is data
(knowledge/data/kernel_dtypes.json, written by `python -m analysis.verify.kernel_bridge`, which keeps
only the casts whose results equal PyTorch's on its OpInfo samples). The dtype tests are on
tensor.dtype, static in graph mode: the helper compiles under mindspore.jit where the plain call does.
"""
import mindspore


def kernel_dtypes(function, casts, *args, **kwargs):
    """function(*args, **kwargs) (function: a callable, or the name of a method of the first argument)
    where casts pairs a dtype MindSpore's kernel refuses with one it takes (a complex dtype: with
    (complex_kernel, how) or (a composition,), which compute the call from real kernels): when the first tensor argument
    has a refused dtype, the tensor arguments of that dtype go in as the other one, and the outputs of that
    other dtype come back in the first (index outputs keep theirs). Any other dtype calls it as it is."""
    tensors = [a for a in args if isinstance(a, mindspore.Tensor)] + \
        [v for v in kwargs.values() if isinstance(v, mindspore.Tensor)]
    for refused, taken in casts:
        if tensors and tensors[0].dtype == refused:
            if isinstance(taken, tuple):  # complex: no dtype to go through, real kernels (helper_complex.py)
                return taken[0](*args, **kwargs) if len(taken) == 1 else taken[0](function, taken[1], args, kwargs)
            args = [a.astype(taken) if isinstance(a, mindspore.Tensor) and a.dtype == refused else a for a in args]
            kwargs = {k: v.astype(taken) if isinstance(v, mindspore.Tensor) and v.dtype == refused else v
                      for k, v in kwargs.items()}
            return kernel_dtype_back(kernel_call(function, args, kwargs), taken, refused)
    return kernel_call(function, args, kwargs)


def kernel_call(function, args, kwargs):
    """function(*args, **kwargs), or args[0].function(*args[1:], **kwargs) for a method's name (a method
    taken from mindspore.Tensor does not compile under jit; getattr with a constant name does)."""
    if isinstance(function, str):
        return getattr(args[0], function)(*args[1:], **kwargs)
    return function(*args, **kwargs)


def kernel_dtype_back(out, taken, refused):
    """out with its tensors of dtype `taken` cast back to `refused`, through tuples and named tuples."""
    if isinstance(out, mindspore.Tensor):
        return out.astype(refused) if out.dtype == taken else out
    if isinstance(out, tuple):
        items = [kernel_dtype_back(o, taken, refused) for o in out]
        return type(out)(*items) if hasattr(out, "_fields") else tuple(items)
    return out
