"""torch.nn layers and their torch.nn.functional forms in the call forms real code writes that MindSpore's
namesake reads another way (found on PyTorch's ModuleInfo samples and held-out calls): softmax, softmin and
log_softmax with PyTorch's implicit dim or a 0-d input, and the smooth L1 loss with a beta only known when
it runs. Same rules as helper_source.py: copied as it stands, MindSpore reached only through `mindspore.`,
`ops.` and `nn.`."""
from mindspore import nn, ops


def softmax_family(input, dim=None, kind="softmax", dtype=None):
    """F.softmax / F.softmin / F.log_softmax (kind) as PyTorch computes them. dim None is PyTorch's implicit
    axis, 0 for a 0-, 1- or 3-d input and 1 otherwise (torch.nn.functional._get_softmax_dim), where
    MindSpore's default is the last axis; a 0-d input runs as one element (MindSpore's kernels refuse an
    axis on it); dtype casts the input first."""
    if dtype is not None:
        input = input.astype(dtype)
    if dim is None:
        dim = 0 if input.ndim in (0, 1, 3) else 1
    if input.ndim == 0:
        return softmax_family(input.reshape(1), 0, kind).reshape(())
    if kind == "softmin":
        input = -input
    if kind == "log_softmax":
        return ops.log_softmax(input, dim)
    return ops.softmax(input, dim)


class Softmax(nn.Softmax):
    """nn.Softmax with PyTorch's dim (None: the implicit axis of softmax_family) that also takes a 0-d input."""

    def __init__(self, dim=None):
        super().__init__(-1 if dim is None else dim)
        self.dim = dim

    def construct(self, input):
        return softmax_family(input, self.dim, "softmax")


class Softmin(nn.Softmin):
    """nn.Softmin with PyTorch's dim (None: the implicit axis of softmax_family) that also takes a 0-d input."""

    def __init__(self, dim=None):
        super().__init__(-1 if dim is None else dim)
        self.dim = dim

    def construct(self, input):
        return softmax_family(input, self.dim, "softmin")


class LogSoftmax(nn.LogSoftmax):
    """nn.LogSoftmax with PyTorch's dim (None: the implicit axis of softmax_family) that also takes a 0-d input."""

    def __init__(self, dim=None):
        super().__init__(-1 if dim is None else dim)
        self.dim = dim

    def construct(self, input):
        return softmax_family(input, self.dim, "log_softmax")


class SmoothL1Loss(nn.Cell):
    """nn.SmoothL1Loss with PyTorch's defaults (reduction 'mean') and any beta: beta 0 is the L1 loss
    (smooth_l1_loss), which MindSpore's layer refuses."""

    def __init__(self, reduction="mean", beta=1.0):
        super().__init__()
        self.reduction, self.beta = reduction, beta

    def construct(self, input, target):
        return smooth_l1_loss(input, target, self.reduction, self.beta)
