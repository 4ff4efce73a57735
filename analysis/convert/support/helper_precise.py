"""MindSpore definitions for float functions whose MindSpore CPU kernel loses the precision the function exists
for: its log1p and expm1 compute log(1 + x) and exp(x) - 1, so log1p(1e-7) comes out 19 % high in float32 and
both give 0 below about 1e-16 even in float64 (knowledge/data/kernel_accuracy.json has the measurements).
Here they are computed in float64, whose exp and log are correctly rounded, with the classic correction for
the rounding of 1 + x (Goldberg's log(u) * x / (u - 1), u = 1 + x) and its twin for exp, and cast back.
nn.Tanh becomes a cell computing float32 input in float64, as the converted torch.tanh calls do through the
kernel dtype bridge (MindSpore's CPU float32 tanh is 1e-4 off near |x| = 5).
Same rules as helper_source.py: copied as it stands, MindSpore reached only through `mindspore.`, `ops.`, `nn.`."""
import mindspore
from mindspore import nn, ops


def precise_float64(input):
    """input as float64, and the dtype the result goes back to (integers and booleans give float32, as PyTorch's
    float functions do)."""
    dtype = input.dtype if ops.is_floating_point(input) else mindspore.float32
    return input.astype(mindspore.float64), dtype


def precise_log1p(input):
    """torch.log1p: log(1 + x) with full relative precision for small x (-1 gives -inf, below it NaN)."""
    if ops.is_complex(input):
        return ops.log1p(input)
    x, dtype = precise_float64(input)
    u = 1.0 + x
    exact = u == 1.0  # 1 + x rounded to 1: log1p(x) is x itself
    y = ops.log(u) * (x / ops.where(exact, ops.ones_like(u), u - 1.0))
    y = ops.where(exact, x, ops.where(ops.isinf(x), ops.log(u), y))
    return y.astype(dtype)


def precise_expm1(input):
    """torch.expm1: exp(x) - 1 with full relative precision for small x (-inf gives -1, +inf inf)."""
    if ops.is_complex(input):
        return ops.expm1(input)
    x, dtype = precise_float64(input)
    u = ops.exp(x)
    less = u - 1.0
    exact = u == 1.0  # exp(x) rounded to 1: expm1(x) is x itself
    y = less * (x / ops.where(exact, ops.ones_like(u), ops.log(u)))
    y = ops.where(exact, x, ops.where((less == -1.0) | ops.isinf(u), less, y))
    return y.astype(dtype)


class Tanh(nn.Cell):
    """torch.nn.Tanh: float32 input computed in float64 and cast back (MindSpore's float32 kernel is not
    accurate enough); other dtypes as they are."""

    def construct(self, input):
        if input.dtype == mindspore.float32:
            return ops.tanh(input.astype(mindspore.float64)).astype(mindspore.float32)
        return ops.tanh(input)
