"""Loops and blocks: loop depth, the training step rewritten per block, set_train(True) added before
a loop that trains a network, and loops over a converted data loader iterating create_tuple_iterator()."""
from __future__ import annotations

import libcst as cst

from ..core import rules
from ..core.result import Change, Unconverted
from ..core.walk import WalkState
from . import accumulation, hoist, optimizers


class LoopRewrites(WalkState):
    """Open loops and their bodies, the training step per block, training mode before a loop."""

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        optimizers.note_step(self.ctx, node)
        if id(node) in self.loop_bodies:
            self.ctx.loop_depth += 1

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        if id(node) in self.loop_bodies:
            self.ctx.loop_depth += 1

    def leave_SimpleStatementSuite(self, original: cst.SimpleStatementSuite, updated: cst.SimpleStatementSuite):
        if id(original) in self.loop_bodies:
            self.ctx.loop_depth -= 1
        return updated

    def visit_For(self, node: cst.For) -> None:
        self.loops.append(node)
        self.loop_bodies.add(id(node.body))

    def visit_While(self, node: cst.While) -> None:
        self.loops.append(node)
        self.loop_bodies.add(id(node.body))

    def leave_While(self, original: cst.While, updated: cst.While):
        self.loops.pop()
        return updated

    def _needs_train_mode(self, optimizer: str) -> None:
        """A training step was rewritten inside a loop: the network its optimizer updates must be in
        training mode, which a Cell is not until set_train(True), unless the scope sets the mode before
        the loop runs (a call after it changes later iterations alike in both frameworks)."""
        scope, base = self.scopes[-1] if self.scopes else (None, 0)
        if scope is None or len(self.loops) <= base:
            return
        receivers = optimizers.mode_set_before(scope, self.loops[-1])
        model = self.ctx.optimizer_models.get(optimizer)
        # the network the optimizer trains; else the networks its parameter list gathers from; else None
        # (a mark), unless some mode is set before the loop
        models = [model] if model is not None else list(self.ctx.optimizer_networks.get(optimizer, ())) or [None]
        if models == [None] and receivers:
            return
        # a network the outer loop builds (a fold's fresh model) is switched before the loop that trains it
        built = hoist.loop_frame(self.loops[base]).varying if len(self.loops) > base + 1 else frozenset()
        target = self.loops[-1] if any((m or "").split(".")[0] in built for m in models) else self.loops[base]
        wanted = self.train_before.setdefault(id(target), [])
        for model in models:
            if model not in receivers and model not in wanted:
                wanted.append(model)

    def _train_mode(self, original: cst.CSTNode, result, within):
        """Before the outermost loop of a scope that trains: the training steps' functions defined once
        (hoist.py), then model.set_train(True) for each network trained (or a mark when the file does
        not say which network the optimizer updates)."""
        before = self.ctx.before_statement.pop(id(original), None)
        if before and isinstance(result, cst.SimpleStatementLine):  # e.g. parameter names prefixed before an optimizer
            return cst.FlattenSentinel([before[0].with_changes(leading_lines=result.leading_lines), *before[1:],
                                        result.with_changes(leading_lines=[])])
        if not isinstance(result, (cst.For, cst.While)):
            return result
        kept = len(original.leading_lines)  # blank lines and comments above the loop go above the new line
        above, own = list(result.leading_lines[:kept]), list(result.leading_lines[kept:])
        statements: list[cst.BaseStatement] = list(self.hoist_before.pop(id(original), ()))
        hoisted = len(statements)
        for model in self.train_before.pop(id(original), ()):
            if model is None:
                action = ("a Cell starts in inference mode: call set_train(True) on the network this loop trains "
                          "(PyTorch modules start in training mode)")
                record = Unconverted(0, rules.TRAIN_MODE_MISSING, "torch.nn.Module.train", action)
                self.ctx.unconverted.append(record)
                self.ctx.located.append((record, original, within))
                own.append(cst.EmptyLine(comment=cst.Comment(f"# MIGRATE({rules.TRAIN_MODE_MISSING}): {action}")))
                continue
            change = Change(0, rules.TRAIN_MODE_MISSING, "torch.nn.Module.train", "mindspore.nn.Cell.set_train",
                            f"{model}.set_train(True) added before the training loop (a Cell starts in inference "
                            "mode, a PyTorch module in training mode)")
            self.ctx.changes.append(change)
            self.ctx.located.append((change, original, within))
            statements.append(cst.parse_statement(f"{model}.set_train(True)"))
        if hoisted:  # the step's functions first; the loop's comments stay above what follows them
            blank = cst.EmptyLine(indent=False)
            head, statements = statements[:hoisted], statements[hoisted:]
            head[0] = head[0].with_changes(leading_lines=[line for line in above if line.comment is None])
            above = [blank, *(line for line in above if line.comment is not None)]
            if not statements:
                return cst.FlattenSentinel([*head, result.with_changes(leading_lines=[*above, *own])])
            statements[0] = statements[0].with_changes(leading_lines=above)
            return cst.FlattenSentinel([*head, *statements, result.with_changes(leading_lines=own)])
        if not statements:
            return result.with_changes(leading_lines=[*above, *own])
        statements[0] = statements[0].with_changes(leading_lines=above)
        return cst.FlattenSentinel([*statements, result.with_changes(leading_lines=own)])

    def leave_For(self, original: cst.For, updated: cst.For):
        self.loops.pop()
        it = updated.iter
        if isinstance(it, cst.Name) and it.value in self.ctx.dataset_names:
            self.ctx.change(original, rules.DATALOADER, "torch.utils.data.DataLoader",
                            "mindspore.dataset.Dataset.create_tuple_iterator", "loop over create_tuple_iterator()")
            return updated.with_changes(iter=_iterator(it))
        if (isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "enumerate" and it.args
                and isinstance(it.args[0].value, cst.Name) and it.args[0].value.value in self.ctx.dataset_names):
            self.ctx.change(original, rules.DATALOADER, "torch.utils.data.DataLoader",
                            "mindspore.dataset.Dataset.create_tuple_iterator", "loop over create_tuple_iterator()")
            first = it.args[0].with_changes(value=_iterator(it.args[0].value))
            return updated.with_changes(iter=it.with_changes(args=[first, *it.args[1:]]))
        return updated

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock):
        if id(original) in self.loop_bodies:
            self.ctx.loop_depth -= 1
        scope, base = self.scopes[-1] if self.scopes else (None, 0)
        in_loop = id(original) in self.loop_bodies
        # the scope's outermost loop around this block: the step's functions are written once before it
        outer = self.loops[base] if in_loop and len(self.loops) > base else None
        frame = hoist.loop_frame(outer) if outer is not None else None
        updated = accumulation.before_step(self.ctx, original, updated)
        updated, stepped = optimizers.rewrite_step(self.ctx, original, updated, scope, in_loop, frame)
        updated = accumulation.after_step(self.ctx, original, updated, frame)
        hoisted = self.ctx.hoisted.pop(id(original), None)
        if hoisted:
            self.hoist_before.setdefault(id(outer), []).extend(hoisted)
        for optimizer in stepped:
            self._needs_train_mode(optimizer)
        if not updated.body:
            updated = updated.with_changes(body=[cst.SimpleStatementLine(body=[cst.Pass()])])
        return updated


def _iterator(node: cst.BaseExpression) -> cst.Call:
    return cst.Call(func=cst.Attribute(value=node, attr=cst.Name("create_tuple_iterator")))
