"""Layers that also take PyTorch's unbatched input (issue 29). PyTorch's convolutions and recurrent layers
accept an input without its batch axis (a (C, H, W) image for Conv2d, a (L, H_in) sequence for LSTM, an
(H_in,) vector for a cell); MindSpore's refuse it with a shape error. Each class here is MindSpore's layer
(the same parameters, names and kernels; isinstance checks still hold) whose construct runs such an input
as a batch of one and takes the batch axis off the results again (layers that do it alike take their
construct from one mixin). A batched input takes the plain path: the rank is known when a graph compiles,
so the test costs nothing there. The cells also take PyTorch's default state (zeros) where none is given.
Same rules as helper_source.py: copied as it stands, MindSpore reached only through `mindspore.`, `ops.`
and `nn.`. A mixin's super() names the mixin: MindSpore's graph compiler reads a bare super() as the
instance's class, and would call the mixin's construct again forever."""
from mindspore import nn, ops

from analysis.convert.support.helper_rnn_speed import cpu_gru_steps  # noqa: F401  (the converted file gets its own copy)


class UnbatchedConv:
    """The construct of Conv1d/2d/3d (mixed in before MindSpore's layer): an input of the class's
    unbatched_ndim runs as a batch of one (super() names this class: in graph mode a bare one recurses)."""
    unbatched_ndim = None

    def construct(self, x):
        if x.ndim == self.unbatched_ndim:
            return super(UnbatchedConv, self).construct(x.expand_dims(0)).squeeze(0)
        return super(UnbatchedConv, self).construct(x)


class Conv1d(UnbatchedConv, nn.Conv1d):
    """nn.Conv1d that also takes an unbatched (C, L) input."""
    unbatched_ndim = 2


class Conv2d(UnbatchedConv, nn.Conv2d):
    """nn.Conv2d that also takes an unbatched (C, H, W) input."""
    unbatched_ndim = 3


class Conv3d(UnbatchedConv, nn.Conv3d):
    """nn.Conv3d that also takes an unbatched (C, D, H, W) input."""
    unbatched_ndim = 4


class LSTM(nn.LSTM):
    """nn.LSTM that also takes an unbatched (L, H_in) input, with (h0, c0) each (layers * directions, H)."""

    def construct(self, x, hx=None, seq_length=None):
        if x.ndim != 2:
            return super().construct(x, hx, seq_length)
        axis = 0 if self.batch_first else 1
        if hx is not None:
            hx = (hx[0].expand_dims(1), hx[1].expand_dims(1))
        out, (h, c) = super().construct(x.expand_dims(axis), hx, seq_length)
        return out.squeeze(axis), (h.squeeze(1), c.squeeze(1))


class UnbatchedOneState:
    """The construct of GRU and RNN (mixed in before MindSpore's layer): an unbatched (L, H_in) input, with h0
    of (layers * directions, H), runs as a batch of one (super() names this class: in graph mode a bare one
    recurses)."""

    def construct(self, x, hx=None, seq_length=None):
        if x.ndim != 2:
            return super(UnbatchedOneState, self).construct(x, hx, seq_length)
        axis = 0 if self.batch_first else 1
        out, h = super(UnbatchedOneState, self).construct(x.expand_dims(axis),
                                                          None if hx is None else hx.expand_dims(1), seq_length)
        return out.squeeze(axis), h.squeeze(1)


class GRU(UnbatchedOneState, nn.GRU):
    """nn.GRU that also takes an unbatched (L, H_in) input, with h0 of (layers * directions, H). On CPU its
    time steps run in fewer kernels (helper_rnn_speed.py's GRUSteps)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        cpu_gru_steps(self)


class RNN(UnbatchedOneState, nn.RNN):
    """nn.RNN that also takes an unbatched (L, H_in) input, with h0 of (layers * directions, H)."""


class UnbatchedOneStateCell:
    """The construct of RNNCell and GRUCell (mixed in before MindSpore's cell): an unbatched (H_in,) input
    runs as a batch of one and, as in PyTorch, no state means zeros (super() names this class: in graph mode
    a bare one recurses)."""

    def construct(self, x, hx=None):
        if hx is None:
            hx = ops.zeros(x.shape[:-1] + (self.hidden_size,), x.dtype)
        if x.ndim == 1:
            return super(UnbatchedOneStateCell, self).construct(x.expand_dims(0), hx.expand_dims(0)).squeeze(0)
        return super(UnbatchedOneStateCell, self).construct(x, hx)


class RNNCell(UnbatchedOneStateCell, nn.RNNCell):
    """nn.RNNCell that also takes an unbatched (H_in,) input and, as PyTorch, no state (zeros)."""


class GRUCell(UnbatchedOneStateCell, nn.GRUCell):
    """nn.GRUCell that also takes an unbatched (H_in,) input and, as PyTorch, no state (zeros)."""


class LSTMCell(nn.LSTMCell):
    """nn.LSTMCell that also takes an unbatched (H_in,) input and, as PyTorch, no state (zeros)."""

    def construct(self, x, hx=None):
        if hx is None:
            zeros = ops.zeros(x.shape[:-1] + (self.hidden_size,), x.dtype)
            hx = (zeros, zeros)
        if x.ndim == 1:
            h, c = super().construct(x.expand_dims(0), (hx[0].expand_dims(0), hx[1].expand_dims(0)))
            return h.squeeze(0), c.squeeze(0)
        return super().construct(x, hx)
