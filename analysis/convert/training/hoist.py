"""A training step defined once, before its loop, and compiled.

Inside a loop, a forward function and mindspore.value_and_grad built afresh every iteration run op by
op (PyNative), several times slower than PyTorch on CPU. When the step sits in a loop, the forward
function, its gradient function and a step function (gradients, clipping, optimizer) are written once
before the scope's outermost loop, and the loop calls the step with what varies: every name the forward
reads that the loop assigns (the batch, a carried hidden state) is a parameter, the rest (networks,
losses, constants) is read where it is defined. The step is compiled as one graph (support's compiled_step: what
mindspore.jit compiles, run with a tenth of its fixed cost per call) unless the
forward does what a compiled graph would do otherwise than Python: read a value back to Python
(.item(), print), branch in Python, draw Python or numpy random numbers (fixed at compile time), or
read the loop counter (one compilation per value).
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..core.names import code
from .steps import _collect, _free_reads, assigned_names, definite_writes, read_names

# calls in a forward that a compiled graph does not run as Python would
HOST_METHODS = frozenset({"item", "asnumpy", "numpy", "tolist", "backward"})
HOST_FUNCTIONS = frozenset({"print", "float", "int", "bool", "input", "open"})
HOST_MODULES = frozenset({"random", "np", "numpy", "time", "os", "sys", "logging"})


@dataclass(frozen=True)
class LoopFrame:
    """The outermost loop of the scope a step sits in: the names it assigns anywhere (its own targets
    and its nested loops' included) and those that count iterations (Python ints)."""
    varying: frozenset[str]
    counters: frozenset[str]


def loop_frame(loop: cst.CSTNode) -> LoopFrame:
    counters: set[str] = set()

    class _Counters(cst.CSTVisitor):
        def visit_For(self, node: cst.For) -> None:
            it = node.iter
            if not (isinstance(it, cst.Call) and isinstance(it.func, cst.Name)):
                return
            if it.func.value == "range":
                _collect(node.target, counters)
            elif it.func.value == "enumerate" and isinstance(node.target, cst.Tuple) and node.target.elements:
                _collect(node.target.elements[0].value, counters)

    loop.visit(_Counters())
    return LoopFrame(frozenset(assigned_names(loop)), frozenset(counters))


def forward_params(statements: list[cst.BaseStatement], carried: list[str], frame: LoopFrame) -> list[str]:
    """The hoisted forward's parameters: the names it reads before assigning them that a loop carries
    (carried), then every other name it reads first that the loop assigns, in reading order."""
    params = list(carried)
    bound: set[str] = set()
    for stmt in statements:
        for name in sorted(_free_reads(stmt) - bound):
            if name in frame.varying and name not in params:
                params.append(name)
        bound |= definite_writes(stmt)
    return params


def jit_blocker(statements: list[cst.BaseStatement], params: list[str], frame: LoopFrame) -> str:
    """Why the step must stay uncompiled (PyNative), or '' when it may be compiled as a graph."""
    counters = [p for p in params if p in frame.counters]
    if counters:
        return f"the forward reads the loop counter {counters[0]} (a compiled step would recompile for each value)"
    reason = ""

    class _Scan(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            nonlocal reason
            if reason:
                return False
            if isinstance(node, cst.With):
                reason = "it holds a with statement"
            elif isinstance(node, (cst.If, cst.While, cst.Try, cst.IfExp)) and not _static_test(node):
                reason = "it branches in Python"
            elif isinstance(node, (cst.Raise, cst.Assert, cst.Global, cst.Nonlocal, cst.Lambda)):
                reason = f"it holds a {type(node).__name__.lower()} statement"
            elif isinstance(node, cst.For) and not _range_loop(node):
                reason = "it loops over something other than range()"
            elif isinstance(node, cst.Call):
                func = node.func
                if isinstance(func, cst.Attribute) and func.attr.value in HOST_METHODS:
                    reason = f"it reads a value back to Python (.{func.attr.value}())"
                elif isinstance(func, cst.Name) and func.value in HOST_FUNCTIONS:
                    reason = f"it calls {func.value}()"
                elif _root(func) in HOST_MODULES:
                    reason = f"it calls {code(func)} (run once, at compile time)"
            return not reason

    for stmt in statements:
        stmt.visit(_Scan())
        if reason:
            return reason
    return ""


def _static_test(node: cst.CSTNode) -> bool:
    """A conditional the converter itself writes around a label (`y if y.is_floating_point() else
    y.astype(...)`): decided by the dtype, which a compiled graph knows."""
    if not isinstance(node, cst.IfExp):
        return False
    test = node.test
    return isinstance(test, cst.Call) and isinstance(test.func, cst.Attribute) \
        and test.func.attr.value == "is_floating_point"


def _range_loop(node: cst.For) -> bool:
    it = node.iter
    return isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "range"


def _root(func: cst.BaseExpression) -> str:
    while isinstance(func, cst.Attribute):
        func = func.value
    return func.value if isinstance(func, cst.Name) else ""


def name_clash(ctx, statements: list[cst.BaseStatement]) -> str:
    """Why a graph over several networks could not be compiled: MindSpore names parameters inside their
    own network, and one graph refuses two parameters of the same name (D's and G's `0.weight`). Networks
    whose names got a prefix (one optimizer over both) are fine."""
    networks = clashing_networks(ctx, statements)
    if not networks:
        return ""
    return (f"it reads {' and '.join(networks)}, whose parameter names may coincide in one graph (MindSpore names "
            "them within each network)")


def clashing_networks(ctx, statements: list[cst.BaseStatement]) -> list[str]:
    """The networks one graph over statements would read whose parameter names may coincide (none
    when fewer than two are unprefixed)."""
    networks = [n for n in _trained_networks(ctx, statements) if n not in ctx.prefixed]
    return networks if len(networks) >= 2 else []


def prefix_names(ctx, statements: list[cst.BaseStatement]) -> list[str]:
    """Statements giving each clashing network's parameter names its variable as prefix, written before
    the step (a GAN's step reads G and D, both `0.weight`...): one graph then holds both, as PyTorch's
    would under a module holding both. [] when a name is no plain variable or attribute path."""
    networks = clashing_networks(ctx, statements)
    if not all(all(part.isidentifier() for part in n.split(".")) for n in networks):
        return []
    ctx.prefixed.update(networks)
    return [f'{n}.update_parameters_name("{n.split(".")[-1]}.")' for n in networks]


def _trained_networks(ctx, statements: list[cst.BaseStatement]) -> list[str]:
    known = [*ctx.optimizer_models.values(), *(n for names in ctx.optimizer_networks.values() for n in names)]
    reads = read_names(statements)
    return sorted({n for n in known if n.split(".")[0] in reads})


def networks_built_in(ctx, params: list[str]) -> list[str]:
    """The parameters that are networks the file trains (built inside the loop, as a fold's fresh model)."""
    known = {*ctx.optimizer_models.values(), *(n for names in ctx.optimizer_networks.values() for n in names)}
    return [p for p in params if p in known]


def modes_argument(ctx, statements: list[cst.BaseStatement]) -> str:
    """`(model.training,)` for the networks the file trains that the forward reads, '' when none is
    known. A compiled graph keeps the training mode its networks had when it was compiled (Dropout and
    BatchNorm compiled in), so the step takes their modes as an argument: a network switched by
    eval()/set_train(False) between epochs makes the step compile a graph for that mode."""
    networks = _trained_networks(ctx, statements)
    if not networks:
        return ""
    return f"({networks[0]}.training,)" if len(networks) == 1 else f"({', '.join(f'{n}.training' for n in networks)})"


def unique(name: str, taken: set[str]) -> str:
    """name, or name2, name3... when the file already uses it."""
    if name not in taken:
        taken.add(name)
        return name
    n = 2
    while f"{name}{n}" in taken:
        n += 1
    taken.add(f"{name}{n}")
    return f"{name}{n}"
