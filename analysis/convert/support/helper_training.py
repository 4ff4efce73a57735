"""Layers PyTorch builds by a class method, written into a converted file like the definitions of
helper_source.py (same rules: read as text by helpers.py, never imported by the converter; tests
import it to check each one against PyTorch)."""
import mindspore
from mindspore import nn


def embedding_from_pretrained(embeddings, freeze=True):
    """torch.nn.Embedding.from_pretrained(embeddings, freeze): an Embedding whose table is embeddings,
    left out of training (requires_grad False, so not among trainable_params()) when freeze."""
    layer = nn.Embedding(embeddings.shape[0], embeddings.shape[1], embedding_table=embeddings)
    layer.embedding_table.requires_grad = not freeze
    return layer


def synchronous_cpu_launch():
    """On CPU, run each operator when Python calls it instead of through MindSpore's asynchronous launch
    queue. Called once where a converted training script loads (it must precede the first operator: set
    later it leaves the queue in place). Measured on MindSpore 2.10, one runtime thread: every point
    where Python waits for a value through the queue (loss.item(), an accuracy count, a fresh random
    draw) cost 1-5 ms of CPU, run in order 0.05-0.2 ms; a training loop pays that at every step. Other
    devices keep their queue, which there lets Python run ahead of the device's work."""
    if mindspore.get_context("device_target") == "CPU":
        mindspore.runtime.launch_blocking()


class StepNotCompiled(Exception):
    """MindSpore could not compile the step's graph (raised before any of the step ran)."""


class compiled_step(nn.Cell):
    """A training step function compiled once as a graph, as mindspore.jit would, and run through the
    Cell graph executor: on CPU (MindSpore 2.10) a call costs about a tenth of a mindspore.jit call's fixed
    overhead (0.2 ms of CPU against 2 ms on a 1x1 Dense step); the graph and its values are the same. A
    new input shape or a new value of a Python argument (the networks' training modes) compiles anew.
    Where the graph does not compile (code in the forward that graph mode refuses, which the converter
    could not see), the step says so once on stderr and runs op by op from then on: same values, slower."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn
        self.op_by_op = False

    def construct(self, *args):
        return self.fn(*args)

    def compile(self, *args, **kwargs):
        try:
            return super().compile(*args, **kwargs)
        except (RuntimeError, TypeError, ValueError, NameError, AttributeError, SyntaxError) as error:
            raise StepNotCompiled(error) from error

    def __call__(self, *args):
        if self.op_by_op:
            return self.fn(*args)
        try:
            return self.compile_and_run(*args)
        except StepNotCompiled as failure:
            import sys

            reason = str(failure.__cause__).strip().splitlines()[0] if str(failure.__cause__).strip() else \
                type(failure.__cause__).__name__
            print(f"[ms_support] {getattr(self.fn, '__name__', 'the training step')} did not compile as a graph "
                  f"({reason}); it runs op by op (PyNative) instead", file=sys.stderr)
            self.op_by_op = True
            return self.fn(*args)


def prefix_optimizer_state(optimizer, prefix):
    """Give an optimizer's own parameters (global_step, learning_rate, its moments or accumulators) the
    prefix: every MindSpore optimizer names them alike, and one graph refuses two parameters of the same
    name, so a step applied by two optimizers compiles once each one's are prefixed. The parameters it
    trains are the networks' and keep their names."""
    trained = {id(param) for param in optimizer.parameters}
    for param in optimizer.get_parameters():
        if id(param) not in trained:
            param.name = prefix + param.name
