"""Gradient accumulation (issue 16, pattern 1's last item).

PyTorch accumulates on the parameters: several micro-steps each call `loss.backward()` (the loss
usually divided by their number), then one `opt.step()` after the loop applies the sum, clipped first
if the script clips, and `zero_grad()` clears it. MindSpore keeps no gradients, so the sum is kept in a
variable:

    accumulated_grads = None
    for micro in range(n):
        def forward_fn(...): ...          # the micro-step's loss (steps.split_region)
        grad_fn = mindspore.value_and_grad(forward_fn, None, opt.parameters)
        loss, grads = grad_fn(...)
        accumulated_grads = grads if accumulated_grads is None else tuple(a + g for a, g in zip(accumulated_grads, grads))
    accumulated_grads = ops.clip_by_norm(accumulated_grads, max_norm)
    opt(accumulated_grads)

Only this shape is taken (plan() before the walk): a for/while loop whose body holds one top-level
`loss.backward()` and no step(), followed in the same block by `opt.step()` with nothing but clipping
(plain or under an `if`) and zero_grad() between, and a zero_grad() on that optimizer in the block
(otherwise PyTorch would carry the sum into the next step). Anything else keeps the accumulation mark.

The micro-step itself is rewritten by training.rewrite_step: before it runs on the loop body, a
placeholder `opt.step()` is put after the backward; after it, the `opt(grads)` it wrote becomes the
accumulation. Inside an outer loop (a training loop, as nanoGPT's), both halves are compiled steps
written before it: the micro-step's (hoist.py) returns the loss and the grads, and `apply_grads(*sum)`
clips and applies the sum.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

import libcst as cst

from ..core import astwalk, rules
from ..core.names import code, resolve
from ..support import helpers
from .hoist import unique
from .steps import assigned_names, expr_call, method_receiver, plan_steps, read_names

ACC = "accumulated_grads"
CLIPS = ("torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_norm", "torch.nn.utils.clip_grad_value_")


@dataclass
class Plan:
    opt: str
    loss: str


def maybe(source: str, tree: ast.AST | None = None) -> bool:
    """Whether some loop in the file calls backward() and a step() follows it (stdlib ast: cheap), so
    that plan() is worth its libcst pass. tree: the source's stdlib ast when already parsed."""
    try:
        tree = tree if tree is not None else ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    for node in astwalk.nodes(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if not isinstance(body, list):
                continue
            for index, stmt in enumerate(body):
                if isinstance(stmt, (ast.For, ast.While)) and _ast_calls(stmt, "backward") \
                        and any(_ast_calls(later, "step") for later in body[index + 1:]):
                    return True
    return False


def _ast_calls(node: ast.AST, method: str) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == method
               for n in ast.walk(node))


def plan(ctx, module: cst.Module) -> None:
    """Find the accumulation shapes (see the module docstring) and note them in ctx: the loop bodies and
    blocks to rewrite, and the backward/step/clip calls the rewrite takes (left unmarked)."""
    module.visit(_Find(ctx))


class _Find(cst.CSTVisitor):
    def on_visit(self, node: cst.CSTNode) -> bool:  # statements and blocks only
        return super().on_visit(node) and not isinstance(node, (cst.SimpleStatementLine, cst.BaseExpression))

    def __init__(self, ctx) -> None:
        self.ctx = ctx

    def visit_Module(self, node: cst.Module) -> None:
        self._block(node)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._block(node)

    def _block(self, block) -> None:
        body = block.body
        for index, loop in enumerate(body):
            if not isinstance(loop, (cst.For, cst.While)) or not isinstance(loop.body, cst.IndentedBlock) \
                    or loop.orelse is not None:
                continue
            found = self._shape(body, index, loop)
            if found is None:
                continue
            back, step, clips, loss, opt = found
            self.ctx.accumulation[id(loop.body)] = Plan(opt, loss)
            self.ctx.accumulation[id(block)] = Plan(opt, loss)
            self.ctx.step_calls.update({id(back), id(step)})
            for call in clips:
                self.ctx.step_clips[id(call)] = opt

    def _shape(self, body, index, loop):
        inner = loop.body.body
        backs = [i for i, s in enumerate(inner) if method_receiver(s, "backward")]
        methods = [_method(c) for c in _calls(loop.body)]
        if len(backs) != 1 or methods.count("backward") != 1 or "step" in methods or "zero_grad" in methods:
            return None
        loss = method_receiver(inner[backs[0]], "backward")
        if not loss.isidentifier() or not any(loss in assigned_names(s) for s in inner[:backs[0]]):
            return None
        clips = []
        for stmt in body[index + 1:]:
            opt = method_receiver(stmt, "step")
            if opt is not None:
                if not opt.isidentifier() or not _clears(body, opt) or not _steps(inner, backs[0], opt):
                    return None
                return expr_call(inner[backs[0]]), expr_call(stmt), clips, loss, opt
            if method_receiver(stmt, "zero_grad", True) is not None or id(stmt) in self.ctx.dropped:
                continue
            clip = self._clip(stmt)
            if clip is None:
                return None
            clips.append(clip)
        return None

    def _clip(self, stmt):
        """The clip call when stmt is one, or an `if` holding only one."""
        if isinstance(stmt, cst.If) and stmt.orelse is None and isinstance(stmt.body, cst.IndentedBlock):
            kept = [s for s in stmt.body.body if id(s) not in self.ctx.dropped]  # a scaler's unscale_() goes
            if len(kept) != 1:
                return None
            stmt = kept[0]
        call = expr_call(stmt)
        if call is not None and resolve(call.func, self.ctx.aliases) in CLIPS:
            return call
        return None


def _steps(inner, back: int, opt: str) -> bool:
    """Whether the step rewrite takes the loop body once `opt.step()` follows its backward() (the same
    test before_step's placeholder meets: no continue/break in the region, the loss assigned there)."""
    body = [*inner[:back + 1], cst.parse_statement(f"{opt}.step()"), *inner[back + 1:]]
    plans = plan_steps(body)
    return len(plans) == 1 and plans[0].back == back and plans[0].step == back + 1


def _clears(body, opt: str) -> bool:
    return any(method_receiver(s, "zero_grad", True) == opt for s in body)


def _method(call: cst.Call) -> str | None:
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else None


def _calls(node: cst.CSTNode) -> list[cst.Call]:
    found: list[cst.Call] = []

    class _Find(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            found.append(call)

    node.visit(_Find())
    return found


# -- during the walk ---------------------------------------------------------------------------------
def before_step(ctx, original: cst.CSTNode, updated):
    """A planned loop body: a placeholder `opt.step()` after its backward(), for rewrite_step to see."""
    plan_ = ctx.accumulation.get(id(original))
    if plan_ is None or not isinstance(original, cst.IndentedBlock) or _is_outer(ctx, original):
        return updated
    body = list(updated.body)
    for i, stmt in enumerate(body):
        if method_receiver(stmt, "backward") == plan_.loss:
            body.insert(i + 1, cst.parse_statement(f"{plan_.opt}.step()"))
            return updated.with_changes(body=body)
    return updated


def _is_outer(ctx, block) -> bool:
    """Whether the block holds the accumulation loop (rather than being its body)."""
    return any(isinstance(s, (cst.For, cst.While)) and id(s.body) in ctx.accumulation for s in block.body)


def after_step(ctx, original: cst.CSTNode, updated, frame=None):
    """The loop body: `opt(grads)` -> the sum; the block holding the loop: the sum set to None before
    the loop, the clipping on the sum, `opt.step()` -> `opt(sum)`. frame: the scope's outermost loop
    around the block (hoist.LoopFrame), before which the application (`opt(sum)`, with the clipping when
    it reads nothing the loop assigns) is written once as a compiled step (ctx.hoisted)."""
    plan_ = ctx.accumulation.get(id(original))
    if plan_ is None:
        return updated
    if not _is_outer(ctx, original):
        body = [cst.parse_statement(f"{ACC} = grads if {ACC} is None else tuple(a + g for a, g in zip({ACC}, grads))")
                .with_changes(leading_lines=s.leading_lines) if code(s).strip() == f"{plan_.opt}(grads)" else s
                for s in updated.body]
        if body == list(updated.body):  # plan() checked the rewrite takes it: never leave a step in the loop
            raise RuntimeError("gradient accumulation: the micro-step was not rewritten")
        return updated.with_changes(body=body)
    body, seen_loop, clips = [], False, []
    for stmt in updated.body:
        if not seen_loop and isinstance(stmt, (cst.For, cst.While)) and f"{ACC} = grads if" in code(stmt):
            seen_loop = True
            body.append(cst.parse_statement(f"{ACC} = None").with_changes(leading_lines=stmt.leading_lines))
            body.append(stmt.with_changes(leading_lines=[]))
            continue
        if seen_loop:
            if method_receiver(stmt, "step") == plan_.opt:
                where = next((s for s in original.body if method_receiver(s, "step") == plan_.opt), original)
                # the clipping goes into the compiled step when what it reads stays fixed while the loop runs
                # (a graph keeps the values of the names it reads as constants: `if grad_clip != 0.0`)
                inside = frame is not None and not (read_names(clips) - {ACC}) & frame.varying
                applied = _compiled_apply(ctx, original, where, plan_.opt, clips if inside else []) \
                    if frame is not None else plan_.opt
                moved = inside and applied != plan_.opt
                body += [] if moved else clips
                # each gradient its own argument: a tuple passed whole made the graph compile at every call
                # (measured: 350 ms a call against 2 ms)
                star = "*" if applied != plan_.opt else ""
                call = cst.parse_statement(f"{applied}({star}{ACC})")
                lines = [*clips[0].leading_lines, *stmt.leading_lines] if moved and clips else stmt.leading_lines
                body.append(call.with_changes(leading_lines=lines))
                seen_loop, clips = False, []
                continue
            clips.append(stmt.visit(_Clips(ctx)))
            continue
        body.append(stmt)
    return updated.with_changes(body=body)


def _compiled_apply(ctx, block, where, opt: str, clips: list[cst.BaseStatement]) -> str:
    """The name of a compiled step applying the summed gradients with opt, written before the loop
    (`@compiled_step def apply_grads(*accumulated_grads): return opt(accumulated_grads)`): op by op, an
    optimizer runs a few operators per parameter, as long as the micro-step itself on a small model.
    opt when a graph would freeze a value of it (a param_groups write other than the lr's)."""
    from .optimizers import _file_names, _python_state  # optimizers' step rewrite comes first in the walk
    if _python_state(ctx, (opt,)):
        return opt
    taken = ctx.step_names if ctx.step_names else ctx.step_names.update(_file_names(ctx)) or ctx.step_names
    name = unique("apply_grads", taken)
    head = cst.parse_statement(f"@{helpers.use(ctx, 'compiled_step')}\ndef {name}(*{ACC}):\n    return {opt}({ACC})\n")
    inner = [clips[0].with_changes(leading_lines=[]), *clips[1:]] if clips else []
    ctx.hoisted.setdefault(id(block), []).append(head.with_changes(body=head.body.with_changes(
        body=[*inner, *head.body.body])))
    ctx.change(where, rules.TRAIN_LOOP, "torch.optim.Optimizer.step", "mindspore.nn.Optimizer",
               f"{opt}.step() after gradient accumulation -> {name}(*{ACC}): the summed gradients applied by one "
               "compiled graph (compiled_step), defined once before the loop"
               + ("; the clipping with it" if clips else ""))
    return name


class _Clips(cst.CSTTransformer):
    """A clip call the step rewrite noted -> its statement on the grads, applied to the sum."""

    def __init__(self, ctx) -> None:
        super().__init__()
        self.ctx = ctx

    def leave_SimpleStatementLine(self, original, updated):
        call = expr_call(original)
        statement = self.ctx.clip_rewrites.get(id(call)) if call is not None else None
        if statement is None:
            return updated
        text = re.sub(r"\bgrads\b", ACC, statement)
        return cst.parse_statement(text).with_changes(leading_lines=updated.leading_lines)
