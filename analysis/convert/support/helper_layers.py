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
