"""torch.nn layers and their torch.nn.functional forms in the call forms real code writes that MindSpore's
namesake reads another way (found on PyTorch's ModuleInfo samples and held-out calls): softmax, softmin and
log_softmax with PyTorch's implicit dim or a 0-d input, and the smooth L1 loss with a beta only known when
it runs. Same rules as helper_source.py: copied as it stands, MindSpore reached only through `mindspore.`,
`ops.` and `nn.`."""
import mindspore
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


class LayerNorm(nn.LayerNorm):
    """nn.LayerNorm over PyTorch's last len(normalized_shape) axes whatever the input's rank: MindSpore's takes
    the first normalised axis as an index from the front (only -1 below zero), which depends on the rank."""

    def construct(self, input_x):
        begin = input_x.ndim - len(self.normalized_shape)
        y, _, _ = ops.LayerNorm(begin, begin, self.epsilon)(input_x, self.gamma.astype(input_x.dtype),
                                                             self.beta.astype(input_x.dtype))
        return y


def fixed_affine(cell, scale=True, shift=True):
    """A layer PyTorch builds without a learnable shift (bias=False) or scale and shift (elementwise_affine=False):
    MindSpore's layer has those parameters whatever it is told, so each is held at the identity (scale 1, shift 0)
    and out of training (requires_grad False: neither an optimizer nor trainable_params() sees it). scale and
    shift may be values known only at run time. The cell is returned."""
    for param in cell.get_parameters():
        last = param.name.rsplit(".", 1)[-1]
        is_shift = last in ("beta", "bias") or last.endswith("_bias")
        if (is_shift and not shift) or (last == "gamma" and not scale):
            param.set_data(ops.zeros_like(param) if is_shift else ops.ones_like(param))
            param.requires_grad = False
    return cell


class ProjectedLSTM(nn.Cell):
    """nn.LSTM with PyTorch's proj_size, which MindSpore's LSTM lacks: each layer's hidden state is
    weight_hr @ (o * tanh(c)), of proj_size, fed back and output (PyTorch's LSTM with projections). Parameters
    named, shaped and ordered as PyTorch's (a state dict maps one to one), drawn from U(-1/sqrt(hidden_size),
    1/sqrt(hidden_size)) as PyTorch does. Takes PyTorch's unbatched (L, H_in) input and zeros for a missing
    state; returns (output, (h_n, c_n))."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0):
        super().__init__()
        self.hidden_size, self.proj_size, self.num_layers = hidden_size, proj_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, dropout
        self.directions = 2 if bidirectional else 1
        bound = hidden_size ** -0.5
        for layer in range(num_layers):
            for suffix in ("", "_reverse")[:self.directions]:
                width = input_size if layer == 0 else proj_size * self.directions
                shapes = [("weight_ih", (4 * hidden_size, width)), ("weight_hh", (4 * hidden_size, proj_size))]
                if bias:
                    shapes += [("bias_ih", (4 * hidden_size,)), ("bias_hh", (4 * hidden_size,))]
                shapes.append(("weight_hr", (proj_size, hidden_size)))
                for kind, shape in shapes:
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, mindspore.Parameter(ops.rand(shape) * (2 * bound) - bound, name=name))

    def construct(self, x, hx=None):
        unbatched = x.ndim == 2
        if unbatched:
            x = x.expand_dims(0 if self.batch_first else 1)
            hx = None if hx is None else (hx[0].expand_dims(1), hx[1].expand_dims(1))
        if self.batch_first:
            x = x.swapaxes(0, 1)
        steps, batch, count = x.shape[0], x.shape[1], self.num_layers * self.directions
        if hx is None:
            hx = (ops.zeros((count, batch, self.proj_size), x.dtype), ops.zeros((count, batch, self.hidden_size), x.dtype))
        hs, cs = [], []
        for layer in range(self.num_layers):
            outs = []
            for direction in range(self.directions):
                suffix = "_reverse" if direction else ""
                w_ih, w_hh, w_hr = (getattr(self, f"{kind}_l{layer}{suffix}") for kind in ("weight_ih", "weight_hh", "weight_hr"))
                h, c = hx[0][layer * self.directions + direction], hx[1][layer * self.directions + direction]
                seq = []
                for t in (range(steps - 1, -1, -1) if direction else range(steps)):
                    gates = ops.matmul(x[t], w_ih.T) + ops.matmul(h, w_hh.T)
                    if self.bias:
                        gates = gates + getattr(self, f"bias_ih_l{layer}{suffix}") + getattr(self, f"bias_hh_l{layer}{suffix}")
                    i, f, g, o = ops.split(gates, self.hidden_size, 1)
                    c = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(g)
                    h = ops.matmul(ops.sigmoid(o) * ops.tanh(c), w_hr.T)
                    seq.append(h)
                outs.append(ops.stack(seq[::-1] if direction else seq))
                hs.append(h)
                cs.append(c)
            x = ops.cat(outs, 2) if self.directions == 2 else outs[0]
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = ops.dropout(x, p=self.dropout)
        out, h, c = x, ops.stack(hs), ops.stack(cs)
        if self.batch_first:
            out = out.swapaxes(0, 1)
        if unbatched:
            out, h, c = out.squeeze(0 if self.batch_first else 1), h.squeeze(1), c.squeeze(1)
        return out, (h, c)
