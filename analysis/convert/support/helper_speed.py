"""Draws made on the host where the converted code only reads them as Python numbers (issue 29: converted
training at PyTorch's speed). The same rules as helper_source.py: copied as text, never imported by the
converter.
"""
import mindspore
from mindspore import ops


def host_randint(low=0, high=None, size=None, *, dtype=None):
    """torch.randint(high, size) / torch.randint(low, high, size) whose values the code only iterates, each
    one used as an index or a slice bound (a batch of offsets into a numpy array): the same distribution,
    uniform over [low, high), drawn with numpy and given as a list of Python numbers (nested for more than
    one dimension), which numpy arrays and MindSpore tensors alike take as indices (a numpy integer is
    refused as a Tensor's slice bound). A MindSpore draw costs about 2 ms of CPU a call (MindSpore 2.10:
    a new random operator each time), and iterating it gives 0-d Tensors that numpy reads back one by
    one. The generator is seeded from mindspore.set_seed's seed and op-seed counter, and built again when
    set_seed is called again, so a seeded script repeats its draws."""
    import sys

    import numpy as np

    if size is None:
        low, high, size = 0, low, high
    seeds = sys.modules["mindspore.common.seed"]
    counter = ("ms_support.host_draws", 0)  # an entry of set_seed's op-seed counters, which set_seed resets
    state = host_randint.__dict__.setdefault("state", {})
    if state.get("seeded") != (seeds.get_seed(), seeds._KERNEL_SEED.get(counter)):
        seed1, seed2 = seeds._get_graph_seed(0, counter[0])
        state["generator"] = np.random.default_rng([seed1, seed2])
        state["seeded"] = (seeds.get_seed(), seeds._KERNEL_SEED.get(counter))
    size = (size,) if isinstance(size, int) else tuple(size)
    draw = state["generator"].integers(low, high, size, dtype=np.int64)
    return (draw if dtype is None else draw.astype(mindspore.dtype_to_nptype(dtype))).tolist()


class AdamW(mindspore.experimental.optim.AdamW):
    """torch.optim.AdamW: mindspore.experimental.optim.AdamW (PyTorch's arguments, param_groups, state and
    schedulers) whose update of float32 parameters on CPU is one fused kernel per parameter
    (ops.AdamWeightDecay) instead of about fifteen. On CPU MindSpore 2.10 spends some 20 microseconds on
    each kernel whatever its size, so nanoGPT's update over 15 parameters took 3.7 ms against PyTorch's
    whole step of 2.6. The fused kernel has no bias correction and decays by its own learning rate; given
    lr * sqrt(bc2) / bc1 as that rate, eps * sqrt(bc2) as eps and weight_decay * bc1 / sqrt(bc2) as decay
    (bc1 = 1 - beta1^t, bc2 = 1 - beta2^t), its step is PyTorch's algebraically. amsgrad, other dtypes
    and other devices keep the experimental optimizer's own update."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fused_update = ops.AdamWeightDecay()
        on_cpu = mindspore.get_context("device_target") == "CPU"
        # per parameter index: whether its group's update may be fused (read with constant indices in a graph)
        fused = []
        for index, group in enumerate(self.param_groups):
            group_params = self.parameters[self.group_start_id[index]:self.group_start_id[index + 1]]
            whole = on_cpu and not group.get("amsgrad") and all(p.dtype == mindspore.float32 for p in group_params)
            fused += [whole] * len(group_params)
        self.fused_at = tuple(fused)

    @mindspore.jit  # as the parent's: op by op (a step that did not compile), the update is still one graph
    def implementation(self, lr, weight_decay, beta1, beta2, amsgrad, eps, grads, start_id, end_id):
        if start_id == end_id or not self.fused_at[start_id]:
            return mindspore.experimental.optim.AdamW.implementation(
                self, lr, weight_decay, beta1, beta2, amsgrad, eps, grads, start_id, end_id)
        t = self.state_step.astype(mindspore.float32)
        bc1 = 1 - ops.pow(beta1, t)
        root = ops.sqrt(1 - ops.pow(beta2, t))
        step_lr = lr * root / bc1
        decay = weight_decay * bc1 / root
        params = self.parameters[start_id:end_id]
        moments = self.exp_avg[start_id:end_id]
        squares = self.exp_avg_sq[start_id:end_id]
        for param, grad, m, v in zip(params, grads, moments, squares):
            self.fused_update(param, m, v, step_lr, beta1, beta2, eps * root, decay, grad)
        return True
