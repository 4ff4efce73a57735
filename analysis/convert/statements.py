"""Statement-level rewrites: torch.device variables removed (or kept and marked), statements left empty
by a removed device move dropped, no_grad blocks unwrapped, and at the module's end the straight-line
training step and the imports."""
from __future__ import annotations

from .training import accumulation  # gradient accumulation around the training step (issue 16)

import re

import libcst as cst

from .apis import partials
from .core import rules
from .core.imports import rewrite_imports
from .core.names import code, dotted, resolve
from .core.walk import GRAD_CONTEXTS, WalkState
from .apis import thirdparty
from .support import helpers
from .training import grouplr, optimizers
from .training.modern import AUTOCAST


class StatementRewrites(WalkState):
    """Device variables, no_grad blocks, and the module as a whole."""

    def visit_Module(self, node: cst.Module) -> None:
        self.scopes.append((node, 0))
        optimizers.note_step(self.ctx, node)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        if id(node) in self.ctx.dropped:  # see modern.prepare: not walked, removed on leaving
            return False
        if len(node.body) == 1 and isinstance(node.body[0], cst.Assign) and len(node.body[0].targets) == 1:
            switch = resolve(node.body[0].targets[0].target, self.ctx.aliases) or ""
            if switch.startswith("torch.backends."):  # not walked: nothing in it keeps torch imported
                self.switches[id(node)] = switch
                return False
        if self.ctx.device_call is not None and len(node.body) == 1 \
                and isinstance(node.body[0], (cst.Assign, cst.AnnAssign)):
            value = node.body[0].value
            if value is not None and self.ctx.device_call.search(code(value)) \
                    and _device_valued(value, self.ctx.aliases):
                targets = [t.target for t in node.body[0].targets] if isinstance(node.body[0], cst.Assign) \
                    else [node.body[0].target]
                names = [dotted(t) for t in targets]
                read = self.ctx.device_reads
                kept = [n or code(t) for n, t in zip(names, targets) if n is None or read is None or n in read]
                if kept:
                    self._keep_device_variable(node, value, kept)
                    return False
                self.ctx.device_names.update(names)  # .to(name) is a device move whatever the name
                self.removed.add(id(node))
                return False
        return True

    def _keep_device_variable(self, node: cst.SimpleStatementLine, value: cst.BaseExpression, kept: list[str]) -> None:
        """A device variable read elsewhere than in device moves stays, torch code and all, with a mark."""
        names = " and ".join(kept)
        self.ctx.mark(node, rules.DEVICE_OBJECT, "torch.device",
                      f"{names} is also read outside .to()/device= in this file: MindSpore has no device objects, so set the "
                      f"device once with mindspore.set_device and rewrite the code that uses {names}")
        self.ctx.torch_left.update(n for n in re.findall(r"[^\W\d]\w*", code(value)) if n in self.ctx.aliases)

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        if id(original) in self.ctx.dropped:
            self.ctx.change(original, *self.ctx.dropped[id(original)][:2], "", self.ctx.dropped[id(original)][2])
            return _keep_comments_remove(updated)
        if id(original) in self.switches:
            switch = self.switches.pop(id(original))
            tf32 = {"torch.backends.cuda.matmul.allow_tf32": "matmul_allow_tf32",
                    "torch.backends.cudnn.allow_tf32": "conv_allow_tf32"}.get(switch)
            self.ctx.change(original, rules.DEVICE_CUDA, switch, "",
                            f"torch.backends switch removed: on a GPU, mindspore.device_context.gpu.op_precision."
                            f"{tf32}(True) is the same setting" if tf32 else
                            "torch.backends switch removed: MindSpore has no such setting (kernel choice is "
                            "its own; for matmul precision see mindspore.set_context)")
            return _keep_comments_remove(updated)
        if id(original) in self.removed:
            self.ctx.change(original, rules.DEVICE_OBJECT, "torch.device", "",
                            "torch.device variable removed: MindSpore picks the device from its context")
            return cst.RemovalSentinel.REMOVE
        if self.ctx.group_lr_only:
            assigned = grouplr.rewrite(self.ctx, original, updated)
            if assigned is not None:
                return assigned
        if len(updated.body) == 1:
            o, u = original.body[0], updated.body[0]
            # a device move whose result was discarded, or `x = x` left after removing .to(device)
            if isinstance(o, cst.Expr) and isinstance(o.value, cst.Call) and not isinstance(u.value, cst.Call):
                return _keep_comments_remove(updated)
            if isinstance(u, cst.Assign) and len(u.targets) == 1 and type(u.targets[0].target) is type(u.value) \
                    and code(u.targets[0].target) == code(u.value) and code(o) != code(u):
                return _keep_comments_remove(updated)
            name = _mode_dependent_layer(o, self.ctx.aliases) if not self.classes else None
            if name is not None and isinstance(u, cst.Assign) and id(o.value) not in self.ctx.left_calls:  # a cell
                # PyTorch builds modules in training mode, MindSpore cells in inference mode
                self.ctx.change(original, rules.TRAIN_MODE_MISSING, "torch.nn.Module.train", "mindspore.nn.Cell.set_train",
                                f"{name}.set_train(True) added: a PyTorch module starts in training mode (batch "
                                "statistics, dropout on), a MindSpore cell in inference mode")
                return cst.FlattenSentinel([updated, cst.parse_statement(f"{name}.set_train(True)")])
        return updated

    def leave_With(self, original: cst.With, updated: cst.With):
        grad = [resolve(i.item.func if isinstance(i.item, cst.Call) else i.item, self.ctx.aliases) in GRAD_CONTEXTS
                for i in original.items]
        if not any(grad) and all(isinstance(i.item, cst.Call) and resolve(i.item.func, self.ctx.aliases) in AUTOCAST
                                 and i.asname is None for i in original.items):
            return _unwrap(updated)  # the items' change records say autocast -> float32
        if not any(grad):
            return updated
        if not all(grad) or any(i.asname for i in original.items):
            for item in original.items:
                self.ctx.keep(item.item)
            return updated.with_changes(items=[i for i, g in zip(updated.items, grad) if not g]) if not all(grad) else updated
        detached = _computed_names(original) if all(
            resolve(i.item.func if isinstance(i.item, cst.Call) else i.item, self.ctx.aliases) in NO_GRAD
            for i in original.items) else []
        self.ctx.change(original, rules.NO_GRAD, "torch.no_grad", "",
                        "no_grad block unwrapped: MindSpore computes gradients only inside value_and_grad"
                        + (f"; {', '.join(detached)} wrapped in ops.stop_gradient, so that no gradient flows "
                           "through them where this code runs inside one" if detached else ""))
        unwrapped = _unwrap(updated)
        if detached and isinstance(unwrapped, cst.FlattenSentinel):
            stop = self.ctx.ms("mindspore.ops.stop_gradient")
            unwrapped = cst.FlattenSentinel([*unwrapped.nodes, *(cst.parse_statement(f"{n} = {stop}({n})")
                                                                  for n in detached)])
        return unwrapped

    def leave_Module(self, original: cst.Module, updated: cst.Module):
        updated, _ = optimizers.rewrite_step(self.ctx, original, updated)  # straight-line code: no loop to switch
        updated = accumulation.after_step(self.ctx, original, updated)
        if not updated.body:
            return updated
        updated = thirdparty.mark_imports(updated, self.ctx)  # accelerate, timm...: what to do instead
        module, _ = rewrite_imports(updated, self.ctx.imports, self.ctx.torch_left)
        return helpers.insert(module, self.ctx)  # functions and classes the conversion writes (helpers.py)


# Layers whose output depends on the training mode (PyTorch's default: training).
MODE_DEPENDENT = frozenset({*(f"torch.nn.{lazy}{norm}{d}d" for lazy in ("", "Lazy") for norm in ("BatchNorm", "InstanceNorm")
                              for d in (1, 2, 3)), "torch.nn.SyncBatchNorm",
                            "torch.nn.Dropout", *(f"torch.nn.Dropout{d}d" for d in (1, 2, 3)), "torch.nn.AlphaDropout",
                            "torch.nn.FeatureAlphaDropout", "torch.nn.RReLU"})


def _mode_dependent_layer(small: cst.BaseSmallStatement, aliases: dict[str, str]) -> str | None:
    """The name in `name = nn.BatchNorm1d(...)` (or a Sequential holding such a layer), else None."""
    if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)
            and isinstance(small.value, cst.Call)):
        return None
    qualified = resolve(small.value.func, aliases)
    if qualified in MODE_DEPENDENT or (qualified == "torch.nn.Sequential" and _calls_any(small.value, aliases,
                                                                                          tuple(MODE_DEPENDENT))):
        return small.targets[0].target.value
    return None


def _calls_any(node: cst.CSTNode, aliases: dict[str, str], names: tuple[str, ...]) -> bool:
    found = False

    class _Find(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            nonlocal found
            if resolve(call.func, aliases) in names:
                found = True

    node.visit(_Find())
    return found


def _device_valued(node: cst.CSTNode, aliases: dict[str, str]) -> bool:
    """Whether the value holds a torch.device(...) and is no partial() binding a function's keywords
    (`functools.partial(torch.arange, device=torch.device("cpu"))` is no device variable)."""
    if isinstance(node, cst.Call) and partials.is_partial(node):
        return False
    return _calls_any(node, aliases, ("torch.device",))


# switches that turn gradient recording off (set_grad_enabled(flag) and enable_grad are left as they were)
NO_GRAD = ("torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad")


def _computed_names(block: cst.With) -> list[str]:
    """Plain names a no_grad block's own statements assign from a computation (not a literal), in
    order: the values PyTorch records no gradient for."""
    names: list[str] = []
    body = block.body.body if isinstance(block.body, cst.IndentedBlock) else [block.body]
    for stmt in body:
        for small in getattr(stmt, "body", []) if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else []:
            if isinstance(small, cst.Assign) and not _literal(small.value):
                for target in small.targets:
                    elements = target.target.elements if isinstance(target.target, (cst.Tuple, cst.List)) else [target.target]
                    for element in elements:
                        value = element.value if isinstance(element, (cst.Element, cst.StarredElement)) else element
                        if isinstance(value, cst.Name) and value.value not in names:
                            names.append(value.value)
    return names


def _literal(value: cst.BaseExpression) -> bool:
    if isinstance(value, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(value, cst.Name):
        return value.value in ("True", "False", "None")
    if isinstance(value, (cst.List, cst.Tuple, cst.Set)):
        return all(_literal(e.value) for e in value.elements)
    return isinstance(value, cst.Dict) and not value.elements


def _unwrap(updated: cst.With):
    """The with-statement's body in its place (its leading lines kept)."""
    body = updated.body
    if isinstance(body, cst.SimpleStatementSuite):
        statements = [cst.SimpleStatementLine(body=list(body.body))]
    else:
        statements = list(body.body)
    if not statements:
        return cst.RemovalSentinel.REMOVE
    statements[0] = statements[0].with_changes(leading_lines=[*updated.leading_lines, *statements[0].leading_lines])
    return cst.FlattenSentinel(statements)


def _keep_comments_remove(stmt: cst.SimpleStatementLine):
    if any(line.comment for line in stmt.leading_lines):
        return stmt.with_changes(body=[cst.Pass()])
    return cst.RemovalSentinel.REMOVE
