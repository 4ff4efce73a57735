"""Parameter names that differ: MindSpore's normalisation layers call their scale and shift gamma and
beta, its Embedding calls its table embedding_table (PyTorch: weight, bias, weight). Inside a branch
`if isinstance(m, nn.BatchNorm2d):` (the usual init function) `m.weight` and `m.bias` are renamed;
a read of `.weight` on a layer the file's layer map knows (self.emb = nn.Embedding(...)) too."""
from __future__ import annotations

import ast

import libcst as cst

from ..core import astwalk, rules
from ..core.names import code, dotted_ast, resolve, resolve_text
from ..core.walk import WalkState
from . import receivers

# (the instance norms become support cells that keep PyTorch's weight and bias: helper_cov_nn.InstanceNormNd)
NORMS = {f"torch.nn.{n}" for n in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm", "SyncBatchNorm")}
CONVS = {f"torch.nn.{kind}{d}d" for kind in ("Conv", "ConvTranspose") for d in (1, 2, 3)}
# sizes a layer keeps as attributes under other names (model.fc.in_features, emb.embedding_dim)
EMBEDDING = {"weight": "embedding_table", "num_embeddings": "vocab_size", "embedding_dim": "embedding_size"}
RENAMES = {**{n: {"weight": "gamma", "bias": "beta"} for n in NORMS}, "torch.nn.Embedding": EMBEDDING,
           "torch.nn.Embedding.from_pretrained": EMBEDDING,
           "torch.nn.Linear": {"in_features": "in_channels", "out_features": "out_channels"},
           **{n: {"groups": "group"} for n in CONVS}}


class Unlike(str):
    """An attribute both layers have under the same name but hold in another form: its use is marked with
    how MindSpore holds it (code indexing PyTorch's tuple would raise or read something else)."""


# measured on the installed versions: PyTorch's value, then MindSpore's, for Conv1d(3, 4, 3, padding=1) and
# ReflectionPad1d(2)
_CONV1D = Unlike("MindSpore's Conv1d is a 2-d convolution: its {attr} covers two axes ((1, 3) for kernel_size=3, "
                 "padding (0, 0, 1, 1) for padding=1) where PyTorch's holds one value per axis; read the last one")
_CONV_PADDING = Unlike("MindSpore keeps padding as it was given (1), PyTorch as a tuple per axis ((1, 1)): write the "
                       "tuple out")
_REFLECTION = Unlike("MindSpore's {attr} is a [before, after] pair per axis ([[2, 2]]), PyTorch's one flat tuple "
                     "((2, 2)): flatten it")
for _name, _forms in {"torch.nn.Conv1d": {a: _CONV1D for a in ("padding", "stride", "dilation", "kernel_size")},
                      "torch.nn.Conv2d": {"padding": _CONV_PADDING}, "torch.nn.Conv3d": {"padding": _CONV_PADDING},
                      **{f"torch.nn.ReflectionPad{d}d": {"padding": _REFLECTION} for d in (1, 2, 3)}}.items():
    RENAMES[_name] = {**RENAMES.get(_name, {}), **_forms}
# A BatchNorm's (and InstanceNorm's) running statistics: named so on every such layer in MindSpore, and on
# nothing else PyTorch has, so any attribute of these names is renamed unless the file sets its own.
STATISTICS = {"running_mean": "moving_mean", "running_var": "moving_variance"}
# Attribute names that make a line worth walking (outline.py)
PARAMETER_ATTRS = frozenset({"weight", "bias", *STATISTICS, *(a for r in RENAMES.values() for a in r)})


class ParameterNames(WalkState):
    """Renames .weight/.bias where the layer's class is known from an isinstance() guard."""

    def visit_If(self, node: cst.If) -> None:
        guard = _isinstance_guard(node.test, self.ctx.aliases)
        if guard is not None:
            self.guarded.setdefault(id(node.body), guard)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        if id(node) in self.guarded:
            self.active_guards.append(self.guarded[id(node)])
        super().visit_IndentedBlock(node)

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock):
        if id(original) in self.guarded and self.active_guards:
            self.active_guards.pop()
        return super().leave_IndentedBlock(original, updated)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute):
        field = receivers.named_field(self.ctx, original, updated)
        if field is not None:
            return field
        if self.active_guards and isinstance(original.value, cst.Name):
            for name, renames in reversed(self.active_guards):
                if name == original.value.value and original.attr.value in renames:
                    new_attr = renames[original.attr.value]
                    self.ctx.change(original, rules.API_DIFF, f"torch.nn.Module.{original.attr.value}",
                                    f"mindspore.nn.Cell.{new_attr}",
                                    f"{name}.{original.attr.value} -> {name}.{new_attr} (MindSpore's name for it on "
                                    "this layer)")
                    return updated.with_changes(attr=cst.Name(new_attr))
        if original.attr.value in STATISTICS and id(original) not in self.attribute_stores and not self._own_statistics():
            new_attr = STATISTICS[original.attr.value]
            self.ctx.change(original, rules.PARAM_NAMES, f"torch.nn.BatchNorm2d.{original.attr.value}",
                            f"mindspore.nn.BatchNorm2d.{new_attr}",
                            f"{original.attr.value} -> {new_attr} (MindSpore's name for a norm layer's running statistic)")
            return super().leave_Attribute(original, updated.with_changes(attr=cst.Name(new_attr)))
        if original.attr.value in PARAMETER_ATTRS and isinstance(original.value, cst.Name):
            # a variable every assignment binds to such a layer (emb = nn.Embedding(...); emb.weight)
            bound = self.ctx.bound
            renames = RENAMES.get(bound.get(original.value.value, ""))
            if renames and isinstance(renames.get(original.attr.value), Unlike):
                return self._unlike(original, updated, renames[original.attr.value])
            if renames and original.attr.value in renames:
                owner, new_attr = original.value.value, renames[original.attr.value]
                self.ctx.change(original, rules.API_DIFF, f"torch.nn.Module.{original.attr.value}",
                                f"mindspore.nn.Cell.{new_attr}",
                                f"{owner}.{original.attr.value} -> {owner}.{new_attr} (MindSpore's name for it on "
                                "this layer)")
                return super().leave_Attribute(original, updated.with_changes(attr=cst.Name(new_attr)))
        if original.attr.value in PARAMETER_ATTRS and isinstance(original.value, cst.Attribute):
            renames = self._bound_layers().get(original.value.attr.value)
            if renames and isinstance(renames.get(original.attr.value), Unlike):
                return self._unlike(original, updated, renames[original.attr.value])
            if renames and original.attr.value in renames:
                owner, new_attr = code(original.value), renames[original.attr.value]
                self.ctx.change(original, rules.API_DIFF, f"torch.nn.Module.{original.attr.value}",
                                f"mindspore.nn.Cell.{new_attr}",
                                f"{owner}.{original.attr.value} -> {owner}.{new_attr} (MindSpore's name for it on "
                                "this layer)")
                return super().leave_Attribute(original, updated.with_changes(attr=cst.Name(new_attr)))
        return super().leave_Attribute(original, updated)

    def _unlike(self, original: cst.Attribute, updated: cst.Attribute, form: Unlike):
        # a store is marked too: the MindSpore layer reads the attribute in its own form
        self.ctx.mark(original, rules.API_DIFF, f"torch.nn.Module.{original.attr.value}",
                      f"{code(original)}: " + form.format(attr=original.attr.value))
        return super().leave_Attribute(original, updated)

    def _own_statistics(self) -> bool:
        """Whether the file sets an attribute or registers a buffer named like a running statistic (its
        own normalisation layer or statistics holder, which keeps its names)."""
        if self.own_statistics is None:
            self.own_statistics = _sets_statistics(getattr(self.ctx.outline, "tree", None) or self.ctx.tree)
        return self.own_statistics

    def _bound_layers(self) -> dict[str, dict[str, str]]:
        """Attribute or keyword names the file binds only to layers whose parameters are renamed
        (self.emb = nn.Embedding(...), dict(wte=nn.Embedding(...)), {"wte": nn.Embedding(...)}): name -> renames."""
        if self.layer_names is None:
            self.layer_names = _layer_names(getattr(self.ctx.outline, "tree", None), self.ctx.aliases)
        return self.layer_names


def _layer_names(tree, aliases: dict[str, str]) -> dict[str, dict[str, str]]:
    seen: dict[str, list[dict[str, str] | None]] = {}
    if tree is None:
        return {}

    def kind(value) -> dict[str, str] | None:
        if isinstance(value, ast.Call):
            callee = dotted_ast(value.func)
            return RENAMES.get(resolve_text(callee, aliases) or "") if callee else None
        return None

    for node in astwalk.nodes(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute):
            seen.setdefault(node.targets[0].attr, []).append(kind(node.value))
        elif isinstance(node, ast.keyword) and node.arg:
            seen.setdefault(node.arg, []).append(kind(node.value))
        elif isinstance(node, ast.Dict):  # nn.ModuleDict({"emb": nn.Embedding(...)}): read as d.emb.weight
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    seen.setdefault(key.value, []).append(kind(value))
    return {name: kinds[0] for name, kinds in seen.items() if kinds[0] is not None and all(k == kinds[0] for k in kinds)}


def _sets_statistics(tree) -> bool:
    import ast

    for node in astwalk.nodes(tree) if tree is not None else ():
        if isinstance(node, ast.Attribute) and node.attr in STATISTICS and isinstance(node.ctx, ast.Store):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "register_buffer" \
                and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value in STATISTICS:
            return True
    return False


def _isinstance_guard(test: cst.BaseExpression, aliases: dict[str, str]) -> tuple[str, dict[str, str]] | None:
    """(variable, renames) for `isinstance(v, nn.X)` / `isinstance(v, (nn.X, nn.Y))` when every class
    listed renames its parameters the same way."""
    if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance"
            and len(test.args) == 2 and isinstance(test.args[0].value, cst.Name)):
        return None
    kinds = test.args[1].value
    classes = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
    found = [RENAMES.get(resolve(c, aliases) or "") for c in classes]
    if not found or any(f is None for f in found) or any(f != found[0] for f in found):
        return None
    return code(test.args[0].value), found[0]
