"""Pair PyTorch submodules with MindSpore cells, then copy the weights across.

Alignment goes by the converter's layer map first, then by attribute path
(the converter keeps attribute names), then by order among the leaves still
unpaired whose kinds correspond. Weight transfer walks the aligned pairs and
renames per layer kind (BatchNorm weight -> gamma, ...), reshaping where the
frameworks only differ in layout (Conv1d keeps a unit height axis).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import tables


@dataclass
class Pair:
    torch_path: str
    ms_path: str
    torch_type: str
    ms_type: str
    how: str  # "layer_map" | "path" | "order"
    module: object = field(repr=False, default=None)
    cell: object = field(repr=False, default=None)


@dataclass
class Link:
    """One torch tensor and the MindSpore Parameter that receives it."""

    torch_name: str
    ms_name: str
    layer: str
    kind: str  # "parameter" | "buffer"
    tensor: object = field(repr=False, default=None)
    ms_param: object = field(repr=False, default=None)


@dataclass
class Alignment:
    pairs: list[Pair]
    unpaired_torch: list[str]
    unpaired_mindspore: list[str]
    links: list[Link] = field(default_factory=list)
    unmatched_torch: list[dict] = field(default_factory=list)
    unmatched_mindspore: list[str] = field(default_factory=list)
    by_design: list[dict] = field(default_factory=list)

    def pair_for(self, torch_path: str) -> Pair | None:
        return next((p for p in self.pairs if p.torch_path == torch_path), None)

    def to_dict(self) -> dict:
        return {
            "pairs": [
                {"torch": p.torch_path, "mindspore": p.ms_path, "torch_type": p.torch_type,
                 "mindspore_type": p.ms_type, "how": p.how}
                for p in self.pairs
            ],
            "unpaired_torch": self.unpaired_torch,
            "unpaired_mindspore": self.unpaired_mindspore,
            "transferred": len(self.links),
            "unmatched_torch": self.unmatched_torch,
            "unmatched_mindspore": self.unmatched_mindspore,
            "no_counterpart_by_design": self.by_design,
        }


def map_path(entry: dict) -> str | None:
    """Submodule path of a converter layer-map record ("path", or "attribute")."""
    return entry.get("path") or entry.get("attribute")


def _compatible(torch_type: str, ms_type: str) -> bool:
    return ms_type in tables.CELL_FOR_MODULE.get(torch_type, (torch_type,))


def align(torch_model, ms_model, layer_map: list[dict] | None = None) -> Alignment:
    torch_mods = dict(torch_model.named_modules())
    ms_cells = dict(ms_model.cells_and_names())
    mapped_paths = {map_path(entry) for entry in (layer_map or [])}
    pairs: list[Pair] = []
    used_ms: set[str] = set()
    for path, module in torch_mods.items():
        if path in ms_cells:
            cell = ms_cells[path]
            how = "layer_map" if path in mapped_paths else "path"
            pairs.append(Pair(path, path, type(module).__name__, type(cell).__name__, how, module, cell))
            used_ms.add(path)

    paired = {p.torch_path for p in pairs}
    # Order fallback: leaves only, kinds must correspond.
    torch_left = [p for p, m in torch_mods.items() if p not in paired and not list(m.children())]
    ms_left = [p for p, c in ms_cells.items() if p not in used_ms and not c.name_cells()]
    for tpath in list(torch_left):
        ttype = type(torch_mods[tpath]).__name__
        match = next((m for m in ms_left if _compatible(ttype, type(ms_cells[m]).__name__)), None)
        if match is None:
            continue
        cell = ms_cells[match]
        pairs.append(Pair(tpath, match, ttype, type(cell).__name__, "order", torch_mods[tpath], cell))
        torch_left.remove(tpath)
        ms_left.remove(match)
    order = {p: i for i, p in enumerate(torch_mods)}
    pairs.sort(key=lambda p: order[p.torch_path])
    return Alignment(pairs, torch_left, ms_left)


class BufferSlot:
    """A MindSpore buffer (a Tensor registered with register_buffer, or a
    plain Tensor attribute) with the Parameter methods transfer and compare
    use: buffers are state, moved and compared like parameters."""

    requires_grad = False

    def __init__(self, owner, name: str, registered: bool) -> None:
        self.owner, self.name, self.registered = owner, name, registered

    @property
    def value(self):
        return self.owner._buffers[self.name] if self.registered else getattr(self.owner, self.name)

    @property
    def shape(self):
        return tuple(self.value.shape)

    @property
    def dtype(self):
        return self.value.dtype

    def asnumpy(self):
        return self.value.asnumpy()

    def set_data(self, tensor) -> None:
        if self.registered:
            self.owner._buffers[self.name] = tensor
        else:
            object.__setattr__(self.owner, self.name, tensor)


def _buffers(cell) -> dict[str, object]:
    return {name: BufferSlot(cell, name, True) for name, value in getattr(cell, "_buffers", {}).items()
            if value is not None}


def _ms_tensors(cell, recurse: bool) -> dict[str, object]:
    if recurse:
        found = {name: param for name, param in cell.parameters_and_names()}
        for prefix, sub in cell.cells_and_names():
            found.update({f"{prefix}.{n}" if prefix else n: slot for n, slot in _buffers(sub).items()})
        return found
    return {**dict(cell._params), **_buffers(cell)}  # direct parameters only (no public accessor)


def _tensor_attribute(cell, name: str):
    """A plain (unregistered) Tensor attribute of that name on the cell: the
    converted form of a buffer written as `self.mask = ops.tril(...)`."""
    import mindspore as ms

    owner, _, attr = name.rpartition(".")
    try:
        for part in owner.split(".") if owner else []:
            cell = getattr(cell, part)
        value = cell.__dict__.get(attr)
    except AttributeError:
        return None
    return BufferSlot(cell, attr, False) if isinstance(value, ms.Tensor) and not isinstance(value, ms.Parameter) else None


def transfer_weights(torch_model, ms_model, alignment: Alignment) -> Alignment:
    """Copy every torch parameter/buffer into its MindSpore counterpart."""
    import mindspore as ms

    linked_ms: set[int] = set()
    seen_torch: set[str] = set()
    tied: dict[int, tuple[str, object]] = {}  # id of a torch tensor -> (its first name, its MindSpore parameter)
    for pair in alignment.pairs:
        module, cell = pair.module, pair.cell
        leaf = not list(module.children())
        # Renames are for torch.nn's own layers: a user class may also be called "LayerNorm".
        builtin = type(module).__module__.startswith("torch.nn")
        renames = tables.PARAM_RENAMES.get(pair.torch_type, {}) if builtin else {}
        torch_tensors = [(n, t, "parameter") for n, t in module.named_parameters(recurse=leaf)]
        torch_tensors += [(n, t, "buffer") for n, t in module.named_buffers(recurse=leaf)]
        ms_tensors = _ms_tensors(cell, recurse=leaf)
        for name, tensor, kind in torch_tensors:
            full = f"{pair.torch_path}.{name}" if pair.torch_path else name
            if full in seen_torch:
                continue
            seen_torch.add(full)
            base = name.rsplit(".", 1)[-1]
            if base in tables.NO_COUNTERPART:
                alignment.by_design.append({"name": full, "reason": tables.NO_COUNTERPART[base]})
                continue
            target = _find_ms_name(renames.get(name, name), ms_tensors)
            if target is None and name in renames:  # a custom cell that kept PyTorch's names
                target = _find_ms_name(name, ms_tensors)
            if target is None and kind == "buffer":
                slot = _tensor_attribute(cell, renames.get(name, name))
                if slot is not None:
                    target = renames.get(name, name)
                    ms_tensors[target] = slot
            if target is None:
                alignment.unmatched_torch.append(
                    {"name": full, "layer": pair.torch_path, "reason": f"no MindSpore parameter for '{name}' in "
                     f"{pair.ms_type} '{pair.ms_path}' (has: {', '.join(sorted(ms_tensors)) or 'none'})"}
                )
                continue
            param = ms_tensors[target]
            first = tied.get(id(tensor))
            if first is not None and first[1] is param:
                # Tied weights (`emb.weight = head.weight`) kept tied by the conversion: one tensor,
                # one link (a second would differentiate and step the same parameter twice).
                alignment.by_design.append({"name": full, "reason": f"tied to {first[0]}: the same tensor in both "
                                            "frameworks, checked under that name"})
                continue
            tied.setdefault(id(tensor), (full, param))
            value = tensor.detach().cpu().numpy()
            if value.size != int(np.prod(param.shape)):
                alignment.unmatched_torch.append(
                    {"name": full, "layer": pair.torch_path, "reason": f"shape {list(value.shape)} cannot fill "
                     f"'{target}' of shape {list(param.shape)}"}
                )
                continue
            param.set_data(ms.Tensor(value.reshape(param.shape).astype(_np_dtype(param.dtype))))
            linked_ms.add(id(param))
            ms_full = f"{pair.ms_path}.{target}" if pair.ms_path else target
            alignment.links.append(Link(full, ms_full, pair.torch_path, kind, tensor, param))
    # Torch tensors on modules that found no cell at all.
    for name, tensor in list(torch_model.named_parameters()) + list(torch_model.named_buffers()):
        if name not in seen_torch and name.rsplit(".", 1)[-1] not in tables.NO_COUNTERPART:
            layer = name.rsplit(".", 1)[0] if "." in name else ""
            alignment.unmatched_torch.append({"name": name, "layer": layer, "reason": "its layer has no MindSpore cell"})
        elif name not in seen_torch:
            alignment.by_design.append({"name": name, "reason": tables.NO_COUNTERPART[name.rsplit(".", 1)[-1]]})
    alignment.unmatched_mindspore = [
        name for name, param in ms_model.parameters_and_names() if id(param) not in linked_ms
    ]
    return alignment


def _find_ms_name(wanted: str, ms_tensors: dict) -> str | None:
    if wanted in ms_tensors:
        return wanted
    suffix = [n for n in ms_tensors if n.rsplit(".", 1)[-1] == wanted.rsplit(".", 1)[-1]]
    return suffix[0] if len(suffix) == 1 else None


def _np_dtype(ms_dtype) -> np.dtype:
    import mindspore as ms

    table = {ms.float32: np.float32, ms.float16: np.float16, ms.float64: np.float64, ms.int32: np.int32,
             ms.int64: np.int64, ms.bool_: np.bool_}
    return table.get(ms_dtype, np.float32)
