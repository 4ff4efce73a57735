"""MindSpore definitions for torch.nn layers and torch.nn.functional calls whose MindSpore counterpart has
no CPU kernel for PyTorch's inputs (dtypes, ranks) or computes another formula (found on PyTorch's
OpInfo and ModuleInfo samples, issue 29). Same rules as helper_source.py: copied as it stands,
MindSpore reached only through `mindspore.`, `ops.` and `nn.`."""
import mindspore
from mindspore import nn, ops


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """F.pairwise_distance over the last axis: the p-norm of x1 - x2 + eps, integer differences read
    as float32 and complex ones by modulus, as PyTorch computes it."""
    diff = x1 - x2
    if diff.dtype in (mindspore.complex64, mindspore.complex128):
        diff = diff + eps
        size = ops.sqrt(ops.real(diff) * ops.real(diff) + ops.imag(diff) * ops.imag(diff))
    else:
        size = ops.abs((diff if ops.is_floating_point(diff) else diff.astype(mindspore.float32)) + eps)
    if p == 0:
        return (size != 0).astype(size.dtype).sum(-1, keepdims=keepdim)
    if p == float("inf"):
        return size.max(-1, keepdims=keepdim)
    if p == 1:
        return size.sum(-1, keepdims=keepdim)
    if p == 2:
        return ops.sqrt((size * size).sum(-1, keepdims=keepdim))
    return (size ** p).sum(-1, keepdims=keepdim) ** (1.0 / p)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """F.triplet_margin_loss: max(margin + d(anchor, positive) - d(anchor, negative), 0), d the
    pairwise_distance (with swap, the smaller of d(anchor, negative) and d(positive, negative)).
    MindSpore 2.10 has no CPU kernel for TripletMarginLoss, nor for integer or complex inputs."""
    if size_average is not None or reduce is not None:  # PyTorch's deprecated spelling of reduction
        reduction = "none" if reduce is False else ("sum" if size_average is False else "mean")
    near = pairwise_distance(anchor, positive, p, eps)
    far = pairwise_distance(anchor, negative, p, eps)
    if swap:
        far = ops.minimum(far, pairwise_distance(positive, negative, p, eps))
    loss = ops.relu(margin + near - far)
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


class TripletMarginLoss(nn.Cell):
    """nn.TripletMarginLoss: the layer form of triplet_margin_loss()."""

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap
        self.size_average, self.reduce, self.reduction = size_average, reduce, reduction

    def construct(self, anchor, positive, negative):
        return triplet_margin_loss(anchor, positive, negative, self.margin, self.p, self.eps, self.swap,
                                   self.size_average, self.reduce, self.reduction)


def softsign(input):
    """F.softsign: input / (1 + |input|). PyTorch adds the 1 in the input's dtype (a uint8 255 wraps to
    a zero divisor) and divides as float; complex inputs scale by the modulus. MindSpore's Softsign
    takes float16/32/64 only."""
    if input.dtype in (mindspore.complex64, mindspore.complex128):
        real, imag = ops.real(input), ops.imag(input)
        return input * (1 / (1 + ops.sqrt(real * real + imag * imag))).astype(input.dtype)
    if ops.is_floating_point(input):
        return input / (1 + ops.abs(input))
    return input.astype(mindspore.float32) / (ops.abs(input) + 1).astype(mindspore.float32)


def loss_reduction(loss, reduction):
    """A loss's elements reduced as PyTorch's reduction= says ('mean', 'sum' or 'none')."""
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """F.soft_margin_loss: log(1 + exp(-target * input)), reduced (MindSpore 2.10's SoftMarginLoss has
    no CPU kernel)."""
    if size_average is not None or reduce is not None:  # PyTorch's deprecated spelling of reduction
        reduction = "none" if reduce is False else ("sum" if size_average is False else "mean")
    return loss_reduction(ops.log1p(ops.exp(-target * input)), reduction)


class SoftMarginLoss(nn.Cell):
    """nn.SoftMarginLoss: the layer form of soft_margin_loss()."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.size_average, self.reduce, self.reduction = size_average, reduce, reduction

    def construct(self, input, target):
        return soft_margin_loss(input, target, self.size_average, self.reduce, self.reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """F.kl_div: target * (log(target) - input), 0 where target is 0 (MindSpore's gives NaN there), or
    exp(target) * (target - input) for log_target; reduced, 'batchmean' as the sum over the first
    axis's length (MindSpore's kl_div has no log_target)."""
    if size_average is not None or reduce is not None:  # PyTorch's deprecated spelling of reduction
        reduction = "none" if reduce is False else ("sum" if size_average is False else "mean")
    if log_target:
        loss = ops.exp(target) * (target - input)
    else:
        loss = ops.where(target == 0, ops.zeros_like(target), target * ops.log(target)) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.ndim > 0 else loss.sum()
    return loss_reduction(loss, reduction)


class KLDivLoss(nn.Cell):
    """nn.KLDivLoss: the layer form of kl_div()."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__()
        self.size_average, self.reduce, self.reduction, self.log_target = size_average, reduce, reduction, log_target

    def construct(self, input, target):
        return kl_div(input, target, self.size_average, self.reduce, self.reduction, self.log_target)


def elu(input, alpha=1.0, inplace=False):
    """F.elu for any alpha: input where positive, alpha * (exp(input) - 1) elsewhere (MindSpore's elu
    takes alpha=1.0 only). inplace is PyTorch's parameter: the result is returned either way."""
    return ops.where(input > 0, input, alpha * ops.expm1(input))


class ELU(nn.Cell):
    """nn.ELU: the layer form of elu()."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha

    def construct(self, input):
        return elu(input, self.alpha)


def legacy_reduction(size_average, reduce, reduction):
    """PyTorch's deprecated size_average=/reduce= read as the reduction they mean (None: reduction)."""
    if size_average is None and reduce is None:
        return reduction
    return "none" if reduce is False else ("sum" if size_average is False else "mean")


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    """F.margin_ranking_loss: max(0, -target * (input1 - input2) + margin), reduced; the target may be of
    another dtype than the inputs (MindSpore's requires the same)."""
    loss = ops.relu(-target.astype(input1.dtype) * (input1 - input2) + margin)
    return loss_reduction(loss, legacy_reduction(size_average, reduce, reduction))


class MarginRankingLoss(nn.Cell):
    """nn.MarginRankingLoss: the layer form of margin_ranking_loss()."""

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.margin, self.reduction = margin, legacy_reduction(size_average, reduce, reduction)

    def construct(self, input1, input2, target):
        return margin_ranking_loss(input1, input2, target, self.margin, reduction=self.reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """F.binary_cross_entropy: -(target * log(input) + (1 - target) * log(1 - input)), each log clamped at
    -100 as PyTorch does, times weight (broadcast), reduced; float64 too (MindSpore's kernel has none)."""
    low = mindspore.Tensor(-100.0, input.dtype)
    loss = -(target * ops.maximum(ops.log(input), low) + (1 - target) * ops.maximum(ops.log(1 - input), low))
    if weight is not None:
        loss = loss * weight
    return loss_reduction(loss, legacy_reduction(size_average, reduce, reduction))


class BCELoss(nn.Cell):
    """nn.BCELoss: the layer form of binary_cross_entropy() (weight kept as given, not a parameter)."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.weight, self.reduction = weight, legacy_reduction(size_average, reduce, reduction)

    def construct(self, input, target):
        return binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


def prelu(input, weight):
    """F.prelu: input where it is not negative, weight * input elsewhere, with one weight for all
    channels or one per channel (axis 1; the only axis of a 1-D input). MindSpore's takes a 1-D
    weight and float16/32 only."""
    if weight.size > 1 and input.ndim > 1:
        weight = weight.reshape((1, -1) + (1,) * (input.ndim - 2))
    elif weight.size == 1:
        weight = weight.reshape(())
    return ops.where(input >= 0, input, weight * input)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """F.cosine_similarity: the sum over dim of x1 / max(|x1|, eps) times x2 / max(|x2|, eps), the
    operands broadcast, as PyTorch computes it (MindSpore's norm kernel has no float64)."""
    import numpy
    shape = tuple(numpy.broadcast_shapes(tuple(x1.shape), tuple(x2.shape)))  # norms of the broadcast operands
    x1, x2 = ops.broadcast_to(x1, shape), ops.broadcast_to(x2, shape)
    one = ops.sqrt((x1 * x1).sum(dim, keepdims=True)).clamp(min=eps)
    two = ops.sqrt((x2 * x2).sum(dim, keepdims=True)).clamp(min=eps)
    return ((x1 / one) * (x2 / two)).sum(dim)
