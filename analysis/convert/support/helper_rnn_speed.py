"""The time steps of a converted GRU in fewer CPU kernels (issue 29: converted training at PyTorch's speed).
Same rules as helper_source.py: copied as text, never imported by the converter; MindSpore reached only
through `mindspore.`, `ops.` and `nn.`.
"""
import mindspore
from mindspore import nn, ops


class GRUSteps(nn.Cell):
    """What nn.GRU calls for one layer and direction (its `rnn` cell: time-major x (T, B, I), h (B, H),
    the layer's weights in PyTorch's r, z, n order), written as PyTorch's CPU GRU computes it: the input
    projection of all T steps is one product before the loop, and each step is one product for the three
    hidden gates and ten elementwise kernels. MindSpore's own cell takes two products, two bias adds, a
    slice, a squeeze and two splits a step; on CPU every kernel costs about 23 us of runtime whatever its
    size, which made a small GRU several times slower than PyTorch's. Same formula (n = tanh(W_in x + b_in
    + r * (W_hn h + b_hn)), h' = n + z * (h - n)). Sequences given lengths take MindSpore's cell (`plain`)."""

    def __init__(self, plain):
        super().__init__()
        self.plain = plain
        self.split3 = ops.Split(-1, 3)
        self.matmul = ops.MatMul(False, True)

    def construct(self, x, h, seq_length, w_ih, w_hh, b_ih, b_hh):
        if seq_length is not None:
            return self.plain(x, h, seq_length, w_ih, w_hh, b_ih, b_hh)
        steps, batch = x.shape[0], x.shape[1]
        w_ih = w_ih.astype(x.dtype)
        w_hh = w_hh.astype(x.dtype)
        if b_ih is not None:
            b_ih = b_ih.astype(x.dtype)
            b_hh = b_hh.astype(x.dtype)
        gates = self.dense(x.reshape(steps * batch, x.shape[2]), w_ih, b_ih)
        if steps == 1:
            inputs_r, inputs_z, inputs_n = self.split3(gates)
            h = self.step(inputs_r, inputs_z, inputs_n, h, w_hh, b_hh)
            return h.reshape(1, batch, h.shape[1]), h
        inputs_r, inputs_z, inputs_n = self.split3(gates.reshape(steps, batch, gates.shape[1]))
        inputs_r, inputs_z, inputs_n = ops.unstack(inputs_r), ops.unstack(inputs_z), ops.unstack(inputs_n)
        outputs = []
        for t in range(steps):
            h = self.step(inputs_r[t], inputs_z[t], inputs_n[t], h, w_hh, b_hh)
            outputs.append(h)
        return ops.stack(outputs), h

    def dense(self, x, w, b):
        # BiasAdd, not ops.dense: its gradient is one BiasAddGrad kernel where Dense's broadcast add takes a
        # reduction and a reshape
        y = self.matmul(x, w)
        return y if b is None else ops.bias_add(y, b)

    def step(self, inputs_r, inputs_z, inputs_n, h, w_hh, b_hh):
        hidden_r, hidden_z, hidden_n = self.split3(self.dense(h, w_hh, b_hh))
        r = ops.sigmoid(inputs_r + hidden_r)
        z = ops.sigmoid(inputs_z + hidden_z)
        n = ops.tanh(inputs_n + r * hidden_n)
        return n + z * (h - n)


def cpu_gru_steps(layer):
    """Give an nn.GRU the GRUSteps cell on CPU (other devices keep their fused GRU kernels)."""
    if mindspore.get_context("device_target") == "CPU":
        layer.rnn = GRUSteps(layer.rnn)
    return layer
