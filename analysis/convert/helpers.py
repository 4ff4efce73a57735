"""Small functions written into the converted file where MindSpore has no counterpart of a PyTorch
utility but a few lines of numpy do the same job (torchvision.utils.make_grid / save_image).

The converted code must stand on its own: each helper is plain source text kept here as data, inserted
once after the file's imports, importing only numpy and PIL (both come with MindSpore) inside itself.
Call sites are renamed to the helper's name, which steps aside from a name the file already uses."""
from __future__ import annotations

import libcst as cst

# helper -> (source with {name} for its own name and {grid} for the grid helper's, helpers it calls)
# The grid layout is torchvision's (make_grid): 1-channel images repeated to 3 channels, tiles of the
# image size separated and framed by `padding` pixels of pad_value, nrow tiles a row, a single image
# returned as it is; normalize= rescales to [0, 1] from value_range or the min/max (per image with
# scale_each). save_image then writes round(x * 255) clamped to 0..255 as uint8 with PIL.
SOURCES = {
    "make_grid_array": ('''
def {name}(tensor, nrow=8, padding=2, normalize=False, value_range=None, scale_each=False, pad_value=0.0):
    """torchvision.utils.make_grid's layout as a numpy array (C, H, W) (written by the conversion)."""
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
''', ()),
    "make_grid": ('''
def {name}(tensor, **kwargs):
    """torchvision.utils.make_grid: the images tiled into one (C, H, W) tensor (written by the conversion)."""
    import mindspore
    return mindspore.Tensor({grid}(tensor, **kwargs))
''', ("make_grid_array",)),
    "save_image": ('''
def {name}(tensor, fp, format=None, **kwargs):
    """torchvision.utils.save_image: the images tiled as make_grid does, written as an 8-bit image file
    (written by the conversion)."""
    import numpy as np
    from PIL import Image
    grid = {grid}(tensor, **kwargs)
    pixels = np.clip(grid * 255 + 0.5, 0, 255).transpose(1, 2, 0).astype(np.uint8)
    Image.fromarray(pixels.squeeze(2) if pixels.shape[2] == 1 else pixels).save(fp, format=format)
''', ("make_grid_array",)),
    "cast_cell": ('''
def {name}(cell, dtype):
    """nn.Module.double()/.float()/.half(): the cell's floating-point parameters and buffers cast to dtype,
    the cell returned (written by the conversion)."""
    import mindspore
    for param in cell.get_parameters():
        if param.dtype in (mindspore.float16, mindspore.float32, mindspore.float64, mindspore.bfloat16):
            param.set_dtype(dtype)
    return cell
''', ()),
    "int64_indices": ('''
def {name}(result):
    """(values, indices) of a top-k with PyTorch's int64 indices (MindSpore gives int32, which int64 ids
    refuse to be concatenated with) (written by the conversion)."""
    import mindspore
    values, indices = result
    return values, indices.astype(mindspore.int64)
''', ()),
}
# torchvision API -> helper standing in for it
FOR_API = {
    "torchvision.utils.make_grid": "make_grid",
    "torchvision.utils.save_image": "save_image",
}


def request(ctx, helper: str) -> str:
    """The name the file's copy of helper goes by (adding it and what it calls to the file's helpers)."""
    names = ctx.__dict__.setdefault("helpers", {})  # helper -> its name in this file, in order of need
    if helper not in names:
        for needed in SOURCES[helper][1]:
            request(ctx, needed)
        names[helper] = _free_name(ctx, helper, set(names.values()))
    return names[helper]


def _free_name(ctx, helper: str, taken: set[str]) -> str:
    """helper's own name unless the file gives that name another meaning, else ms_<helper>(_2, _3 ...)."""
    occupied = ctx.spelling.occupied
    candidates = [helper, f"ms_{helper}", *(f"ms_{helper}_{n}" for n in range(2, 100))]
    for name in candidates:
        if name not in taken and (occupied is None or (name not in occupied.other and not occupied.imports.get(name))):
            return name
    return candidates[-1]


def definitions(ctx) -> list[cst.BaseStatement]:
    """The function definitions of the helpers this file asked for."""
    names = ctx.__dict__.get("helpers", {})
    statements = []
    for helper, name in names.items():
        text = SOURCES[helper][0].format(name=name, grid=names.get("make_grid_array", ""))
        statements.extend(cst.parse_module(text.lstrip("\n")).body)
    return statements


def insert(module: cst.Module, statements: list[cst.BaseStatement]) -> cst.Module:
    """module with statements placed after its leading imports (and docstring)."""
    if not statements:
        return module
    body = list(module.body)
    index = 0
    for index, stmt in enumerate(body):
        if not (isinstance(stmt, cst.SimpleStatementLine) and all(
                isinstance(s, (cst.Import, cst.ImportFrom)) or (isinstance(s, cst.Expr) and index == 0
                                                                and isinstance(s.value, cst.SimpleString))
                for s in stmt.body)):
            break
    else:
        index = len(body)
    blank = [cst.EmptyLine(), cst.EmptyLine()]
    placed = [s.with_changes(leading_lines=blank) for s in statements]
    if index < len(body):  # two blank lines before the next statement, its comments kept
        lines = list(body[index].leading_lines)
        while lines and lines[0].comment is None:
            lines.pop(0)
        body[index] = body[index].with_changes(leading_lines=[*blank, *lines])
    return module.with_changes(body=[*body[:index], *placed, *body[index:]])
