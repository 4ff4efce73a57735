"""MindSpore definitions for torch calls in argument forms their MindSpore namesake lacks (keyword and
edge forms seen in real code: torch.vander's increasing=). Same rules as helper_source.py: copied as
it stands, MindSpore reached only through `mindspore.` and `ops.`."""
import mindspore
from mindspore import ops


def vander(x, N=None, increasing=False):
    """torch.vander: the powers of x, highest first (increasing: lowest first), N columns (x's length by
    default). MindSpore's vander has no increasing= and refuses N=0 or an empty x; PyTorch returns an
    empty matrix there. Integer and boolean x give int64, as in PyTorch."""
    columns = x.shape[0] if N is None else int(N)
    dtype = x.dtype if ops.is_floating_point(x) or ops.is_complex(x) else mindspore.int64
    if columns == 0 or x.shape[0] == 0:
        return ops.zeros((x.shape[0], columns), dtype)
    powers = ops.vander(x, columns)
    return ops.flip(powers, (-1,)) if increasing else powers


def weighted_elements(loss, weight, reduction, mean_over_weight):
    """A loss's elements times weight, reduced as PyTorch's weighted losses do: 'mean' is the weighted sum
    over the sum of the weights for l1_loss and mse_loss (mean_over_weight), the plain mean for huber_loss."""
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction != "mean":
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")
    return loss.sum() / weight.sum() if mean_over_weight else loss.mean()


def l1_loss_weighted(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """F.l1_loss with weight= (PyTorch 2.6 on; MindSpore's l1_loss has none): |input - target| * weight,
    reduced by weighted_elements."""
    if size_average is not None or reduce is not None:  # PyTorch's deprecated spelling of reduction
        reduction = "none" if reduce is False else ("sum" if size_average is False else "mean")
    if weight is None:
        return ops.l1_loss(input, target, reduction)
    return weighted_elements(ops.abs(input - target), weight, reduction, True)


def mse_loss_weighted(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """F.mse_loss with weight= (MindSpore's mse_loss has none): (input - target)^2 * weight, reduced by
    weighted_elements."""
    if size_average is not None or reduce is not None:  # PyTorch's deprecated spelling of reduction
        reduction = "none" if reduce is False else ("sum" if size_average is False else "mean")
    if weight is None:
        return ops.mse_loss(input, target, reduction)
    difference = input - target
    return weighted_elements(difference * difference, weight, reduction, True)


def huber_loss_weighted(input, target, reduction="mean", delta=1.0, weight=None):
    """F.huber_loss with weight= (MindSpore's huber_loss has none): the unreduced Huber loss times weight,
    its 'mean' the plain mean of the weighted elements (PyTorch's rule for this loss)."""
    if weight is None:
        return ops.huber_loss(input, target, reduction, delta)
    return weighted_elements(ops.huber_loss(input, target, "none", delta), weight, reduction, False)


def batch_norm_function(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
                        eps=1e-5):
    """F.batch_norm: ops.batch_norm where its kernel takes the call (float16/float32 input, weight and bias
    given, float32 running statistics: float16 ones it leaves unchanged in training); otherwise written out,
    as MindSpore's BatchNorm refuses float64 and a missing weight or bias: each channel less its batch mean
    (training) over its biased deviation, the running statistics moved by momentum toward the mean and the
    unbiased variance in place, as PyTorch does; half precision computed in float32."""
    if input.dtype in (mindspore.float16, mindspore.float32) and weight is not None and bias is not None \
            and running_mean is not None and running_var is not None \
            and running_mean.dtype == mindspore.float32 and running_var.dtype == mindspore.float32:
        return ops.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean must be defined in evaluation mode")
    wide = input.astype(mindspore.float32) if input.dtype == mindspore.float16 else input
    axes = (0,) + tuple(range(2, wide.ndim))
    shape = (1, -1) + (1,) * (wide.ndim - 2)
    if training:
        mean = wide.mean(axes)
        var = ((wide - mean.reshape(shape)) ** 2).mean(axes)
        count = wide.size // wide.shape[1]
        if running_mean is not None:
            moved = (1 - momentum) * running_mean + momentum * mean
            running_mean.assign_value(moved.astype(running_mean.dtype))
        if running_var is not None:
            unbiased = var * count / max(count - 1, 1)
            moved = (1 - momentum) * running_var + momentum * unbiased
            running_var.assign_value(moved.astype(running_var.dtype))
    else:
        mean, var = running_mean.astype(wide.dtype), running_var.astype(wide.dtype)
    out = (wide - mean.reshape(shape)) / ops.sqrt(var.reshape(shape) + eps)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out.astype(input.dtype)
