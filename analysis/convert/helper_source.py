"""MindSpore definitions the converter copies into a converted file where a PyTorch call has no
classic-API counterpart of the same shape. The converter reads this file as text (helpers.py) and
never imports it; tests import it to check each definition against PyTorch.

Rules for what is written here, since it is copied as it stands:
- one top-level definition per helper; refer to MindSpore only through `mindspore.`, `ops.` and
  `nn.` (renamed to the converted file's spelling of those modules), to other helpers of this file
  by name (they are written along with it), to modules that come with MindSpore (numpy, PIL) only by
  importing them inside the function, and to nothing else outside;
- the helper's name is the PyTorch name it stands for, or says what it does (renamed when the
  converted file already uses it).
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


def make_grid_array(tensor, nrow=8, padding=2, normalize=False, value_range=None, scale_each=False, pad_value=0.0):
    """torchvision.utils.make_grid's layout as a numpy array (C, H, W): 1-channel images repeated to 3
    channels, tiles of the image size separated and framed by `padding` pixels of pad_value, nrow
    tiles a row, a single image returned as it is; normalize= rescales to [0, 1] from value_range or
    the min/max (per image with scale_each)."""
    import math
    import numpy as np

    def as_array(t):
        return t.asnumpy() if hasattr(t, "asnumpy") else np.asarray(t)

    array = np.stack([as_array(t) for t in tensor]) if isinstance(tensor, (list, tuple)) else as_array(tensor).copy()
    if array.ndim == 2:
        array = array[None]
    if array.ndim == 3:
        if array.shape[0] == 1:
            array = np.concatenate([array] * 3, 0)
        array = array[None]
    if array.ndim == 4 and array.shape[1] == 1:
        array = np.concatenate([array] * 3, 1)
    if normalize:
        def rescale(part):
            low, high = value_range if value_range is not None else (float(part.min()), float(part.max()))
            np.clip(part, low, high, out=part)
            part -= low
            part /= max(high - low, 1e-5)
        for part in (array if scale_each else [array]):
            rescale(part)
    if array.shape[0] == 1:
        return array[0]
    count = array.shape[0]
    columns = min(nrow, count)
    rows = int(math.ceil(float(count) / columns))
    height, width = array.shape[2] + padding, array.shape[3] + padding
    grid = np.full((array.shape[1], height * rows + padding, width * columns + padding), pad_value, dtype=array.dtype)
    for k in range(count):
        y, x = divmod(k, columns)
        grid[:, y * height + padding:(y + 1) * height, x * width + padding:(x + 1) * width] = array[k]
    return grid


def make_grid(tensor, **kwargs):
    """torchvision.utils.make_grid: the images tiled into one (C, H, W) tensor."""
    return mindspore.Tensor(make_grid_array(tensor, **kwargs))


def save_image(tensor, fp, format=None, **kwargs):
    """torchvision.utils.save_image: the images tiled as make_grid does, written with PIL as an 8-bit
    image file (round(x * 255) clamped to 0..255)."""
    import numpy as np
    from PIL import Image
    grid = make_grid_array(tensor, **kwargs)
    pixels = np.clip(grid * 255 + 0.5, 0, 255).transpose(1, 2, 0).astype(np.uint8)
    Image.fromarray(pixels.squeeze(2) if pixels.shape[2] == 1 else pixels).save(fp, format=format)


def cast_cell(cell, dtype):
    """A network's .double()/.float()/.half(): its floating-point parameters and buffers cast to
    dtype, the network returned."""
    for param in cell.get_parameters():
        if param.dtype in (mindspore.float16, mindspore.float32, mindspore.float64, mindspore.bfloat16):
            param.set_dtype(dtype)
    return cell


def int64_indices(result):
    """(values, indices) of a top-k with PyTorch's int64 indices (MindSpore gives int32, which int64
    ids refuse to be concatenated with)."""
    values, indices = result
    return values, indices.astype(mindspore.int64)


def save(obj, f):
    """torch.save(obj, f) for objects holding MindSpore tensors (a training checkpoint's dict, a list
    of tensors, an array): pickled with each Tensor or Parameter as a numpy array and its dtype (and a
    Parameter's name), so load() gives them back; the file keeps the name it is given (a pickle needs
    no .ckpt). A network or an optimizer itself is refused: save its state_dict_of() and build it
    from its class again before loading that."""
    import os
    import pickle

    def pack(value):
        if isinstance(value, nn.Cell):
            raise TypeError(f"save() of a whole {type(value).__name__}: save state_dict_of(it) instead and build it "
                            "from its class again before loading that state into it")
        if isinstance(value, mindspore.Tensor):
            data = value.astype(mindspore.float32) if value.dtype == mindspore.bfloat16 else value
            parameter = isinstance(value, mindspore.Parameter)
            return {"__mindspore_tensor__": data.asnumpy(), "dtype": str(value.dtype).lower(),
                    "parameter": value.name if parameter else None,
                    "requires_grad": bool(value.requires_grad) if parameter else False}
        if isinstance(value, dict):
            packed = value.copy()  # keeps an OrderedDict ordered
            for key in packed:
                packed[key] = pack(packed[key])
            return packed
        if isinstance(value, (list, tuple)):
            items = [pack(item) for item in value]
            return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
        return value

    packed = pack(obj)
    if hasattr(f, "write"):
        pickle.dump(packed, f, protocol=4)  # protocol 2 and later start with 0x80: load() tells them from a .ckpt
    else:
        with open(os.fspath(f), "wb") as file:
            pickle.dump(packed, file, protocol=4)


def load(f, weights_only=True):
    """torch.load(f) of what save() wrote (Tensors and Parameters come back as they were saved) or of
    a MindSpore checkpoint written by mindspore.save_checkpoint (a dict name -> Parameter). As with
    torch.load's default weights_only=True, the pickle may hold containers, numbers, strings and
    arrays only; weights_only=False reads any pickle (only for files you trust)."""
    import os
    import pickle

    allowed = {("collections", "OrderedDict"), ("builtins", "set"), ("builtins", "frozenset"),
               ("builtins", "complex"), ("builtins", "slice"), ("builtins", "bytearray"), ("_codecs", "encode"),
               ("numpy", "ndarray"), ("numpy", "dtype"), ("numpy.core.multiarray", "_reconstruct"),
               ("numpy._core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "scalar"),
               ("numpy._core.multiarray", "scalar")}

    class Unpickler(pickle.Unpickler):
        def find_class(self, module, name):
            if not weights_only or (module, name) in allowed:
                return super().find_class(module, name)
            raise pickle.UnpicklingError(f"load() refuses {module}.{name} with weights_only=True: pass "
                                         "weights_only=False if you trust this file")

    def unpack(value):
        if isinstance(value, dict) and "__mindspore_tensor__" in value:
            tensor = mindspore.Tensor(value["__mindspore_tensor__"], dtype=getattr(mindspore, value["dtype"]))
            if value["parameter"] is None:
                return tensor
            return mindspore.Parameter(tensor, name=value["parameter"], requires_grad=value["requires_grad"])
        if isinstance(value, dict):
            value = value.copy()
            for key in value:
                value[key] = unpack(value[key])
            return value
        if isinstance(value, (list, tuple)):
            items = [unpack(item) for item in value]
            return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
        return value

    if hasattr(f, "read"):
        return unpack(Unpickler(f).load())
    with open(os.fspath(f), "rb") as file:
        head = file.read(2)
        if head[:1] == b"\x80":
            file.seek(0)
            return unpack(Unpickler(file).load())
    if head == b"PK":
        raise ValueError(f"{f} is a PyTorch file (torch.save's zip format): load it with torch and save "
                         "its tensors as numpy arrays first")
    return mindspore.load_checkpoint(os.fspath(f))


def state_dict_of(obj):
    """obj.state_dict(). A network's: its parameters (buffers included) by name. An optimizer's: its
    own state as PyTorch's, {"state": its moments and step counts by name, "param_groups": each
    group's settings, the learning rate as a number}, without the network's parameters it also
    holds. An LR scheduler's: its counters and settings. Anything else's own state_dict()."""
    from mindspore.experimental import optim

    if isinstance(obj, (nn.Optimizer, optim.Optimizer)):
        trained = {id(param) for param in obj.parameters}
        state = {name: param for name, param in obj.parameters_dict().items() if id(param) not in trained}
        for attr, value in vars(obj).items():  # per-parameter state some keep in plain lists (NAdam, ASGD)
            if attr != "lrs" and isinstance(value, (list, tuple)) and value \
                    and all(isinstance(item, mindspore.Parameter) for item in value):
                state.update((item.name, item) for item in value if id(item) not in trained)
        groups = [{key: float(value) if key == "lr" else value for key, value in group.items() if key != "params"}
                  for group in getattr(obj, "param_groups", [])]
        return {"state": state, "param_groups": groups}
    if isinstance(obj, nn.Cell):
        return obj.parameters_dict()
    if hasattr(obj, "state_dict"):
        return obj.state_dict()

    def data(value):
        if isinstance(value, (list, tuple)):
            return all(data(item) for item in value)
        return value is None or isinstance(value, (bool, int, float, str, mindspore.Tensor))

    # MindSpore's LR schedulers have no state_dict(): their data attributes, as PyTorch's schedulers
    # save theirs (not the optimizer, whose state holds the learning rates)
    return {key: value for key, value in vars(obj).items() if key not in ("optimizer", "_last_lr") and data(value)}


def load_state_dict_into(obj, state, strict=True):
    """obj.load_state_dict(state): each value copied into the parameter of the same name (cast to its
    dtype; shapes must match). As in PyTorch, strict=True refuses names missing on either side and a
    network's call returns (missing, unexpected) names; an optimizer takes back its moments, step
    counts and each group's settings (learning rate included) and returns None."""
    from mindspore.experimental import optim

    if not isinstance(obj, nn.Cell):
        if hasattr(obj, "load_state_dict"):
            return obj.load_state_dict(state)
        for key, value in state.items():  # what state_dict_of() took from an LR scheduler
            current = getattr(obj, key, None)
            if isinstance(current, mindspore.Parameter):
                value = value if isinstance(value, mindspore.Tensor) else mindspore.Tensor(value)
                current.set_data(mindspore.Tensor(value.astype(current.dtype)))
            else:
                setattr(obj, key, value)
        return None
    optimizer = isinstance(obj, (nn.Optimizer, optim.Optimizer))
    if optimizer and not (isinstance(state, dict) and set(state) == {"state", "param_groups"}):
        raise ValueError(f"not an optimizer's state: {type(obj).__name__} takes what state_dict_of(optimizer) "
                         "gives (a MindSpore checkpoint file holds parameters only, not the optimizer's settings)")
    own = state_dict_of(obj)
    params, values = (own["state"], state["state"]) if optimizer else (own, state)
    missing = [name for name in params if name not in values]
    unexpected = [name for name in values if name not in params]
    if (strict or optimizer) and (missing or unexpected):
        raise RuntimeError(f"Error(s) in loading the state of {type(obj).__name__}: missing {missing}, "
                           f"unexpected {unexpected}")
    for name, param in params.items():
        if name in values:
            value = values[name]
            value = value if isinstance(value, mindspore.Tensor) else mindspore.Tensor(value)
            if tuple(value.shape) != tuple(param.shape):
                raise RuntimeError(f"size mismatch for {name}: the state holds {tuple(value.shape)}, "
                                   f"{type(obj).__name__} has {tuple(param.shape)}")
            param.set_data(mindspore.Tensor(value.astype(param.dtype)))
    if not optimizer:
        return missing, unexpected
    groups = getattr(obj, "param_groups", [])
    if len(groups) != len(state["param_groups"]):
        raise ValueError(f"the state has {len(state['param_groups'])} parameter groups, the optimizer {len(groups)}")
    for group, saved in zip(groups, state["param_groups"]):
        for key, value in saved.items():
            if key == "lr" and isinstance(group.get("lr"), mindspore.Parameter):
                group["lr"].set_data(mindspore.Tensor(value, group["lr"].dtype))  # schedulers update this one
            else:
                group[key] = value
    return None
