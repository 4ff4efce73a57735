"""Modern training-script APIs: mixed precision (autocast, GradScaler), activation checkpointing and
the distributed set-up (DDP, process groups).

MindSpore has no autocast context: a converted script computes in float32, the precision autocast
approximates, so an autocast context becomes contextlib.nullcontext() (a `with` on it directly is
unwrapped) and the change says how to get mixed precision back (mindspore.amp.auto_mixed_precision on
the network). With float32 compute a GradScaler changes nothing: it multiplies the loss by a power of
two and divides the gradients by it again (exact in float32), and skips a step only on inf/nan
gradients. So before the walk, prepare() reduces a scaler used only in the usual way to the plain
step: `scaler.scale(loss).backward()` -> `loss.backward()`, `scaler.step(opt)` -> `opt.step()`,
`scaler.unscale_(opt)`, `scaler.update()` and the scaler's construction removed. A scaler used any
other way (state_dict, get_scale ...), or in a file that casts to float16 (`.half()`,
`.to(torch.float16)`) unless built with enabled=False, stays, marked.

prepare() also notes gradient accumulation (backward() in a loop whose step() comes after it), so
that the mark on it says what to write instead of the generic one.
"""
from __future__ import annotations

import ast

import libcst as cst

from ..core import rules
from ..core.names import code, resolve
from . import accumulation, grouplr, inert, paramgroups
from .inert import AUTOCAST

SCALERS = frozenset({"torch.cuda.amp.GradScaler", "torch.amp.GradScaler", "torch.cpu.amp.GradScaler",
                     "torch.amp.grad_scaler.GradScaler"})
HALF = frozenset({"torch.float16", "torch.half"})
CHECKPOINTS = frozenset({"torch.utils.checkpoint.checkpoint"})
DDP = frozenset({"torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.distributed.DistributedDataParallel"})

AUTOCAST_NOTE = ("MindSpore has no mixed-precision context, the code runs in float32; for mixed precision wrap "
                 "the network once with mindspore.amp.auto_mixed_precision(net, 'auto', dtype=...)")
SCALER_NOTE = ("GradScaler removed: the converted code computes in float32 (autocast has no MindSpore "
               "context), where scaling the loss and unscaling the gradients by a power of two changes "
               "nothing; in float16 use mindspore.amp.DynamicLossScaler (scale the loss in the forward, "
               "unscale the grads, skip the step unless mindspore.amp.all_finite(grads))")
SCALER_MARK = ("a GradScaler used beyond scale(loss).backward()/unscale_/step/update: with mindspore.amp."
               "DynamicLossScaler(scale_value, 2, window) scale the loss inside the forward function, then "
               "grads = scaler.unscale(grads), finite = mindspore.amp.all_finite(grads), scaler.adjust(finite), "
               "and apply optimizer(grads) only when finite")
ACCUMULATION = ("gradient accumulation: MindSpore keeps no gradients between backward() calls. In the loop, "
                "compute loss, grads = grad_fn(...) (mindspore.value_and_grad over {opt}.parameters) and add "
                "them up (acc = grads if acc is None else tuple(a + g for a, g in zip(acc, grads))); after "
                "the loop clip acc (ops.clip_by_norm(acc, max_norm)) and apply {opt}(acc)")
DDP_MARK = ("MindSpore has no DDP wrapper: after mindspore.communication.init() call "
            "mindspore.set_auto_parallel_context(parallel_mode=mindspore.ParallelMode.DATA_PARALLEL, "
            "gradients_mean=True), keep the network itself (x.module -> x), and in a value_and_grad step "
            "average the grads with mindspore.nn.DistributedGradReducer(optimizer.parameters)")


def prepare(ctx, module: cst.Module, source: str) -> cst.Module:
    """The module with plainly used GradScalers reduced to the plain step (see the module docstring);
    ctx.dropped gets the statements the walk removes, ctx.step_notes the accumulation marks. Each pass
    runs only when the source holds what it looks for (a libcst visit costs as much as the walk)."""
    tree = ctx.outline.tree if ctx.outline is not None else None  # the stdlib ast the outline parsed
    scalers: set[str] = set()
    if "GradScaler" in source:
        scan = _Scan(ctx.aliases)
        module.visit(scan)
        scalers = {name for name in scan.scalers if name not in scan.other_uses
                   and (not scan.half or name in scan.disabled)}
        if scalers:
            module = module.visit(_Reduce(scalers))
            ctx.outline = None  # statements differ from the source text: no verbatim copies
            module.visit(_Drops(ctx, scalers))
        else:
            scalers = set()
        ctx.optimizer_names.update(o for s, o in scan.stepped if s in scalers)
    if "backward" in source and accumulation.maybe(source, tree):
        accumulation.plan(ctx, module)
        module.visit(_Accumulation(ctx, scalers))
    if "named_parameters" in source or "configure_optimizers" in source:
        paramgroups.plan(ctx, module, source, tree)
    if "param_groups" in source:
        grouplr.plan(ctx, tree if tree is not None else _parse(source))
        if ctx.group_lr_only and ctx.group_names:
            ctx.outline = None  # `g['lr'] = lr` holds no torch: the walk must visit it
    if "autocast" in source:
        module.visit(_Decorators(ctx))
    if ("nullcontext" in source or "autocast" in source) and "backward" in source:
        inert.plan(ctx, tree if tree is not None else _parse(source))  # `with ctx:` a compiled forward drops
    return module


class StatementsOnly:
    """Mixin for visitors and transformers that act on statements and blocks only: they do not descend
    into expressions or simple statements (a full libcst visit costs as much as the conversion's walk)."""

    def on_visit(self, node: cst.CSTNode) -> bool:
        go = super().on_visit(node)
        return go and not isinstance(node, (cst.SimpleStatementLine, cst.BaseExpression, cst.Decorator))


class _Scan(cst.CSTVisitor):
    """Names bound to GradScalers, the uses of them prepare() cannot reduce, and the optimizers stepped."""

    def __init__(self, aliases: dict[str, str]) -> None:
        self.aliases = aliases
        self.scalers: set[str] = set()
        self.other_uses: set[str] = set()
        self.stepped: list[tuple[str, str]] = []
        self.allowed: set[int] = set()  # Name nodes of reducible uses
        self.half = False
        self.disabled: set[str] = set()  # scalers built with enabled=False: no-ops whatever the precision

    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Call) and resolve(node.value.func, self.aliases) in SCALERS:
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self.scalers.add(target.target.value)
                    if any(a.keyword is not None and a.keyword.value == "enabled" and code(a.value) == "False"
                           for a in node.value.args):
                        self.disabled.add(target.target.value)
                    self.allowed.add(id(target.target))
                else:
                    self.other_uses.add(code(target.target))

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        shape = _scaler_call(node)
        if shape is not None:
            name, method, call = shape
            self.allowed.add(id(call_receiver(call)))
            if method == "step":
                self.stepped.append((name, code(call.args[0].value)))

    def visit_Call(self, node: cst.Call) -> None:
        """`.half()`, `.to(torch.float16)`: the converted code would compute in float16, where a scaler
        matters (a dtype passed only to autocast does not count: autocast becomes float32)."""
        if not isinstance(node.func, cst.Attribute):
            return
        method = node.func.attr.value
        if method == "half" or (method == "to" and any(resolve(a.value, self.aliases) in HALF for a in node.args)):
            self.half = True

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self.allowed:
            self.other_uses.add(node.value)


def call_receiver(call: cst.Call) -> cst.CSTNode:
    """The scaler's Name in `S.m(...)` or `S.scale(x).backward()`."""
    func = call.func
    inner = func.value
    if isinstance(inner, cst.Call):
        return inner.func.value
    return inner


def _scaler_call(stmt: cst.CSTNode):
    """(scaler, method, call) when stmt is one of `S.scale(x).backward(...)`, `S.step(opt)`,
    `S.unscale_(opt)`, `S.update()` with S a plain name, else None."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1 or type(stmt.body[0]) is not cst.Expr:
        return None
    call = stmt.body[0].value
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
        return None
    method, receiver = call.func.attr.value, call.func.value
    if method == "backward" and isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Attribute) \
            and receiver.func.attr.value == "scale" and isinstance(receiver.func.value, cst.Name) \
            and len(receiver.args) == 1 and receiver.args[0].keyword is None and not receiver.args[0].star:
        return receiver.func.value.value, "scale", call
    if not isinstance(receiver, cst.Name):
        return None
    plain = all(a.keyword is None and not a.star for a in call.args)
    if method in ("step", "unscale_") and len(call.args) == 1 and plain:
        return receiver.value, method, call
    if method == "update" and not call.args:
        return receiver.value, method, call
    return None


class _Reduce(StatementsOnly, cst.CSTTransformer):
    """`S.scale(x).backward()` -> `x.backward()`, `S.step(opt)` -> `opt.step()` (same line, comments kept)."""

    def __init__(self, scalers: set[str]) -> None:
        super().__init__()
        self.scalers = scalers

    def leave_SimpleStatementLine(self, original, updated):
        shape = _scaler_call(original)
        if shape is None or shape[0] not in self.scalers:
            return updated
        name, method, call = shape
        if method == "scale":
            loss = call.func.value.args[0].value
            if not isinstance(loss, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
                loss = loss.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            new = call.with_changes(func=call.func.with_changes(value=loss))
        elif method == "step":
            new = cst.Call(func=cst.Attribute(value=call.args[0].value, attr=cst.Name("step")))
        else:
            return updated
        return updated.with_changes(body=[updated.body[0].with_changes(value=new)])


class _Drops(StatementsOnly, cst.CSTVisitor):
    """The scaler statements the walk removes: its construction, unscale_() and update()."""

    def __init__(self, ctx, scalers: set[str]) -> None:
        self.ctx, self.scalers = ctx, scalers

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        shape = _scaler_call(node)
        if shape is not None and shape[0] in self.scalers and shape[1] in ("unscale_", "update"):
            self.ctx.dropped[id(node)] = (rules.AMP_SCALER, f"torch.amp.GradScaler.{shape[1]}", SCALER_NOTE)
        small = node.body[0] if len(node.body) == 1 else None
        if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call) \
                and resolve(small.value.func, self.ctx.aliases) in SCALERS \
                and all(isinstance(t.target, cst.Name) and t.target.value in self.scalers for t in small.targets):
            self.ctx.dropped[id(node)] = (rules.AMP_SCALER, resolve(small.value.func, self.ctx.aliases), SCALER_NOTE)


class _Accumulation(StatementsOnly, cst.CSTVisitor):
    """backward() inside a loop body that holds no step(), with `opt.step()` (or `scaler.step(opt)`) after
    the loop in the same block: the backward and that step get the accumulation mark."""

    def __init__(self, ctx, scalers: set[str]) -> None:
        self.ctx, self.scalers = ctx, scalers

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._block(node.body)

    def visit_Module(self, node: cst.Module) -> None:
        self._block(node.body)

    def _block(self, body) -> None:
        for index, stmt in enumerate(body):
            if not isinstance(stmt, (cst.For, cst.While)):
                continue
            backs = [c for c in _calls(stmt.body) if _method(c) == "backward"]
            if not backs or any(_method(c) == "step" for c in _calls(stmt.body)):
                continue
            steps = [c for s in body[index + 1:] for c in _calls(s) if _method(c) == "step"]
            if not steps:
                continue
            opt = code(steps[0].func.value)
            note = ACCUMULATION.format(opt=opt)
            for call in (*backs, steps[0]):
                self.ctx.step_notes[id(call)] = note


class _Decorators(StatementsOnly, cst.CSTVisitor):
    """`@torch.autocast(...)` decorators: dropped with the function's other torch decorators."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx

    def visit_Decorator(self, node: cst.Decorator) -> None:
        if isinstance(node.decorator, cst.Call) and resolve(node.decorator.func, self.ctx.aliases) in AUTOCAST:
            self.ctx.autocast_decorators.add(id(node.decorator))


def _method(call: cst.Call) -> str | None:
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else None


def _calls(node) -> list[cst.Call]:
    found: list[cst.Call] = []

    class _Find(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            found.append(call)

        def visit_FunctionDef(self, n) -> bool:
            return False

    for part in ([node] if isinstance(node, cst.CSTNode) else node):
        part.visit(_Find())
    return found


# -- calls ----------------------------------------------------------------------------------------
def autocast(ctx, original: cst.Call, updated: cst.Call, qualified: str, entry):
    if id(original) in ctx.autocast_decorators:
        return updated.with_changes()  # the definition drops the decorator (cells.leave_FunctionDef): torch not kept
    ctx.change(original, rules.AMP_AUTOCAST, qualified, "", f"autocast -> contextlib.nullcontext(): {AUTOCAST_NOTE}")
    return cst.Call(func=cst.parse_expression(ctx.ms("contextlib.nullcontext")))


def scaler(ctx, original: cst.Call, updated: cst.Call, qualified: str, entry):
    ctx.mark(original, rules.AMP_SCALER, qualified, SCALER_MARK)
    return updated


def ddp(ctx, original: cst.Call, updated: cst.Call, qualified: str, entry):
    ctx.mark(original, rules.DIST_DDP, qualified, DDP_MARK)
    return updated


def release(ctx, original: cst.Call, updated: cst.Call, qualified: str, entry):
    """destroy_process_group() -> mindspore.communication.release(): both tear down the default group."""
    if updated.args:
        ctx.mark(original, rules.DIST_INIT, qualified, "a group argument: destroy it with "
                 "mindspore.communication.destroy_group(name)")
        return updated
    target = "mindspore.communication.release"
    ctx.change(original, rules.DIST_INIT, qualified, target, f"{qualified}() -> {target}()")
    return cst.Call(func=ctx.ms_expr(target))


def init_group(ctx, original: cst.Call, updated: cst.Call, qualified: str, entry):
    """init_process_group(backend) -> mindspore.communication.init(): MindSpore chooses the backend from
    the device (nccl on GPU, hccl on Ascend, mccl on CPU; 'gloo' does not exist there) and takes ranks
    and the rendezvous from its launcher (msrun), as torch does from torchrun's environment."""
    names = ("backend", "init_method", "timeout", "world_size", "rank", "store", "group_name")
    given = [a.keyword.value if a.keyword else (names[i] if i < len(names) else "*") for i, a in enumerate(updated.args)]
    explicit = [n for n in given if n not in ("backend", "timeout")]
    if explicit:
        ctx.mark(original, rules.DIST_INIT, qualified, f"{', '.join(explicit)} given here: MindSpore's "
                 "communication.init() takes ranks and the rendezvous from its launcher (msrun --worker_num=N "
                 "--local_worker_num=N train.py); call init() and read get_rank()/get_group_size()")
        return updated
    target = "mindspore.communication.init"
    ctx.change(original, rules.DIST_INIT, qualified, target, f"{qualified}(...) -> {target}() (the backend follows "
               "the device; launch with msrun instead of torchrun) [review]")
    return cst.Call(func=ctx.ms_expr(target))


def world_size(ctx, original: cst.Call, updated: cst.Call, qualified: str, entry):
    target = "mindspore.communication.get_group_size"
    if updated.args:
        ctx.mark(original, rules.DIST_INIT, qualified, f"a group argument: {target}(group_name)")
        return updated
    ctx.change(original, rules.DIST_INIT, qualified, target, f"{qualified}() -> {target}()")
    return cst.Call(func=ctx.ms_expr(target))


def distributed_sampler(ctx, original: cst.Call, updated: cst.Call, qualified: str, entry):
    ctx.mark(original, rules.SAMPLER, qualified, "MindSpore shards a dataset itself: drop the sampler and pass "
             "num_shards=get_group_size(), shard_id=get_rank() (and shuffle=) to the dataset "
             "(GeneratorDataset(..., num_shards=, shard_id=)); it reshuffles every epoch, so set_epoch() goes; "
             "the shards hold other samples than torch's")
    return updated


def checkpoint(ctx, original: cst.Call, updated: cst.Call, qualified: str, entry):
    """checkpoint(fn, *args) -> fn(*args): checkpointing trades memory for recomputation, the values are
    the same (for recomputation in MindSpore call cell.recompute() on the cell)."""
    positional = [a for a in updated.args if a.keyword is None]
    keywords = [a for a in updated.args if a.keyword is not None]
    if not positional or positional[0].star:
        ctx.mark(original, rules.API_DIFF, qualified, "pass the function first: checkpoint(fn, *args) -> fn(*args)")
        return updated
    passed = [a for a in keywords if a.keyword.value not in ("use_reentrant", "preserve_rng_state", "determinism_check",
                                                              "debug")]
    if any(a.keyword.value == "context_fn" for a in passed):
        ctx.mark(original, rules.API_DIFF, qualified, "context_fn= has no MindSpore counterpart: call the function "
                 "directly")
        return updated
    args = [*positional[1:], *passed]
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    fn = positional[0].value
    if not isinstance(fn, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        fn = fn.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    ctx.change(original, rules.API_ARGS, qualified, "", "checkpoint(fn, *args) -> fn(*args): the same values "
               "without recomputation (MindSpore recomputes a cell after cell.recompute())")
    return cst.Call(func=fn, args=args)


HANDLERS = {
    **{name: autocast for name in AUTOCAST},
    **{name: scaler for name in SCALERS},
    **{name: ddp for name in DDP},
    **{name: checkpoint for name in CHECKPOINTS},
    "torch.distributed.destroy_process_group": release,
    "torch.distributed.init_process_group": init_group,
    "torch.distributed.get_world_size": world_size,
    "torch.utils.data.distributed.DistributedSampler": distributed_sampler,
    "torch.utils.data.DistributedSampler": distributed_sampler,
}


def _parse(source: str):
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
