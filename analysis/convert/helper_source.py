"""MindSpore definitions the converter copies into a converted file where a PyTorch call has no
classic-API counterpart of the same shape. The converter reads this file as text (helpers.py) and
never imports it; tests import it to check each definition against PyTorch.

Rules for what is written here, since it is copied as it stands:
- one top-level definition per helper; refer to MindSpore only through `mindspore.`, `ops.` and
  `nn.` (renamed to the converted file's spelling of those modules), and to nothing else outside;
- the helper's name is the PyTorch name it stands for (renamed when the file already uses it).
"""
import mindspore
from mindspore import nn, ops


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    """PyTorch's F.scaled_dot_product_attention with classic MindSpore ops (no fused attention
    kernel on CPU): softmax(query @ key^T * scale + mask) @ value. A boolean mask keeps the True
    positions, a float mask is added; is_causal keeps the lower triangle; dropout_p > 0 drops
    attention weights, as PyTorch does whenever it is passed (callers pass 0 outside training)."""
    scale = query.shape[-1] ** -0.5 if scale is None else scale
    scores = ops.matmul(query, key.swapaxes(-2, -1)) * scale
    if is_causal:
        keep = ops.tril(ops.ones((query.shape[-2], key.shape[-2]), mindspore.bool_))
        scores = scores.masked_fill(ops.logical_not(keep), float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == mindspore.bool_:
            scores = scores.masked_fill(ops.logical_not(attn_mask), float("-inf"))
        else:
            scores = scores + attn_mask
    weights = ops.softmax(scores, axis=-1)
    if dropout_p > 0.0:
        weights = ops.dropout(weights, p=dropout_p)
    return ops.matmul(weights, value)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """PyTorch's F.layer_norm with the LayerNorm primitive (ops.layer_norm has no CPU kernel):
    normalises the trailing len(normalized_shape) axes; a missing weight or bias is ones or zeros."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    axis = input.ndim - len(shape)
    weight = ops.ones(shape, input.dtype) if weight is None else weight
    bias = ops.zeros(shape, input.dtype) if bias is None else bias
    return ops.LayerNorm(begin_norm_axis=axis, begin_params_axis=axis, epsilon=eps)(input, weight, bias)[0]


class ModuleDict(nn.Cell):
    """PyTorch's nn.ModuleDict for entries MindSpore's CellDict refuses (CellList, SequentialCell,
    CellDict): every entry is an attribute of this cell, so `d.key`, `d["key"]`, iteration over the
    keys and parameter names (`d.key.0.weight`, as in PyTorch's state dict) all read the same."""

    def __init__(self, modules=None):
        super().__init__()
        self._entry_names = []
        if modules is not None:
            self.update(modules)

    def update(self, modules):
        for name, cell in (modules.items() if hasattr(modules, "items") else modules):
            self[name] = cell

    def __setitem__(self, name, cell):
        setattr(self, name, cell)
        if name not in self._entry_names:
            self._entry_names.append(name)

    def __getitem__(self, name):
        if name not in self._entry_names:
            raise KeyError(name)
        return getattr(self, name)

    def __delitem__(self, name):
        self._entry_names.remove(name)
        delattr(self, name)

    def __contains__(self, name):
        return name in self._entry_names

    def __len__(self):
        return len(self._entry_names)

    def __iter__(self):
        return iter(list(self._entry_names))

    def keys(self):
        return list(self._entry_names)

    def values(self):
        return [getattr(self, name) for name in self._entry_names]

    def items(self):
        return [(name, getattr(self, name)) for name in self._entry_names]

    def pop(self, name):
        cell = self[name]
        del self[name]
        return cell
