"""Class and function definitions: nn.Module subclasses become Cells (other torch.nn bases are
mapped, Dataset bases dropped), forward becomes construct, no_grad and TorchScript decorators go."""
from __future__ import annotations

import libcst as cst

from analysis.scan.shadows import local_names

from ..core import rules
from ..core.names import code, resolve
from ..core.walk import GRAD_CONTEXTS, WalkState
from ..data import loaders
from ..training.modern import AUTOCAST, AUTOCAST_NOTE

MODULE_BASES = ("torch.nn.Module",)
DATASET_BASES = ("torch.utils.data.Dataset", "torch.utils.data.IterableDataset")


class CellRewrites(WalkState):
    """Class and function definitions (the classes/functions/scopes stacks are kept here)."""

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.skip.add(id(node.name))
        self.functions.append(node.name.value)
        self.scopes.append((node, len(self.loops)))
        # inside, a parameter or local variable named like an import is not the module (def f(data): ...)
        self.outer_aliases.append(self.ctx.aliases)
        hidden = local_names(node) & self.ctx.aliases.keys()
        if hidden:
            self.ctx.aliases = {name: q for name, q in self.ctx.aliases.items() if name not in hidden}

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.skip.add(id(node.name))
        kind = "other"
        for base in node.bases:
            self.skip.add(id(base.value))
            qualified = resolve(base.value, self.ctx.aliases)
            if qualified in MODULE_BASES or (qualified or "").startswith("torch.nn.") or code(base.value) in self.cells:
                kind = "cell"
            elif qualified in DATASET_BASES:
                kind = "dataset"
        if kind == "cell":
            self.cells.add(node.name.value)
        if kind == "dataset":
            columns = loaders.getitem_columns(node)
            if columns:
                self.ctx.dataset_columns[node.name.value] = columns
            elif not loaders.defines(node, "__getitem__"):
                self.ctx.dataset_columns[node.name.value] = []  # iterable-style: no items by index
        self.classes.append((node.name.value, kind, len(self.functions)))

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef):
        name, kind, _ = self.classes.pop()
        if kind == "other":
            for orig in original.bases:  # torch.Tensor, dispatch modes: PyTorch's own machinery
                qualified = resolve(orig.value, self.ctx.aliases)
                if qualified and qualified.startswith("torch."):
                    self.ctx.mark(orig, rules.API_UNMAPPED, qualified,
                                  f"class {name} extends {qualified}, PyTorch machinery with no MindSpore "
                                  f"counterpart: rewrite it without the base")
            return updated
        bases = []
        for orig, base in zip(original.bases, updated.bases):
            qualified = resolve(orig.value, self.ctx.aliases)
            if qualified in MODULE_BASES:
                bases.append(base.with_changes(value=self.ctx.ms_expr("mindspore.nn.Cell")))
                self.ctx.change(orig, rules.CELL_BASE, qualified, "mindspore.nn.Cell", f"class {name}: nn.Module -> nn.Cell")
            elif qualified in DATASET_BASES:
                self.ctx.change(orig, rules.DATASET_CLASS, qualified, "",
                                f"class {name}: base {qualified} dropped (GeneratorDataset reads __getitem__/__len__)")
            elif qualified and qualified.startswith("torch."):
                entry = self.ctx.classic.get(qualified)
                if entry and entry.primary:
                    bases.append(base.with_changes(value=self.ctx.ms_expr(entry.primary)))
                    self.ctx.change(orig, rules.CELL_BASE, qualified, entry.primary, f"base {qualified} -> {entry.primary}")
                else:
                    self.ctx.mark(orig, rules.API_UNMAPPED, qualified, f"base class {qualified} has no counterpart")
                    bases.append(base)
            else:
                bases.append(base)
        if bases:
            bases[-1] = bases[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        if not bases:
            return updated.with_changes(bases=[], lpar=cst.MaybeSentinel.DEFAULT, rpar=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(bases=bases)

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef):
        self.ctx.aliases = self.outer_aliases.pop()  # decorators are read in the enclosing scope
        self.functions.pop()
        self.scopes.pop()
        decorators = []
        for o, d in zip(original.decorators, updated.decorators):
            name = _decorator_name(o, self.ctx.aliases)
            if name in GRAD_CONTEXTS:
                self.ctx.change(o, rules.NO_GRAD, "torch.no_grad", "",
                                "no_grad decorator removed: MindSpore computes gradients only inside value_and_grad")
            elif name in AUTOCAST:
                self.ctx.change(o, rules.AMP_AUTOCAST, name, "", f"@{name.rsplit('.', 1)[1]} removed: {AUTOCAST_NOTE}")
            elif name in self.ctx.classic.no_op_decorators:
                self.ctx.change(o, rules.JIT, name, "",
                                f"@{name} removed: MindSpore has no TorchScript, the function runs as written")
            else:
                decorators.append(d)
        if len(decorators) != len(updated.decorators):
            if decorators:  # the first decorator's blank lines and comments stay above the definition
                decorators[0] = decorators[0].with_changes(leading_lines=updated.decorators[0].leading_lines)
            else:
                updated = updated.with_changes(leading_lines=[*updated.leading_lines,
                                                              *updated.decorators[0].leading_lines])
            updated = updated.with_changes(decorators=decorators)
        if self.classes and self.classes[-1][1] == "dataset" and len(self.functions) == self.classes[-1][2] \
                and original.name.value == "__getitem__":
            return loaders.coerce_index(self.ctx, original, updated)
        if self.classes and self.classes[-1][1] == "cell" and len(self.functions) == self.classes[-1][2]:
            if original.name.value == "forward":
                self.ctx.change(original, rules.CELL_FORWARD, "torch.nn.Module.forward", "mindspore.nn.Cell.construct",
                                "forward -> construct")
                return updated.with_changes(name=cst.Name("construct"))
        return updated


def _decorator_name(decorator: cst.Decorator, aliases: dict[str, str]) -> str | None:
    """Qualified torch name of a decorator, called (@torch.no_grad()) or bare (@torch.jit.ignore)."""
    node = decorator.decorator
    return resolve(node.func if isinstance(node, cst.Call) else node, aliases)
