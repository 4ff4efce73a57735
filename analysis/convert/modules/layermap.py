"""The layer map (parity aligns the two frameworks' layers by it): a record per torch.nn layer built,
with the items of containers under their keys, bound to the attribute of the cell that stores it."""
from __future__ import annotations

import libcst as cst

from ..apis.signatures import parameter_names
from ..core.context import ConversionContext
from ..core.names import code, dotted
from ..core.result import LayerRecord
from ..core.walk import WalkState

# torch.nn classes that are tensors, not layers: the layer map (parity aligns layers by it) leaves them out
NOT_LAYERS = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer",
                        "torch.nn.parameter.Buffer", "torch.nn.UninitializedParameter",
                        "torch.nn.parameter.UninitializedParameter", "torch.nn.UninitializedBuffer",
                        "torch.nn.parameter.UninitializedBuffer"})


class LayerMap(WalkState):
    """Layer records: built on each converted layer call, bound when a cell stores the layer."""

    def _layer(self, original: cst.Call, updated: cst.Call, new: cst.Call, qualified: str) -> None:
        target = resolve_ms(new, self.ctx)
        entry = self.ctx.mint_entry(qualified) or self.ctx.classic.get(qualified)
        ms_params = parameter_names(entry.mindspore_signature) if entry and entry.mindspore_signature else ()
        kwargs, args = {}, []
        for index, arg in enumerate(new.args):
            if arg.keyword is not None:
                kwargs[arg.keyword.value] = code(arg.value)
            elif not arg.star and index < len(ms_params) and not ms_params[index].startswith("*"):
                kwargs[ms_params[index]] = code(arg.value)
            else:
                args.append(code(arg.value))
        owner = self.classes[-1][0] if self.classes else ""
        record = self.ctx.locate(LayerRecord(owner, "", qualified, target, 0, kwargs, args), original)
        records = [("", record)]
        # items of containers: Sequential(a, b) -> "0", "1"; ModuleList([a, b]); ModuleDict({"k": a})
        values: list[tuple[str, cst.BaseExpression]] = []
        for index, arg in enumerate(updated.args):
            if arg.star == "*" and isinstance(arg.value, cst.Name) and arg.value.value in self.layer_lists:
                records += self.layer_lists.pop(arg.value.value)
                continue
            if isinstance(arg.value, cst.Call) and (dotted(arg.value.func) or "").rsplit(".", 1)[-1] == "OrderedDict" \
                    and len(arg.value.args) == 1:
                arg = arg.value.args[0]  # OrderedDict([(name, layer), ...]) or OrderedDict({name: layer})
                if isinstance(arg.value, (cst.List, cst.Tuple)):
                    values += [(e.value.elements[0].value.evaluated_value, e.value.elements[1].value)
                               for e in arg.value.elements if isinstance(e.value, cst.Tuple)
                               and len(e.value.elements) == 2 and isinstance(e.value.elements[0].value, cst.SimpleString)]
                    continue
            if isinstance(arg.value, cst.Call) and dotted(arg.value.func) == "dict" \
                    and all(a.keyword is not None for a in arg.value.args):
                values += [(a.keyword.value, a.value) for a in arg.value.args]  # ModuleDict(dict(key=layer))
                continue
            if isinstance(arg.value, (cst.List, cst.Tuple)):
                values += [(str(i), e.value) for i, e in enumerate(arg.value.elements)]
            elif isinstance(arg.value, cst.Dict):
                values += [(e.key.evaluated_value if isinstance(e.key, cst.SimpleString) else code(e.key), e.value)
                           for e in arg.value.elements if isinstance(e, cst.DictElement)]
            elif not arg.keyword:
                values.append((str(index), arg.value))
        for key, value in values:
            for path, child in self.layers.pop(id(value), []):
                records.append((f"{key}.{path}" if path else key, child))
        self.layers[id(new)] = records

    def _bind(self, prefix: str, records: list[tuple[str, LayerRecord]]) -> None:
        """Layers stored on the cell being defined under the attribute path prefix: the layer map."""
        if not (self.classes and self.classes[-1][1] == "cell"):
            return
        for path, record in records:
            record.class_name = self.classes[-1][0]
            record.attribute = f"{prefix}.{path}" if path else prefix
            self.ctx.layer_map.append(record)


def resolve_ms(call: cst.Call, ctx: ConversionContext) -> str:
    """The MindSpore name a converted call spells (reverse of ctx.ms)."""
    return ctx.spelling.qualify(dotted(call.func) or "")



def self_path(node: cst.BaseExpression, allow_self: bool = False) -> str | None:
    """'a.b' for self.a.b ('' for self itself when allow_self), None for anything else."""
    name = dotted(node)
    if name == "self":
        return "" if allow_self else None
    return name[5:] if name and name.startswith("self.") else None
