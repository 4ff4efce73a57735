"""Names that assignments bind and later rewrites key on: loss objects (their labels get cast),
optimizers, data loaders and datasets (loops over them), lists of layers and layers stored on a cell."""
from __future__ import annotations

import libcst as cst

from ..core.names import code, resolve
from ..core.walk import WalkState
from ..training import optimizers
from . import inplace_layers
from .layermap import self_path

LABEL_LOSSES = ("torch.nn.CrossEntropyLoss", "torch.nn.NLLLoss")


class AssignmentBindings(WalkState):
    """What an assignment's value is, noted under the names it binds."""

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign):
        value_id = id(updated.value)
        called = resolve(original.value.func, self.ctx.aliases) if isinstance(original.value, cst.Call) else None
        if called in LABEL_LOSSES:
            for target in original.targets:
                if isinstance(target.target, cst.Name):
                    self.ctx.label_losses.add(target.target.value)
        if called in optimizers.OPTIMIZER_NAMES:
            optimizers.note_optimizer(self.ctx, original)
        if isinstance(updated.value, (cst.List, cst.Tuple)) and len(updated.targets) == 1 \
                and isinstance(updated.targets[0].target, cst.Name):
            # `layers = [nn.Linear(...), ...]`, later unpacked into nn.Sequential(*layers)
            records = [(f"{i}.{path}" if path else str(i), record) for i, element in enumerate(updated.value.elements)
                       for path, record in self.layers.pop(id(element.value), [])]
            if records:
                self.layer_lists[updated.targets[0].target.value] = records
        if value_id in self.loaders:
            for target in updated.targets:
                if isinstance(target.target, cst.Name):
                    self.ctx.dataset_names.add(target.target.value)
                    if value_id in self.loader_sources:
                        self.ctx.loader_sources[target.target.value] = self.loader_sources[value_id]
        if value_id in self.ctx.slice_calls:  # a TensorDataset or the parts of its random_split
            for target in updated.targets:
                names = [target.target] if isinstance(target.target, cst.Name) else \
                    [e.value for e in target.target.elements] if isinstance(target.target, (cst.Tuple, cst.List)) else []
                for name in names:
                    if isinstance(name, cst.Name):
                        self.ctx.ms_datasets[name.value] = self.ctx.loop_depth
                        self.ctx.dataset_names.add(name.value)  # iterated directly: create_tuple_iterator()
        records = self.layers.pop(value_id, None)
        if records and len(updated.targets) == 1:
            prefix = self_path(updated.targets[0].target)
            if prefix:
                self._bind(prefix, records)
        target = self.ctx.shape_rebinds.pop(id(original.value), None)
        if target is not None:  # y = x.squeeze_() -> y = x = x.squeeze()
            if len(updated.targets) == 1 and code(updated.targets[0].target) == code(target):
                return updated
            return updated.with_changes(targets=[*updated.targets, cst.AssignTarget(target=target)])
        return inplace_layers.rebind(self.ctx, original, updated)

    def leave_Expr(self, original: cst.Expr, updated: cst.Expr):
        target = self.ctx.shape_rebinds.pop(id(original.value), None)
        if target is not None:  # x.squeeze_() -> x = x.squeeze()
            return cst.Assign(targets=[cst.AssignTarget(target=target)], value=updated.value,
                              semicolon=updated.semicolon)
        return inplace_layers.rebind_expression(self.ctx, original, updated)
