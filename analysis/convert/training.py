"""Optimizers, LR schedulers and the training step.

PyTorch accumulates gradients on tensors (zero_grad / backward / step);
MindSpore computes them functionally. The step

    optimizer.zero_grad(); loss = loss_fn(model(x), y); loss.backward(); optimizer.step()

becomes a forward function, mindspore.value_and_grad over the optimizer's
parameters, and optimizer(grads). When the file builds LR schedulers, its
optimizers and schedulers go to mindspore.experimental.optim, whose
classes keep PyTorch's arguments and step() protocol.
"""
from __future__ import annotations

import libcst as cst

from analysis.knowledge.mapping import ApiEntry

from . import rules
from .apis import convert_call
from .context import ConversionContext
from .names import code
from .signatures import kwarg, plan_args

# PyTorch optimizer keyword -> classic mindspore.nn optimizer keyword.
OPTIMIZER_ARGS = {"lr": "learning_rate", "amsgrad": "use_amsgrad"}
OPTIMIZER_DEFAULT_LR = {"SGD": "0.001", "Adam": "0.001", "AdamW": "0.001", "RMSprop": "0.01", "Adagrad": "0.01"}


def optimizer(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    name = qualified.rsplit(".", 1)[1]
    experimental = f"mindspore.experimental.optim.{name}"
    if entry is not None and (ctx.uses_scheduler or not any(m.startswith("mindspore.nn.") for m in entry.mindspore)):
        if experimental in entry.mindspore:
            ctx.change(original, rules.OPTIMIZER, qualified, experimental,
                       f"{qualified} -> {experimental} (same arguments; works with its LR schedulers)")
            return updated.with_changes(func=ctx.ms_expr(experimental))
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
        if key == "params":
            args.append(arg.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT) if arg.keyword else arg)
        elif key == "betas":
            if not (isinstance(arg.value, cst.Tuple) and len(arg.value.elements) == 2):
                ctx.mark(original, rules.API_DIFF, qualified, "betas from a variable: pass beta1= and beta2=")
                return updated
            args += [kwarg("beta1", arg.value.elements[0].value), kwarg("beta2", arg.value.elements[1].value)]
        else:
            args.append(kwarg(OPTIMIZER_ARGS.get(key, key), arg.value))
    if "lr" not in passed and name in OPTIMIZER_DEFAULT_LR:
        args.append(kwarg("learning_rate", OPTIMIZER_DEFAULT_LR[name]))
    ctx.change(original, rules.OPTIMIZER, qualified, classic,
               f"{qualified} -> {classic} (lr -> learning_rate; parameters() -> trainable_params())")
    return updated.with_changes(func=ctx.ms_expr(classic), args=args)


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


def _is_method_stmt(stmt: cst.BaseStatement, method: str) -> str | None:
    """Receiver name when stmt is exactly `<name>.<method>()`."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if not isinstance(small, cst.Expr) or not isinstance(small.value, cst.Call):
        return None
    call = small.value
    if call.args or not isinstance(call.func, cst.Attribute) or call.func.attr.value != method:
        return None
    return code(call.func.value)


def _assigned_names(stmt: cst.BaseStatement) -> set[str]:
    names: set[str] = set()

    class _Targets(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            _collect(node.target, names)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            _collect(node.target, names)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            _collect(node.target, names)

    stmt.visit(_Targets())
    return names


def _collect(target: cst.BaseExpression, names: set[str]) -> None:
    if isinstance(target, cst.Name):
        names.add(target.value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            _collect(element.value, names)


def _read_names(nodes: list[cst.BaseStatement]) -> set[str]:
    names: set[str] = set()

    class _Reads(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            names.add(node.value)

    for node in nodes:
        node.visit(_Reads())
    return names


def rewrite_step(ctx: ConversionContext, original: cst.IndentedBlock, block: cst.IndentedBlock) -> cst.IndentedBlock:
    """Rewrite one zero_grad/backward/step sequence in a block; mark a backward it cannot place."""
    body = list(block.body)
    back = next((i for i, s in enumerate(body) if _is_method_stmt(s, "backward")), None)
    if back is None:
        return block
    loss = _is_method_stmt(body[back], "backward")
    step = next((i for i in range(back + 1, len(body)) if _is_method_stmt(body[i], "step")), None)
    opt = _is_method_stmt(body[step], "step") if step is not None else None
    assign = next(
        (i for i in range(back - 1, -1, -1) if loss in _assigned_names(body[i])), None
    )
    if step is None or assign is None or not (loss or "").isidentifier():
        action = "gradients come from mindspore.value_and_grad: wrap the loss computation in a forward function"
        record = _unconverted(0, action)
        if back < len(original.body):
            ctx.locate(record, original.body[back])
        ctx.unconverted.append(record)
        body[back] = _with_comment(body[back], f"# MIGRATE({rules.TRAIN_LOOP}): {action}")
        return block.with_changes(body=body)
    zero = next((i for i, s in enumerate(body) if _is_method_stmt(s, "zero_grad") == opt), None)
    start = zero + 1 if zero is not None and zero < assign else assign
    region = body[start:back]
    after = [s for i, s in enumerate(body[back + 1:], back + 1) if i != step]
    reads_after = _read_names(after)
    aux = sorted(n for s in region for n in _assigned_names(s) if n != loss and n in reads_after)
    returned = ", ".join([loss, *aux])
    forward = cst.FunctionDef(
        name=cst.Name("forward_fn"),
        params=cst.Parameters(),
        body=cst.IndentedBlock(body=[*region, cst.parse_statement(f"return {returned}")]),
        leading_lines=body[back].leading_lines,
    )
    has_aux = ", has_aux=True" if aux else ""
    grad_call = cst.parse_statement(
        f"grad_fn = {ctx.ms('mindspore.value_and_grad')}(forward_fn, None, {opt}.parameters{has_aux})"
    )
    outputs = f"({returned})" if aux else loss
    run = cst.parse_statement(f"{outputs}, grads = grad_fn()")
    apply = cst.parse_statement(f"{opt}(grads)").with_changes(leading_lines=body[step].leading_lines)
    new_body: list[cst.BaseStatement] = []
    for i, stmt in enumerate(body):
        if i == zero or start <= i < back:
            continue
        if i == back:
            new_body += [forward, grad_call, run]
        elif i == step:
            new_body.append(apply)
        else:
            new_body.append(stmt)
    ctx.change(original, rules.TRAIN_LOOP, "torch.Tensor.backward", "mindspore.value_and_grad",
               f"zero_grad/backward/{opt}.step() -> forward_fn + value_and_grad + {opt}(grads)")
    return block.with_changes(body=new_body)


def _unconverted(line: int, action: str):
    from .result import Unconverted

    return Unconverted(line, rules.TRAIN_LOOP, "torch.Tensor.backward", action)


def _with_comment(stmt: cst.BaseStatement, comment: str) -> cst.BaseStatement:
    return stmt.with_changes(leading_lines=[*stmt.leading_lines, cst.EmptyLine(comment=cst.Comment(comment))])


OPTIMIZERS = ("SGD", "Adam", "AdamW", "Adagrad", "Adadelta", "Adamax", "RMSprop", "Rprop", "ASGD", "NAdam", "RAdam", "LBFGS", "SparseAdam")
SCHEDULERS = ("StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "LambdaLR",
              "MultiplicativeLR", "LinearLR", "ConstantLR", "PolynomialLR", "CyclicLR", "OneCycleLR",
              "ReduceLROnPlateau", "SequentialLR", "ChainedScheduler")

HANDLERS = {
    **{f"torch.optim.{n}": optimizer for n in OPTIMIZERS},
    **{f"torch.optim.lr_scheduler.{n}": scheduler for n in SCHEDULERS},
}
