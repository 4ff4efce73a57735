"""Optimizers, LR schedulers and the training step.

PyTorch accumulates gradients on tensors (zero_grad / backward / step);
MindSpore computes them functionally. The step

    optimizer.zero_grad(); loss = loss_fn(model(x), y); loss.backward(); optimizer.step()

becomes a forward function, mindspore.value_and_grad over the optimizer's
parameters, and optimizer(grads). Gradient clipping between backward() and
step() becomes an operation on those grads. A backward()/step()/zero_grad()
no such rewrite takes is marked: MindSpore keeps no gradients on parameters.
Optimizers go to mindspore.experimental.optim, whose classes keep PyTorch's
update rules, arguments and step() protocol, except SGD and Adam, whose classic
mindspore.nn classes compute the same steps; those go experimental too when the
file builds LR schedulers (mindspore.experimental.optim.lr_scheduler needs them) or
uses param_groups (the classic classes have none).
"""
from __future__ import annotations

import ast

import libcst as cst

from analysis.knowledge.mapping import ApiEntry

from ..apis.signatures import HARMLESS_DROPS, kwarg
from ..core import astwalk, rules
from ..core.context import ConversionContext
from ..core.layout import relayout, same_line
from ..core.names import code, resolve
from ..core.result import Change
from ..support import helpers
from ..apis import host_draws, loop_draws
from . import hoist, inert
from .steps import (STEP_METHODS, _free_reads, assigned_names, definite_writes, expr_call, is_zero_grad, plan_steps,
                    read_counts, read_names, split_region)

# PyTorch optimizer keyword -> classic mindspore.nn optimizer keyword.
OPTIMIZER_ARGS = {"lr": "learning_rate", "amsgrad": "use_amsgrad"}
OPTIMIZER_DEFAULT_LR = {"SGD": "0.001", "Adam": "0.001"}
# Optimizers whose classic mindspore.nn class updates weights as PyTorch's does (checked over training
# steps: tests/convert/corpus/semantic/optim_*). The others go to mindspore.experimental.optim, whose
# classes keep PyTorch's update rule, arguments and defaults: nn.AdamWeightDecay has no bias
# correction, nn.Adagrad starts its accumulator at 0.1 and has no eps, nn.Adadelta names eps epsilon,
# nn.Rprop and nn.ASGD default to another learning rate.
CLASSIC_FAITHFUL = frozenset({"SGD", "Adam"})
# experimental classes written as the support module's subclass whose CPU update is one fused kernel per
# parameter (MindSpore spends about 20 us on each kernel on CPU, whatever its size): helper_speed.py
FUSED_UPDATES = {"AdamW": "AdamW"}
ADAM_EPS_NOTE = ("review: MindSpore's Adam classes add eps to the uncorrected second moment's root, so a "
                 "non-negligible eps changes the steps; without weight_decay, PyTorch's Adam is "
                 "mindspore.experimental.optim.AdamW(..., weight_decay=0.0)")


def optimizer(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    name = qualified.rsplit(".", 1)[1]
    _prefix_parameter_names(ctx, original, qualified)
    experimental = f"mindspore.experimental.optim.{name}"
    note = f"; {ADAM_EPS_NOTE}" if name == "Adam" and _eps_changed(updated) else ""
    python_lr = ctx.uses_scheduler or ctx.uses_param_groups
    if entry is not None and experimental in entry.mindspore and (python_lr or name not in CLASSIC_FAITHFUL):
        why = "PyTorch's update rule and defaults" if name not in CLASSIC_FAITHFUL \
            else "works with its LR schedulers" if ctx.uses_scheduler \
            else "keeps PyTorch's param_groups, whose lr this file changes"
        args, dropped, refused = _experimental_args(updated, entry)
        if refused:
            ctx.mark(original, rules.OPTIMIZER, qualified, refused)
            return updated
        if name in FUSED_UPDATES:  # the experimental class with a fused CPU update (support/helper_speed.py)
            local = helpers.use(ctx, FUSED_UPDATES[name])
            # recorded as the experimental class it subclasses: the analyzer's finding names that class too
            ctx.change(original, rules.OPTIMIZER, qualified, experimental,
                       f"{qualified} -> {local}, {helpers.where(ctx, 'a subclass of ' + experimental)} (same "
                       f"arguments{''.join(f', dropped {k}=' for k in dropped)}; {why}; float32 parameters on CPU "
                       "updated by one fused kernel each, the same steps)")
            return relayout(updated, updated.with_changes(func=cst.Name(local), args=args))
        ctx.change(original, rules.OPTIMIZER, qualified, experimental,
                   f"{qualified} -> {experimental} (same arguments"
                   f"{''.join(f', dropped {k}=' for k in dropped)}; {why}{note})")
        return relayout(updated, updated.with_changes(func=ctx.ms_expr(experimental), args=args))
    classic = next((m for m in (entry.mindspore if entry else ()) if m.startswith("mindspore.nn.")), "")
    if not classic:
        ctx.mark(original, rules.OPTIMIZER_UNSUPPORTED, qualified, f"no MindSpore optimizer is mapped for {qualified}")
        return updated
    args: list[cst.Arg] = []
    passed = set()
    for index, arg in enumerate(updated.args):
        key = arg.keyword.value if arg.keyword else ("params", "lr")[index] if index < 2 else None
        if key is None:
            ctx.mark(original, rules.OPTIMIZER, qualified, "pass the optimizer's options by keyword")
            return updated
        passed.add(key)
        # each argument keeps its comma and line break (and a comment after it)
        if key == "params":
            args.append(arg.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT) if arg.keyword else arg)
        elif key == "betas":
            if not (isinstance(arg.value, cst.Tuple) and len(arg.value.elements) == 2):
                ctx.mark(original, rules.API_DIFF, qualified, "betas from a variable: pass beta1= and beta2=")
                return updated
            args += [same_line(kwarg("beta1", arg.value.elements[0].value)),
                     _renamed(arg, "beta2", arg.value.elements[1].value)]
        else:
            args.append(_renamed(arg, OPTIMIZER_ARGS.get(key, key), arg.value))
    if "lr" not in passed and name in OPTIMIZER_DEFAULT_LR:
        args.append(kwarg("learning_rate", OPTIMIZER_DEFAULT_LR[name]))
    if args and isinstance(args[-1].comma, cst.Comma) and not isinstance(args[-1].comma.whitespace_after,
                                                                         cst.ParenthesizedWhitespace):
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    ctx.change(original, rules.OPTIMIZER, qualified, classic,
               f"{qualified} -> {classic} (lr -> learning_rate; parameters() -> trainable_params(){note})")
    if ctx.uses_param_groups:  # MindSpore has no experimental class for it: the file's param_groups use fails
        ctx.caution(original, rules.OPTIMIZER_GROUPS, qualified,
                    f"{classic} has no param_groups, which this file uses: change its learning rate with a "
                    "schedule passed as learning_rate (a list of values per step or a "
                    "mindspore.nn.LearningRateSchedule), or set optimizer.learning_rate.set_data(value)")
    return updated.with_changes(func=ctx.ms_expr(classic), args=args)


def _prefix_parameter_names(ctx: ConversionContext, original: cst.Call, qualified: str) -> None:
    """An optimizer over the parameters of several networks (`list(encoder.parameters()) +
    list(decoder.parameters())`): MindSpore names a parameter by its path inside its own network, so two
    networks with an `embedding` layer each give two `embedding.embedding_table`, which an optimizer
    refuses. Each network's names get its variable as prefix first (update_parameters_name), as PyTorch's
    would have under a module holding both."""
    params = next((a.value for a in original.args if a.keyword is None or a.keyword.value == "params"), None)
    owners = [o for o in _parameters_owners(params) if o != "self"] if params is not None else []
    if isinstance(params, cst.Name) and not owners:  # params = list(a.parameters()) + list(b.parameters())
        owners = list(_networks_of(ctx, params))
    if len(owners) < 2 or not ctx.statements or not all(dotted_name(o) for o in owners):
        return
    statement = ctx.statements[-1][0]
    lines = [cst.parse_statement(f'{o}.update_parameters_name("{o.split(".")[-1]}.")') for o in owners]
    ctx.before_statement.setdefault(id(statement), []).extend(lines)
    ctx.prefixed.update(owners)
    ctx.change(original, rules.OPTIMIZER, qualified, "mindspore.nn.Cell.update_parameters_name",
               f"parameter names of {', '.join(owners)} prefixed with each network's name before the optimizer "
               "gathers them (MindSpore names parameters within their own network; an optimizer refuses two of "
               "the same name); checkpoints saved from these networks carry the prefix")


def dotted_name(text: str) -> bool:
    return all(part.isidentifier() for part in text.split("."))


def _experimental_args(call: cst.Call, entry: ApiEntry) -> tuple[list[cst.Arg], list[str], str]:
    """The call's arguments for the experimental class, the keywords dropped, and why it was refused:
    PyTorch-only implementation switches (foreach=, fused= ...) go, other PyTorch-only options are
    refused unless they are off."""
    args, dropped = [], []
    for arg in call.args:
        row = entry.param(arg.keyword.value) if arg.keyword is not None else None
        if row is None or row.relation != "torch_only":
            args.append(arg)
        elif row.torch in HARMLESS_DROPS or code(arg.value).strip() in ("False", "None"):
            dropped.append(row.torch)
        else:
            return [], [], (f"{row.torch}={code(arg.value).strip()}: "
                            + (row.note or "MindSpore's optimizer has no such option"))
    if args and args[-1] is not call.args[-1]:
        args[-1] = args[-1].with_changes(comma=call.args[-1].comma)  # the dropped last one's ending stays
    return args, dropped, ""


def _renamed(arg: cst.Arg, keyword: str, value: cst.BaseExpression) -> cst.Arg:
    """arg as keyword=value, where it stood (its comma and the whitespace after it kept)."""
    return kwarg(keyword, value).with_changes(comma=arg.comma, whitespace_after_arg=arg.whitespace_after_arg)


def _eps_changed(call: cst.Call) -> bool:
    """Whether an Adam call passes an eps other than the default 1e-8 (by keyword: eps is its fourth)."""
    eps = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "eps"), None)
    if eps is None:
        return False
    value = _number(eps)
    return value is None or value != 1e-8


def scheduler(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    name = qualified.rsplit(".", 1)[1]
    experimental = f"mindspore.experimental.optim.lr_scheduler.{name}"
    if entry is not None and experimental in entry.mindspore:
        ctx.change(original, rules.LR_SCHEDULER, qualified, experimental,
                   f"{qualified} -> {experimental} (steps like PyTorch's; needs an experimental optimizer)")
        return updated.with_changes(func=ctx.ms_expr(experimental))
    rule = rules.LR_LAMBDA if name in ("LambdaLR", "MultiplicativeLR") else rules.LR_SCHEDULER
    ctx.mark(original, rule, qualified,
             "no step-compatible MindSpore scheduler: precompute a per-step learning-rate list "
             "(e.g. mindspore.nn.piecewise_constant_lr) and pass it as learning_rate")
    return updated


CLIP_NORM = ("torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_norm",
             "torch.nn.utils.clip_grad.clip_grad_norm_", "torch.nn.utils.clip_grad.clip_grad_norm")
CLIP_VALUE = ("torch.nn.utils.clip_grad_value_", "torch.nn.utils.clip_grad.clip_grad_value_")
CLIP_ARGS = {True: ("parameters", "max_norm", "norm_type", "error_if_nonfinite", "foreach"),
             False: ("parameters", "clip_value", "foreach")}
NO_STORED_GRADS = ("gradients come from mindspore.value_and_grad: wrap the loss computation in a forward "
                   "function, and apply the grads it returns with optimizer(grads)")


def note_step(ctx: ConversionContext, block: cst.Module | cst.IndentedBlock) -> None:
    """Before a block is converted: remember the calls its step rewrites will take (the others get a
    MIGRATE mark when they are left, see unplaced_call), the clipping calls inside them, and the
    zero_grad() statements (dropped: MindSpore keeps no gradients to clear)."""
    body = block.body
    for stmt in body:
        if is_zero_grad(stmt):
            ctx.step_calls.add(id(expr_call(stmt)))
            ctx.zero_grads.add(id(stmt))
    plans = plan_steps(body, ctx.optimizer_names)
    if not plans:
        return
    ctx.step_optimizers[id(block)] = tuple(o for p in plans for o in (p.opt, *p.others))  # the rewrite takes the same ones
    for plan in plans:
        for index in (plan.back, *range(plan.step, plan.last + 1)):
            ctx.step_calls.add(id(expr_call(body[index])))
        for index in range(plan.back + 1, plan.step):
            call = expr_call(body[index])
            if call is not None and resolve(call.func, ctx.aliases) in (*CLIP_NORM, *CLIP_VALUE):
                ctx.step_clips[id(call)] = plan.opt


def unplaced_call(ctx: ConversionContext, original: cst.Call) -> None:
    """Mark a backward()/step() call that no step rewrite takes (PyTorch's stored gradients do not
    exist in MindSpore, so leaving it silently would fail at run time)."""
    if id(original) in ctx.step_calls or not isinstance(original.func, cst.Attribute):
        return
    method = original.func.attr.value
    if method == "backward":
        ctx.mark(original, rules.TRAIN_LOOP, "torch.Tensor.backward",
                 NO_STORED_GRADS if ctx.optimizer_names else _standalone_backward(original))
    elif method == "zero_grad" or code(original.func.value) in ctx.optimizer_names:
        ctx.mark(original, rules.TRAIN_LOOP, f"torch.optim.Optimizer.{method}", NO_STORED_GRADS)


def _standalone_backward(call: cst.Call) -> str:
    """What to write for y.backward() where no optimizer takes the gradients (reading x.grad after it)."""
    target = code(call.func.value)
    seeded = any(a.keyword is None or a.keyword.value == "gradient" for a in call.args)
    how = ("_, vjp_fn = mindspore.vjp(f, x); vjp_fn(v) (one gradient per input)" if seeded else
           "mindspore.grad(f, grad_position=0)(x) (a tuple of positions for several inputs)")
    return (f"{target}.backward() has no MindSpore counterpart (no recorded graph, no .grad on tensors): write the "
            f"computation of {target} as a function f of the tensors whose .grad is read and take their gradients "
            f"with {how}; hooks on those tensors apply to the gradients it returns")


def note_optimizer(ctx: ConversionContext, assign: cst.Assign) -> None:
    """`opt = torch.optim.X(model.parameters(), ...)`: remember opt as an optimizer, the network it
    trains and the expression giving its parameters."""
    call = assign.value
    params = next((a.value for a in call.args if a.keyword is None or a.keyword.value == "params"), None)
    owners = _parameters_owners(params) if params is not None else []
    model = owners[0] if len(owners) == 1 else None
    # `list(encoder.parameters()) + list(decoder.parameters())` trains both networks
    networks = tuple(o for o in owners if o != "self") if len(owners) > 1 else \
        _networks_of(ctx, params) if isinstance(params, cst.Name) else ()
    kind = (resolve(call.func, ctx.aliases) or "").rsplit(".", 1)[-1]
    for target in assign.targets:
        name = code(target.target)
        ctx.optimizer_names.add(name)
        ctx.optimizer_kinds[name] = kind
        if model is not None:
            ctx.optimizer_models[name] = model
        elif networks:
            ctx.optimizer_networks[name] = networks
        if params is not None:
            ctx.optimizer_params[name] = code(params)


def _networks_of(ctx: ConversionContext, params: cst.Name) -> tuple[str, ...]:
    """The networks whose parameters a list gathers (`params = list(decoder.parameters()) +
    list(encoder.linear.parameters())` -> decoder, encoder): each whole network, as PyTorch puts every
    module of it in training mode, frozen parts included."""
    roots: list[str] = []
    for node in astwalk.nodes(ctx.tree) if ctx.tree is not None else ():
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == params.value for t in node.targets):
            for call in ast.walk(node.value):
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and not call.args \
                        and call.func.attr in ("parameters", "named_parameters"):
                    root = call.func.value
                    while isinstance(root, ast.Attribute):
                        root = root.value
                    if isinstance(root, ast.Name) and root.id not in roots and root.id != "self":
                        roots.append(root.id)
    return tuple(roots)


def _parameters_owner(node: cst.CSTNode) -> str | None:
    """X for the first `X.parameters()` call in node (list(...), filter(...) and the like included)."""
    found = _parameters_owners(node)
    return found[0] if found else None


def _parameters_owners(node: cst.CSTNode) -> list[str]:
    """X for every `X.parameters()` call in node, in order, each once."""
    found: list[str] = []

    class _Find(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> bool:
            if not call.args and isinstance(call.func, cst.Attribute) and call.func.attr.value == "parameters" \
                    and code(call.func.value) not in found:
                found.append(code(call.func.value))
            return True

    node.visit(_Find())
    return found


def mode_set_before(scope: cst.CSTNode, loop: cst.CSTNode) -> set[str]:
    """Receivers of the train()/eval()/set_train() calls that run in scope before loop starts (the
    code above it, outer loop bodies included; nested function and class bodies are not run there)."""
    found: set[str] = set()

    class _Find(cst.CSTVisitor):
        done = False

        def on_visit(self, node: cst.CSTNode) -> bool:
            if self.done or node is loop:
                self.done = True
                return False
            if node is not scope and isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return False
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                    and node.func.attr.value in ("train", "eval", "set_train"):
                found.add(code(node.func.value))
            return True

    scope.visit(_Find())
    return found


def clip(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    """clip_grad_norm_/clip_grad_value_ between backward() and step(): the step rewrite puts an
    operation on the grads tuple in its place; anywhere else it is marked."""
    norm = qualified in CLIP_NORM
    names = CLIP_ARGS[norm]
    args: dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(original.args):
        key = arg.keyword.value if arg.keyword else (names[index] if index < len(names) and not arg.star else "*")
        args[key] = arg.value
    opt = ctx.step_clips.get(id(original))
    limit = args.get("max_norm" if norm else "clip_value")
    ops = "ops.clip_by_norm(grads, max_norm)" if norm else "ops.clip_by_value(grads, -clip_value, clip_value)"
    reason = ""
    if opt is None:
        reason = ("clipping acts on the gradients stored on parameters, which MindSpore does not keep: "
                  f"clip the grads value_and_grad returns with grads = {ops} before optimizer(grads)")
    elif limit is None or "*" in args or set(args) - set(names):
        reason = f"pass the parameters and the limit plainly, then write grads = {ops} before optimizer(grads)"
    elif not _same_parameters(ctx, opt, args.get("parameters")):
        reason = (f"these are not the parameters {opt} updates: clip the matching entries of the grads "
                  "value_and_grad returns")
    elif norm and "norm_type" in args and _number(args["norm_type"]) != 2.0:
        reason = ("ops.clip_by_norm matches PyTorch for the 2-norm only: compute this norm over the grads "
                  "by hand and scale them")
    elif norm and "error_if_nonfinite" in args and code(args["error_if_nonfinite"]) != "False":
        reason = "check the gradient norm for inf/nan yourself (ops.clip_by_norm does not raise)"
    if reason:
        ctx.mark(original, rules.GRAD_CLIP, qualified, reason)
        return updated
    ops_name = ctx.ms("mindspore.ops")
    if norm:
        statement = f"grads = {ops_name}.clip_by_norm(grads, {code(limit)})"
        target = "mindspore.ops.clip_by_norm"
    else:
        text = code(limit)
        if _number(limit) is not None:
            low = text[1:] if text.startswith("-") else f"-{text}"
        else:
            low = f"-{text}" if isinstance(limit, (cst.Name, cst.Attribute)) else f"-({text})"
        statement = f"grads = {ops_name}.clip_by_value(grads, {low}, {code(limit)})"
        target = "mindspore.ops.clip_by_value"
    new = updated.with_changes()  # a new node: the step rewrite finds it by identity
    ctx.clip_rewrites[id(new)] = statement
    _forget_changes_within(ctx, original)
    ctx.change(original, rules.GRAD_CLIP, qualified, target,
               f"{qualified} -> {statement} (on the grads value_and_grad returns)")
    return new


def _forget_changes_within(ctx: ConversionContext, call: cst.Call) -> None:
    """Drop the change records of code inside call (model.parameters() -> trainable_params()):
    the step rewrite replaces the whole statement, so they describe code the output does not have."""
    inside: set[int] = set()

    class _Nodes(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            inside.add(id(node))
            return True

    for arg in call.args:
        arg.visit(_Nodes())
    gone = {id(record) for record, node, _ in ctx.located if id(node) in inside and isinstance(record, Change)}
    if gone:
        ctx.located[:] = [item for item in ctx.located if id(item[0]) not in gone]
        ctx.changes[:] = [record for record in ctx.changes if id(record) not in gone]


def _same_parameters(ctx: ConversionContext, opt: str, params: cst.BaseExpression | None) -> bool:
    """Whether params are the optimizer's own parameters (as far as the file shows)."""
    if params is None:
        return False
    if code(params) == ctx.optimizer_params.get(opt):
        return True
    owner = _parameters_owner(params) if isinstance(params, cst.Call) and isinstance(params.func, cst.Attribute) \
        and params.func.attr.value == "parameters" else None
    if owner is None:
        return False
    return ctx.optimizer_models.get(opt, owner) == owner


def _number(node: cst.BaseExpression) -> float | None:
    if isinstance(node, (cst.Integer, cst.Float)):
        return float(node.evaluated_value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = _number(node.expression)
        return None if inner is None else -inner
    return None


def rewrite_step(ctx: ConversionContext, original: cst.CSTNode, block, scope: cst.CSTNode | None = None,
                 loop: bool = False, frame: hoist.LoopFrame | None = None):
    """Rewrite the backward()/step() pairs in a block (an indented block or the module) and drop its
    zero_grad() statements. scope: the enclosing function or module (the forward returns the names it
    assigns that are read there, outside the forward); loop: the block is a loop's body; frame: the
    scope's outermost loop around the block, before which the step's functions are written once
    (hoist.py; the statements go to ctx.hoisted[id(original)]). Returns the block and the optimizers it
    rewrote steps for."""
    body = [s for s in block.body if not _dropped_zero_grad(ctx, s)]
    if len(body) != len(block.body):
        for stmt in original.body:
            if id(stmt) in ctx.zero_grads:
                ctx.change(stmt, rules.TRAIN_LOOP, "torch.optim.Optimizer.zero_grad", "",
                           "zero_grad() removed: MindSpore keeps no gradients on parameters to clear")
    chosen = frozenset(ctx.step_optimizers.get(id(original), ()))
    plans = plan_steps(body, chosen)
    if not plans:
        return (block.with_changes(body=body) if len(body) != len(block.body) else block), ()
    scope_reads = read_counts([scope if scope is not None else original])
    vg = ctx.ms("mindspore.value_and_grad")
    # a file that trains runs its operators in order on CPU (helper_training.py: the launch queue's cost
    # at every value a step reads back)
    helpers.use(ctx, "synchronous_cpu_launch")
    new_body: list[cst.BaseStatement] = []
    done = 0
    kept = [s for s in original.body if id(s) not in ctx.zero_grads]
    originals = plan_steps(kept, chosen)
    log: list[tuple[set[str], cst.BaseStatement | None]] = []  # the block's writes in run order (forwards' statements)
    for n, plan in enumerate(plans):
        new_body += body[done:plan.lo]
        log += [(assigned_names(s), None) for s in body[done:plan.lo]]
        # names read outside this region: the scope's reads less the region's own (the scope is the
        # original code, the region converted code: torch names differ, the user's names do not)
        # the original region when it was planned alike: conversion can add reads (`labels` twice in a
        # cast), which would hide a read outside
        region = kept[originals[n].lo:originals[n].back] if n < len(originals) else body[plan.lo:plan.back]
        outside = scope_reads - read_counts(region)
        seg = split_region(body, plan, {k for k, v in outside.items() if v > 0}, loop, ctx.fetches_data)
        statements = [body[i] for i in seg.forward]
        log += [(assigned_names(body[i]), None) for i in seg.before]
        recomputed, stale = recompute(log, statements)
        if stale:
            ctx.caution(kept[originals[n].back] if n < len(originals) else original, rules.TRAIN_LOOP,
                        "torch.Tensor.backward",
                        f"{', '.join(sorted(stale))}, computed in an earlier step, carries no gradient into this "
                        f"one ({plan.loss}): compute it inside this step from inputs kept for it")
        statements = loop_draws.inside_graph(ctx, recomputed + statements)
        # `with ctx:` over nullcontext()/autocast: the step's statements without it (a graph takes no `with`)
        statements, contexts = inert.unwrap(ctx, statements) if frame is not None else (statements, [])
        log += [(assigned_names(s), s) for s in statements]
        log += [(assigned_names(body[i]), None) for i in (*seg.after, *range(plan.back + 1, plan.last + 1))]
        between = range(plan.back + 1, plan.step)
        opts = (plan.opt, *plan.others)
        # a gradient accumulation's micro-step: the compiled step returns the grads, the loop sums them
        accumulating = id(original) in ctx.accumulation
        hoisted = frame is not None and not set(opts) & frame.varying \
            and all(id(expr_call(body[i])) in ctx.clip_rewrites for i in between) \
            and not (accumulating and (len(opts) > 1 or plan.step != plan.back + 1))
        # a network the loop builds again (a fold's fresh model) would be an argument: the step stays in the loop
        if hoisted and not hoist.networks_built_in(ctx, hoist.forward_params(statements, seg.params, frame)):
            params_list = hoist.forward_params(statements, seg.params, frame)
            taken = ctx.step_names if ctx.step_names else ctx.step_names.update(_file_names(ctx)) or ctx.step_names
            name, grad_name, step_name = (hoist.unique(n_, taken) for n_ in ("forward_fn", "grad_fn", "train_step"))
        else:
            hoisted = False
            params_list = seg.params
            name, grad_name = ("forward_fn", "grad_fn") if n == 0 else (f"forward_fn{n + 1}", f"grad_fn{n + 1}")
        returned = ", ".join(seg.returned)
        params = ", ".join(params_list)
        lead = statements[0].leading_lines if statements else body[plan.back].leading_lines
        forward = cst.FunctionDef(
            name=cst.Name(name),
            params=cst.parse_expression(f"lambda {params}: 0").params,
            body=cst.IndentedBlock(body=[*statements, cst.parse_statement(f"return {returned}")]),
            leading_lines=[] if hoisted else lead,
        )
        if statements:
            forward = forward.with_changes(body=forward.body.with_changes(body=[
                statements[0].with_changes(leading_lines=[]), *forward.body.body[1:]]))
        has_aux = ", has_aux=True" if len(seg.returned) > 1 else ""
        outputs = f"({returned})" if len(seg.returned) > 1 else plan.loss
        new_body += [body[i] for i in seg.before]
        weights = " + ".join(f"{o}.parameters" for o in opts)
        grad_line = cst.parse_statement(f"{grad_name} = {vg}({name}, None, {weights}{has_aux})")
        applied = _apply_grads(opts)
        if hoisted:
            blocker = hoist.jit_blocker(statements, params_list, frame) or _python_state(ctx, opts)
            drawn = "" if blocker else host_draws.calls_host_draw(ctx, statements)
            blocker = blocker or (f"it calls {drawn}, which draws with numpy (run once, at compile time)" if drawn else "")
            # two networks' parameter names coinciding in one graph: prefixed first, the step compiles; so
            # are two optimizers' own (each holds a global_step, a learning_rate...)
            prefixes = [] if blocker else hoist.prefix_names(ctx, statements)
            blocker = blocker or hoist.name_clash(ctx, statements) or _state_clash(opts)
            prefixes += [] if blocker else _state_prefixes(ctx, opts)
            step = [f"{outputs}, grads = {grad_name}({params})"]
            if accumulating:
                step += [f"return {returned}, grads"]
            else:
                step += [ctx.clip_rewrites[id(expr_call(body[i]))] for i in between]
                step += [*applied, f"return {returned}"]
            # compiled as mindspore.jit would, at a tenth of its fixed cost per call (helper_training.py)
            decorator = "" if blocker else f"@{helpers.use(ctx, 'compiled_step')}\n"
            modes = "" if blocker else hoist.modes_argument(ctx, statements)
            step_params = ", ".join([*params_list, "training_modes"] if modes else params_list)
            call_args = ", ".join([*params_list, modes] if modes else params_list)
            step_def = cst.parse_statement(f"{decorator}def {step_name}({step_params}):\n"
                                           + "".join(f"    {line}\n" for line in step))
            ctx.hoisted.setdefault(id(original), []).extend(
                [*(cst.parse_statement(line) for line in prefixes), forward, grad_line, step_def])
            if accumulating:  # `opt(grads)` becomes the sum (accumulation.after_step)
                new_body.append(cst.parse_statement(f"{returned}, grads = {step_name}({call_args})")
                                .with_changes(leading_lines=lead))
                new_body += [body[i] for i in seg.after]
                new_body += [cst.parse_statement(line) for line in applied]
            else:
                new_body.append(cst.parse_statement(f"{returned} = {step_name}({call_args})").with_changes(leading_lines=lead))
                new_body += [body[i] for i in seg.after]
            done = plan.last + 1
            where = kept[originals[n].back] if n < len(originals) else original
            renamed = [line.split("(")[1].split(",")[0] if "prefix_optimizer_state" in line else line.split(".update_")[0]
                       for line in prefixes]
            how = ("compiled as one graph (compiled_step)" + (
                f"; {', '.join(f'with {c}' for c in contexts)} dropped inside it (a null context once converted: it "
                "changes nothing the block computes, and a graph takes no with statement)" if contexts else "") + (
                "; it returns the gradients, which the loop sums (gradient accumulation)" if accumulating else "") + (
                f"; parameter names of {', '.join(renamed)} prefixed with each network's or optimizer's name first "
                "(one graph refuses two parameters of the same name); checkpoints saved from them carry the prefix"
                if prefixes else "") if not blocker else f"not compiled: {blocker}; it runs op by op")
            ctx.change(where, rules.TRAIN_LOOP, "torch.Tensor.backward", "mindspore.value_and_grad",
                       f"zero_grad/backward/{'/'.join(f'{o}.step()' for o in opts)} -> {step_name}({params}), defined "
                       f"once before the loop: {name} (the computation from the inputs to {plan.loss}) + value_and_grad"
                       f"{'' if accumulating else ' + ' + '; '.join(applied)}, "
                       f"{how}" + (f"; {', '.join(sorted(assigned_names_of(recomputed)))} recomputed inside it "
                                   "(computed by an earlier step, its gradient must reach this step's parameters)"
                                   if recomputed else ""))
            continue
        new_body += [forward, grad_line, cst.parse_statement(f"{outputs}, grads = {grad_name}({params})")]
        new_body += [body[i] for i in seg.after]
        for i in range(plan.back + 1, plan.last + 1):
            stmt = body[i]
            if i == plan.step:
                new_body += [cst.parse_statement(line) for line in applied]
                new_body[-len(applied)] = new_body[-len(applied)].with_changes(leading_lines=stmt.leading_lines)
            elif i > plan.step:
                continue  # another optimizer's step(): applied above
            elif id(expr_call(stmt)) in ctx.clip_rewrites:
                statement = ctx.clip_rewrites[id(expr_call(stmt))]
                new_body.append(cst.parse_statement(statement).with_changes(leading_lines=stmt.leading_lines))
            else:
                new_body.append(stmt)
        done = plan.last + 1
        where = kept[originals[n].back] if n < len(originals) else original  # the record points at backward()
        ctx.change(where, rules.TRAIN_LOOP, "torch.Tensor.backward", "mindspore.value_and_grad",
                   f"zero_grad/backward/{'/'.join(f'{o}.step()' for o in opts)} -> {name} (the computation from the "
                   f"inputs to {plan.loss}) + value_and_grad + {'; '.join(applied)}"
                   + (f"; {', '.join(sorted(assigned_names_of(recomputed)))} recomputed inside it (computed by an "
                      "earlier step, its gradient must reach this step's parameters)" if recomputed else ""))
    new_body += body[done:]
    return block.with_changes(body=new_body), tuple(o for p in plans for o in (p.opt, *p.others))


def _python_state(ctx: ConversionContext, opts: tuple[str, ...]) -> str:
    """Why an optimizer cannot be stepped inside a compiled graph: a file using param_groups otherwise than
    grouplr.py rewrites may set a group's value as a Python number (`g['momentum'] = m`, `g.update(...)`),
    which a graph freezes at its first value (measured: `g['lr'] = lr` left as it was trained differently
    compiled). An lr assigned into its Parameter (grouplr.py), like mindspore.experimental.optim's
    schedulers do, is read by the graph at every call (the same losses and weights as PyTorch)."""
    return f"{opts[0]} has a parameter group value set as a Python value (param_groups)" \
        if ctx.uses_param_groups and not ctx.group_lr_only else ""


def _state_clash(opts: tuple[str, ...]) -> str:
    """Why several optimizers' own parameters cannot be told apart in one graph: one of them is no plain
    variable or attribute path to prefix them with."""
    if len(opts) > 1 and not all(part.isidentifier() for o in opts for part in o.split(".")):
        return "two optimizers in one step, one of them no plain name (each holds a parameter named global_step, which one graph refuses)"
    return ""


def _state_prefixes(ctx: ConversionContext, opts: tuple[str, ...]) -> list[str]:
    """For a step applied by several optimizers, statements prefixing each one's own parameters with its
    variable (support's prefix_optimizer_state): every MindSpore optimizer holds a `global_step` and a
    `learning_rate`, which one graph (jit or Cell) refuses twice. [] for one optimizer."""
    if len(opts) < 2:
        return []
    helper = helpers.use(ctx, "prefix_optimizer_state")
    return [f'{helper}({o}, "{o.split(".")[-1]}.")' for o in opts]


def _apply_grads(opts: tuple[str, ...]) -> list[str]:
    """`opt(grads)`, or for several optimizers each given its share of the grads (in the order their
    parameters were concatenated for value_and_grad)."""
    if len(opts) == 1:
        return [f"{opts[0]}(grads)"]
    lines, start = [], ""
    for k, opt in enumerate(opts):
        end = "" if k == len(opts) - 1 else " + ".join(f"len({o}.parameters)" for o in opts[:k + 1])
        lines.append(f"{opt}(grads[{start}:{end}])")
        start = end
    return lines


def recompute(log: list[tuple[set[str], cst.BaseStatement | None]],
              forward: list[cst.BaseStatement]) -> tuple[list[cst.BaseStatement], set[str]]:
    """The statements of an earlier forward function in the same block that compute what this forward
    reads (a GAN's `fake = G(z)`, computed in the discriminator's step, read by the generator's loss):
    repeated at the top of this forward, since a value returned by another gradient function carries
    no gradient to this one's parameters (PyTorch's graph from the first computation would). log: the
    block's statements so far in run order, as (names written, the statement when it is a forward's).
    Nothing is recomputed when a name such a statement reads was assigned again since (`z` drawn anew):
    the names that needed it come back second, for a mark."""
    needed: set[str] = set()
    bound: set[str] = set()
    for stmt in forward:
        needed |= _free_reads(stmt) - bound
        bound |= definite_writes(stmt)
    taken: list[int] = []
    for pos in reversed(range(len(log))):
        writes, stmt = log[pos]
        if not writes & needed:
            continue
        if stmt is None:  # written by a statement outside the forwards: read as it is
            needed -= writes
            continue
        reads = read_names([stmt])
        if any(reads & w for w, _ in (log[p] for p in range(pos + 1, len(log)) if p not in taken)):
            return [], writes & needed
        taken.append(pos)
        needed = (needed - writes) | reads
    return [log[p][1] for p in sorted(taken)], set()


def assigned_names_of(statements: list[cst.BaseStatement]) -> set[str]:
    return set().union(*(assigned_names(s) for s in statements)) if statements else set()


def _file_names(ctx: ConversionContext) -> set[str]:
    """Every name the file binds or reads (the hoisted functions' names must not shadow one)."""
    names: set[str] = set()
    for node in astwalk.nodes(ctx.tree) if ctx.tree is not None else ():
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def _dropped_zero_grad(ctx: ConversionContext, stmt: cst.BaseStatement) -> bool:
    """A zero_grad() statement noted before the block was converted (converted nodes are new objects,
    so it is recognised by its shape)."""
    return bool(ctx.zero_grads) and is_zero_grad(stmt)


OPTIMIZERS = ("SGD", "Adam", "AdamW", "Adagrad", "Adadelta", "Adamax", "RMSprop", "Rprop", "ASGD", "NAdam", "RAdam", "LBFGS", "SparseAdam")
SCHEDULERS = ("StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "LambdaLR",
              "MultiplicativeLR", "LinearLR", "ConstantLR", "PolynomialLR", "CyclicLR", "OneCycleLR",
              "ReduceLROnPlateau", "SequentialLR", "ChainedScheduler")

OPTIMIZER_NAMES = frozenset(f"torch.optim.{n}" for n in OPTIMIZERS)

HANDLERS = {
    **{f"torch.optim.{n}": optimizer for n in OPTIMIZERS},
    **{name: clip for name in (*CLIP_NORM, *CLIP_VALUE)},
    **{f"torch.optim.lr_scheduler.{n}": scheduler for n in SCHEDULERS},
}
