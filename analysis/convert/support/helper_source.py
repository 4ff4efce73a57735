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


def float_input(x):
    """x as PyTorch reads it in a floating-point function: an integer or boolean tensor becomes float32
    (PyTorch's default dtype; MindSpore's CPU kernels refuse such inputs), anything else stays as it is."""
    if isinstance(x, mindspore.Tensor) and not (ops.is_floating_point(x) or ops.is_complex(x)):
        return x.astype(mindspore.float32)
    return x


def sizes_tuple(sizes):
    """Sizes for MindSpore's tile, which takes a tuple or one int and raises for the list PyTorch's
    repeat/tile also accept: a list becomes the same tuple, anything else stays as it is."""
    return tuple(sizes) if isinstance(sizes, list) else sizes


def ceil(input):
    """torch.ceil: an integer tensor is its own ceiling, as PyTorch returns it (MindSpore's kernel takes floats)."""
    return ops.ceil(input) if ops.is_floating_point(input) else input


def floor(input):
    """torch.floor: an integer tensor is its own floor, as PyTorch returns it (MindSpore's kernel takes floats)."""
    return ops.floor(input) if ops.is_floating_point(input) else input


def trunc(input):
    """torch.trunc / torch.fix: an integer tensor comes back as it is, as in PyTorch (MindSpore's kernel takes
    floats)."""
    return ops.trunc(input) if ops.is_floating_point(input) else input


def sign(input):
    """torch.sign: booleans are their own sign; int8, int16 and uint8 through int32 and back (MindSpore's Sign
    kernel has none of these on CPU)."""
    if input.dtype == mindspore.bool_:
        return input
    if input.dtype in (mindspore.int8, mindspore.int16, mindspore.uint8):
        return ops.sign(input.astype(mindspore.int32)).astype(input.dtype)
    return ops.sign(input)


def sgn(input):
    """torch.sgn: x / |x| of a complex tensor (0 where x is 0), sign() of any other."""
    if ops.is_complex(input):
        return ops.sgn(input)
    return sign(input)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """torch.nan_to_num for every dtype: integer and boolean tensors hold no NaN or infinity and come back
    unchanged; float64 (which MindSpore's kernel refuses) is replaced element by element, infinities by the
    dtype's largest and smallest values unless given."""
    if not ops.is_floating_point(input):
        return input
    if input.dtype != mindspore.float64:
        return ops.nan_to_num(input, nan, posinf, neginf)
    largest = 1.7976931348623157e308
    x = ops.where(ops.isnan(input), ops.full_like(input, nan), input)
    x = ops.where(x == float("inf"), ops.full_like(x, largest if posinf is None else posinf), x)
    return ops.where(x == float("-inf"), ops.full_like(x, -largest if neginf is None else neginf), x)


def randint(low=0, high=None, size=None, *, dtype=None):
    """torch.randint(high, size), torch.randint(high, size=size) and torch.randint(low, high, size): int64
    draws, cast to dtype when one is given (PyTorch draws integers into a float dtype too; MindSpore's randint
    takes integer dtypes only)."""
    if size is None:
        low, high, size = 0, low, high
    elif high is None:  # the one bound given is the upper one
        low, high = 0, low
    draw = ops.randint(low, high, tuple(size), dtype=mindspore.int64)
    return draw if dtype is None or dtype == mindspore.int64 else draw.astype(dtype)


def logspace(start, end, steps, base=10.0, dtype=None):
    """torch.logspace: base ** linspace(start, end, steps) in float64, in dtype (float32 by default); for an
    integer dtype PyTorch truncates start and end to integers first. MindSpore's logspace takes an integer
    base and float dtypes only."""
    import numpy as np

    start, end, base = (v.asnumpy().item() if isinstance(v, mindspore.Tensor) else v for v in (start, end, base))
    dtype = mindspore.float32 if dtype is None else dtype
    if not (dtype.is_floating_point or dtype in (mindspore.complex64, mindspore.complex128)):
        start, end = int(start), int(end)
    return mindspore.Tensor(np.logspace(start, end, steps, base=base), dtype=dtype)


def linspace(start, end, steps, dtype=None):
    """torch.linspace: PyTorch's formula (the first half counted up from start, the second down from end) in
    float64, or complex128 for a complex dtype, then cast to dtype (float32 by default; for an integer dtype
    PyTorch truncates start and end first, and the values). MindSpore's linspace computes float16/float32
    only and refuses steps=0."""
    import numpy as np

    start, end = (v.asnumpy().item() if isinstance(v, mindspore.Tensor) else v for v in (start, end))
    dtype = mindspore.float32 if dtype is None else dtype
    complex_ = dtype in (mindspore.complex64, mindspore.complex128)
    if not (dtype.is_floating_point or complex_):
        start, end = int(start), int(end)
    kind = np.complex128 if complex_ else np.float64
    if steps <= 1:
        values = np.array([start] * steps, dtype=kind)
    else:
        index = np.arange(steps)
        step = (kind(end) - kind(start)) / (steps - 1)
        values = np.where(index < steps // 2, kind(start) + step * index, kind(end) - step * (steps - 1 - index))
    return mindspore.Tensor(values, dtype=dtype)


def index_add(input, dim, index, source, alpha=1):
    """Tensor.index_add: input with alpha * source added at index along dim, input left as it was.
    MindSpore's IndexAdd takes int32 indices only (PyTorch's are int64) and adds into its first argument
    in place, and has no int64, bool or complex kernel; its Tensor.index_add has no CPU kernel."""
    if input.ndim == 0:  # PyTorch reads a 0-d tensor as one element along dim 0
        return index_add(input.reshape(1), 0, index.reshape(-1), source.reshape(-1), alpha).reshape(())
    source = source if alpha == 1 else source * alpha
    if input.dtype in (mindspore.float16, mindspore.float32, mindspore.float64, mindspore.int8, mindspore.int16,
                       mindspore.int32, mindspore.uint8):
        return ops.index_add(input.copy(), index.astype(mindspore.int32), source.astype(input.dtype), dim)
    import numpy as np  # int64, bool, complex: no IndexAdd kernel; the same sums in NumPy

    out = input.asnumpy().copy()
    np.add.at(np.moveaxis(out, dim, 0), index.asnumpy(), np.moveaxis(source.asnumpy().astype(out.dtype), dim, 0))
    return mindspore.Tensor(out)


def index_fill(input, dim, index, value):
    """Tensor.index_fill with PyTorch's int64 index: MindSpore's IndexFill takes int32 indices only and has
    no bool or complex kernel."""
    if input.ndim == 0:  # PyTorch reads a 0-d tensor as one element along dim 0
        return index_fill(input.reshape(1), 0, index.reshape(-1), value).reshape(())
    if input.dtype not in (mindspore.bool_, mindspore.complex64, mindspore.complex128):
        return input.index_fill(dim, index.astype(mindspore.int32), value)
    import numpy as np  # bool, complex: no IndexFill kernel; the same writes in NumPy

    out = input.asnumpy().copy()
    np.moveaxis(out, dim, 0)[index.asnumpy()] = value.asnumpy() if isinstance(value, mindspore.Tensor) else value
    return mindspore.Tensor(out)


def meshgrid(*tensors, indexing=None):
    """torch.meshgrid: the tensors given one by one or as one list or tuple, and PyTorch's default indexing
    'ij' (MindSpore's default is 'xy', which swaps the first two output axes)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    return ops.meshgrid(*tensors, indexing="ij" if indexing is None else indexing)


def nonzero(input):
    """torch.nonzero (as_tuple=False): the (n, ndim) int64 indices of the nonzero elements. A complex tensor
    goes through `!= 0` and a 0-d one through a 1-element view, (1, 0) or (0, 0) as PyTorch gives it
    (MindSpore's NonZero kernel fails on both)."""
    if ops.is_complex(input):
        input = input != 0
    if input.ndim == 0:
        return ops.nonzero(input.reshape(1))[:, :0]
    return ops.nonzero(input)


def logsumexp(input, dim, keepdim=False):
    """torch.logsumexp: log(sum(exp(x - m))) + m with the maximum m taken out only where it is finite, as
    PyTorch does (MindSpore's logsumexp subtracts an infinite maximum too: inf - inf gives NaN); integer and
    boolean tensors read as float32, as PyTorch reads them."""
    x = float_input(input)
    m = ops.amax(x, dim, keepdims=True)
    m = ops.where(ops.isinf(m), ops.zeros_like(m), m)
    out = ops.log(ops.sum(ops.exp(x - m), dim, keepdim=True)) + m
    return out if keepdim else out.squeeze(dim)


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """torch.diff for any n (MindSpore's diff takes n=1 only): prepend and append joined to the input along
    dim, then the first difference taken n times (n=0: the joined input)."""
    parts = [p for p in (prepend, input, append) if p is not None]
    x = ops.cat(parts, axis=dim) if len(parts) > 1 else input
    for _ in range(n):
        x = ops.diff(x, 1, dim)
    return x


def int64_indices(result):
    """(values, indices) of a top-k with PyTorch's int64 indices (MindSpore gives int32, which int64
    ids refuse to be concatenated with)."""
    values, indices = result
    return values, indices.astype(mindspore.int64)


# -- linear algebra (torch.linalg and the older torch.* forms): checked by tests/convert/test_linalg.py --

def conj_transpose(A):
    """A's last two axes swapped, conjugated when complex (PyTorch's A.mH)."""
    return A.swapaxes(-2, -1).conj() if A.is_complex() else A.swapaxes(-2, -1)


def broadcast_matrices(A, B):
    """A and B with their batch axes (all but the last two) broadcast to one shape: MindSpore's
    solvers take equal batch shapes, PyTorch's broadcast them."""
    import numpy as np
    batch = tuple(np.broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2])))
    return ops.broadcast_to(A, batch + tuple(A.shape[-2:])), ops.broadcast_to(B, batch + tuple(B.shape[-2:]))


def triangular_solve_batched(A, B, lower, adjoint=False):
    """X with A @ X = B (A^H @ X = B with adjoint) for triangular A, reading only A's lower or upper
    triangle, batch axes broadcast."""
    A, B = broadcast_matrices(A, B)
    return ops.MatrixTriangularSolve(lower=lower, adjoint=adjoint)(A, B)


def hermitian_from_triangle(A, upper=False):
    """The Hermitian (real: symmetric) matrix A's lower (upper) triangle defines, the triangle PyTorch's
    decompositions read: the other one is its conjugate mirror."""
    n = A.shape[-1]
    ones = ops.ones((n, n), mindspore.float32)
    keep = ops.triu(ones) if upper else ops.tril(ones)
    strict = keep - ops.eye(n, n, mindspore.float32)
    return A * keep.astype(A.dtype) + conj_transpose(A * strict.astype(A.dtype))


def linalg_cholesky(A, *, upper=False):
    """torch.linalg.cholesky: L with A = L @ L^H from A's lower triangle (upper=True: U with
    A = U^H @ U from its upper triangle). Real matrices go to ops.cholesky; MindSpore has no complex
    kernel, so complex ones are factored column by column with LAPACK's arithmetic (a real, positive
    diagonal)."""
    if A.shape[-1] == 0:  # an empty matrix is its own factor (MindSpore's Tril refuses it)
        return A
    A = hermitian_from_triangle(A, upper)
    if not A.is_complex():
        return ops.cholesky(A, upper=upper)
    n = A.shape[-1]
    rows = ops.arange(n)
    columns = []
    for j in range(n):
        column = A[..., :, j]
        if j:
            done = ops.stack(columns, -1)
            column = column - ops.matmul(done, done[..., j, :].conj().unsqueeze(-1)).squeeze(-1)
        pivot = ops.sqrt(ops.real(column[..., j])).astype(A.dtype).unsqueeze(-1)
        below, diagonal = (rows > j).astype(A.dtype), (rows == j).astype(A.dtype)
        column = column / pivot * below + pivot * diagonal
        columns.append(column)
    L = ops.stack(columns, -1)
    return conj_transpose(L) if upper else L


def cholesky(input, upper=False):
    """torch.cholesky (deprecated form of torch.linalg.cholesky, upper= by position too)."""
    return linalg_cholesky(input, upper=upper)


def cholesky_solve(B, L, upper=False):
    """torch.cholesky_solve: X with A @ X = B where A = L @ L^H (upper=True: A = U^H @ U), as two
    triangular solves (also for complex matrices, which ops.cholesky_solve refuses), batch axes
    broadcast."""
    if upper:
        Y = triangular_solve_batched(L, B, lower=False, adjoint=True)
        return triangular_solve_batched(L, Y, lower=False)
    return triangular_solve_batched(L, triangular_solve_batched(L, B, lower=True), lower=True, adjoint=True)


def cholesky_inverse(L, upper=False):
    """torch.cholesky_inverse: the inverse of A = L @ L^H (upper=True: U^H @ U) from its factor,
    solving against the identity (ops.cholesky_inverse mixes up a batch of matrices)."""
    eye = ops.broadcast_to(ops.eye(L.shape[-1], L.shape[-1], L.dtype), tuple(L.shape))
    return cholesky_solve(eye, L, upper)


def linalg_solve(A, B, *, left=True):
    """torch.linalg.solve: X with A @ X = B (left=False: X @ A = B). B is a batch of vectors when it
    is 1-D or has A's shape without the last axis, as PyTorch decides; batch axes broadcast."""
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    rhs = B.unsqueeze(-1) if vector else B
    if left:
        X = ops.matrix_solve(*broadcast_matrices(A, rhs))
    else:
        X = ops.matrix_solve(*broadcast_matrices(A.swapaxes(-2, -1), rhs.swapaxes(-2, -1))).swapaxes(-2, -1)
    return X.squeeze(-1) if vector else X


def linalg_solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """torch.linalg.solve_triangular: X with A @ X = B (left=False: X @ A = B) for triangular A,
    reading only its upper or lower triangle (unitriangular: its diagonal taken as ones)."""
    if unitriangular:
        eye = ops.eye(A.shape[-1], A.shape[-1], A.dtype)
        A = A * (1 - eye) + eye
    if not left:
        return triangular_solve_batched(A.swapaxes(-2, -1), B.swapaxes(-2, -1), lower=upper).swapaxes(-2, -1)
    return triangular_solve_batched(A, B, lower=not upper)


def linalg_lu_factor(A, *, pivot=True):
    """torch.linalg.lu_factor: (LU, pivots) of partial pivoting, MindSpore's LU primitive (batched,
    the same factors as LAPACK's getrf) with PyTorch's 1-based int32 pivots."""
    import collections
    import importlib
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    if A.shape[-2] > A.shape[-1]:
        LU, pivots = lu_factor_columns(A)
    else:
        LU, pivots, _ = importlib.import_module("mindspore.scipy.ops").LU()(A)
    return collections.namedtuple("linalg_lu_factor", ["LU", "pivots"])(LU, pivots + 1)


def lu_factor_columns(A):
    """(LU, 0-based int32 pivots) of partial pivoting column by column, as LAPACK's getf2: for
    matrices with more rows than columns, whose rows MindSpore's LU primitive misplaces."""
    m, n = A.shape[-2], A.shape[-1]
    rows = ops.arange(m).astype(mindspore.int32)
    lower_k = [(rows > k).astype(A.dtype).reshape(m, 1) for k in range(n)]
    columns = ops.arange(n)
    LU, pivots = A, []
    for k in range(n):
        p = (ops.argmax(ops.abs(LU[..., k:, k]), -1).astype(mindspore.int32) + k).unsqueeze(-1)
        pivots.append(p)
        order = ops.where(rows == k, p, ops.where(rows == p, k, rows))  # rows k and p swapped
        LU = ops.gather_elements(LU, -2, ops.broadcast_to(order.unsqueeze(-1), tuple(LU.shape)))
        at_k = (columns == k).astype(A.dtype).reshape(1, n)
        right = (columns > k).astype(A.dtype).reshape(1, n)
        multipliers = LU[..., :, k:k + 1] / LU[..., k:k + 1, k:k + 1] * lower_k[k]
        LU = LU - ops.matmul(multipliers, LU[..., k:k + 1, :] * right)
        LU = LU * (1 - lower_k[k] * at_k) + multipliers * at_k
    return LU, ops.concat(pivots, -1)


def lu_with_infos(A, pivot=True, get_infos=False):
    """torch.lu: (LU, pivots) as linalg.lu_factor gives them, and with get_infos LAPACK's info per
    matrix (the 1-based index of the first zero on U's diagonal, 0 when there is none)."""
    LU, pivots = linalg_lu_factor(A, pivot=pivot)
    if not get_infos:
        return LU, pivots
    zero = LU.diagonal(0, -2, -1) == 0
    first = ops.argmax(zero.astype(mindspore.int32), -1).astype(mindspore.int32) + 1
    return LU, pivots, ops.where(zero.any(-1), first, ops.zeros_like(first))


def linalg_lu(A, *, pivot=True):
    """torch.linalg.lu: (P, L, U) with A = P @ L @ U, ops.lu_unpack of linalg.lu_factor's factors."""
    import collections
    P, L, U = ops.lu_unpack(*linalg_lu_factor(A, pivot=pivot))
    return collections.namedtuple("linalg_lu", ["P", "L", "U"])(P, L, U)


def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """torch.linalg.lu_solve: X with A @ X = B for A = P @ L @ U given by lu_factor (adjoint: A^H @ X = B;
    left=False: X @ A = B), as a row permutation and two triangular solves (ops.lu_solve loses float64
    precision)."""
    if not left:
        return conj_transpose(linalg_lu_solve(LU, pivots, conj_transpose(B), adjoint=not adjoint))
    P, L, U = ops.lu_unpack(LU, pivots)
    if adjoint:
        Y = triangular_solve_batched(U, B, lower=False, adjoint=True)
        Y = triangular_solve_batched(L, Y, lower=True, adjoint=True)
        return ops.matmul(*broadcast_matrices(P, Y))
    Y = ops.matmul(*broadcast_matrices(P.swapaxes(-2, -1), B))
    return triangular_solve_batched(U, triangular_solve_batched(L, Y, lower=True), lower=False)


def lu_solve(b, LU_data, LU_pivots):
    """torch.lu_solve (deprecated form of torch.linalg.lu_solve, the right-hand side first)."""
    return linalg_lu_solve(LU_data, LU_pivots, b)


def linalg_matrix_power(A, n):
    """torch.linalg.matrix_power: A @ A ... (n times) with PyTorch's order of products (squarings from
    the lowest bit up), the identity for n = 0, the inverse's power for n < 0 (ops.matrix_power
    computes float64 in float32)."""
    if n == 0:
        return ops.broadcast_to(ops.eye(A.shape[-1], A.shape[-1], A.dtype), tuple(A.shape))
    a = ops.inverse(A) if n < 0 else A
    n = abs(n)
    if n == 1:
        return a.copy()
    if n == 2:
        return ops.matmul(a, a)
    if n == 3:
        return ops.matmul(ops.matmul(a, a), a)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else ops.matmul(z, z)
        if bit:
            result = z if result is None else ops.matmul(result, z)
    return result


def matrix_power(input, n):
    """torch.matrix_power: torch.linalg.matrix_power under its older name."""
    return linalg_matrix_power(input, n)


def linalg_eigh(A, UPLO="L"):
    """torch.linalg.eigh: (eigenvalues ascending, real; eigenvectors as columns) of the Hermitian
    matrix that A's lower (UPLO='U': upper) triangle defines. Each eigenvector is unique up to its
    sign (phase when complex) only: MindSpore's may be the negative of PyTorch's."""
    import collections
    values, vectors = ops.operations.math_ops.SelfAdjointEig()(hermitian_from_triangle(A, UPLO != "L"))
    return collections.namedtuple("linalg_eigh", ["eigenvalues", "eigenvectors"])(ops.real(values), vectors)


def linalg_eigvalsh(A, UPLO="L"):
    """torch.linalg.eigvalsh: the eigenvalues of linalg.eigh, ascending and real."""
    return linalg_eigh(A, UPLO).eigenvalues


def linalg_eig(A):
    """torch.linalg.eig: (eigenvalues, eigenvectors), complex, through ops.eig. The pairs are
    PyTorch's, but their order and each eigenvector's phase can differ from LAPACK's."""
    import collections
    values, vectors = ops.eig(A)
    return collections.namedtuple("linalg_eig", ["eigenvalues", "eigenvectors"])(values, vectors)


def linalg_eigvals(A):
    """torch.linalg.eigvals: the eigenvalues of linalg_eig (ops.eigvals), in MindSpore's order."""
    return ops.eigvals(A)


def linalg_svd(A, full_matrices=True):
    """torch.linalg.svd: (U, S, Vh) with A = U @ diag(S) @ Vh, S descending and real. Each pair of
    singular vectors is unique up to its sign (phase when complex) only: MindSpore's may be the
    negative of PyTorch's."""
    import collections
    S, U, V = ops.svd(A, full_matrices=full_matrices)
    return collections.namedtuple("linalg_svd", ["U", "S", "Vh"])(U, ops.real(S), conj_transpose(V))


def linalg_svdvals(A):
    """torch.linalg.svdvals: the singular values, descending and real."""
    return ops.real(ops.svd(A, compute_uv=False))


def svd(input, some=True, compute_uv=True):
    """torch.svd: (U, S, V) with input = U @ diag(S) @ V^H (V, not V^H; some=False: square U and V);
    compute_uv=False gives zero U and V as PyTorch does. Signs of singular vectors as linalg_svd."""
    import collections
    result = collections.namedtuple("svd", ["U", "S", "V"])
    if not compute_uv:
        m, n = input.shape[-2], input.shape[-1]
        batch = tuple(input.shape[:-2])
        return result(ops.zeros(batch + (m, m), input.dtype), linalg_svdvals(input),
                      ops.zeros(batch + (n, n), input.dtype))
    S, U, V = ops.svd(input, full_matrices=not some)
    return result(U, ops.real(S), V)


def linalg_qr(A, mode="reduced"):
    """torch.linalg.qr: (Q, R) by Householder reflections as LAPACK's geqrf computes them (the same
    signs); mode='complete' gives a square Q, mode='r' an empty Q."""
    import collections
    result = collections.namedtuple("linalg_qr", ["Q", "R"])
    if mode == "r":
        return result(ops.zeros((0,), A.dtype), ops.qr(A, "reduced")[1])
    Q, R = ops.qr(A, mode)
    return result(Q, R)


def qr(input, some=True):
    """torch.qr: linalg_qr with some=True as mode 'reduced', some=False as 'complete'."""
    return linalg_qr(input, "reduced" if some else "complete")


def linalg_pinv(A, *, atol=None, rtol=None, hermitian=False):
    """torch.linalg.pinv with PyTorch's steps: singular values (eigenvalues for hermitian, from A's
    lower triangle) above max(atol, rtol * largest) inverted, the others dropped; rtol defaults to
    eps * max(rows, columns) when atol is not given (ops.pinv refuses complex input and a batch of
    Hermitian matrices). An empty matrix's pseudo-inverse is the empty transposed shape (MindSpore's Svd
    refuses it)."""
    import numpy as np
    if 0 in tuple(A.shape[-2:]):
        return ops.zeros(tuple(A.shape[:-2]) + (A.shape[-1], A.shape[-2]), A.dtype)
    real = A.dtype
    if A.is_complex():
        real = mindspore.float32 if A.dtype == mindspore.complex64 else mindspore.float64
    atol = 0.0 if atol is None else atol
    if rtol is None:
        rtol = 0.0 if atol > 0 else float(np.finfo(mindspore.dtype_to_nptype(real)).eps) * max(A.shape[-2:])
    if hermitian:
        values, vectors = linalg_eigh(A)
        size = ops.abs(values)
        limit = ops.maximum(mindspore.Tensor(atol, real), rtol * size.max(-1, keepdims=True))
        inverse = ops.where(size > limit, 1 / values, ops.zeros_like(values)).astype(A.dtype)
        return ops.matmul(vectors * inverse.unsqueeze(-2), conj_transpose(vectors))
    U, S, Vh = linalg_svd(A, full_matrices=False)
    limit = ops.maximum(mindspore.Tensor(atol, real), rtol * S[..., :1])
    inverse = ops.where(S > limit, 1 / S, ops.zeros_like(S)).astype(A.dtype)
    return ops.matmul(conj_transpose(Vh) * inverse.unsqueeze(-2), conj_transpose(U))


def pinverse(input, rcond=1e-15):
    """torch.pinverse: linalg_pinv with rtol=rcond."""
    return linalg_pinv(input, rtol=rcond)


def lp_norm(x, p, axis=None, keepdim=False):
    """PyTorch's vector p-norm of x over axis (all elements for None), any real p, real for complex
    x: ops.vector_norm, but float64 with p other than 0, 1, 2, inf and -inf as (sum |x|^p)^(1/p) with
    float64 exponents (MindSpore takes a Python float exponent as float32)."""
    p = float(p)
    if x.is_complex():  # the norm of the magnitudes, real (ops.abs keeps a complex dtype)
        x = ops.real(ops.abs(x))
    if x.dtype == mindspore.float16:  # PyTorch sums float16 powers in float32 (|x|^6 overflows float16)
        return lp_norm(x.astype(mindspore.float32), p, axis, keepdim).astype(mindspore.float16)
    if x.dtype != mindspore.float64 or p in (0.0, 1.0, 2.0, float("inf"), float("-inf")):
        return ops.vector_norm(x, p, axis, keepdim)
    exponent = mindspore.Tensor(p, mindspore.float64)
    total = ops.pow(ops.abs(x), exponent).sum(axis=axis, keepdims=keepdim)
    return ops.pow(total, 1 / exponent)


def linalg_vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """torch.linalg.vector_norm: lp_norm over dim (all elements for None), in dtype when given. A 0-d x
    takes dim 0 or -1 as PyTorch does (MindSpore's norm refuses any dim there)."""
    axis = None if dim is None or x.ndim == 0 else dim if isinstance(dim, int) else tuple(dim)
    return lp_norm(x if dtype is None else x.astype(dtype), ord, axis, keepdim)


def linalg_matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """torch.linalg.matrix_norm over the two axes of dim: 'fro', 'nuc' (sum of singular values), 2/-2
    (largest/smallest singular value), 1/-1 (largest/smallest column sum of |A|), inf/-inf (rows)."""
    x = A if dtype is None else A.astype(dtype)
    if x.is_complex():
        x = ops.real(ops.abs(x))
    rows, cols = (d % x.ndim for d in dim)
    if ord == "fro":
        out = ops.sqrt(ops.square(x).sum(axis=(rows, cols), keepdims=True))
    elif ord in ("nuc", 2, -2):
        values = ops.svd(ops.moveaxis(x, (rows, cols), (-2, -1)), compute_uv=False)
        out = values.sum(-1) if ord == "nuc" else ops.amax(values, -1) if ord == 2 else ops.amin(values, -1)
        for a in sorted((rows, cols)):
            out = out.unsqueeze(a)
    elif ord in (1, -1, float("inf"), float("-inf")):
        summed, across = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = ops.abs(x).sum(axis=summed, keepdims=True)
        out = sums.max(axis=across, keepdims=True) if ord > 0 else sums.min(axis=across, keepdims=True)
    else:
        raise RuntimeError(f"linalg.matrix_norm: order {ord} not supported")
    return out if keepdim else out.squeeze((rows, cols))


def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """torch.linalg.norm: without ord and dim the 2-norm of all elements; a dim of one axis (or a 1-D
    input) gives linalg_vector_norm, a pair of axes (or a 2-D input) linalg_matrix_norm."""
    if isinstance(dim, int):
        dim = (dim,)
    if ord is None and dim is None:
        return linalg_vector_norm(A, 2, None, keepdim, dtype=dtype)
    if dim is None:
        dim = tuple(range(A.ndim))
    if len(dim) == 1:
        return linalg_vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
    return linalg_matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)


def linalg_tensorinv(A, ind=2):
    """torch.linalg.tensorinv: the inverse of A read as a matrix of its first ind axes by the rest,
    shaped A.shape[ind:] + A.shape[:ind]."""
    rows = 1
    for size in A.shape[:ind]:
        rows *= size
    return ops.inverse(A.reshape(rows, -1)).reshape(tuple(A.shape[ind:]) + tuple(A.shape[:ind]))


def linalg_tensorsolve(A, B, dims=None):
    """torch.linalg.tensorsolve: X with tensordot(A, X, X.ndim) == B; the axes dims of A move to its end
    first."""
    if dims is not None:
        dims = tuple(d % A.ndim for d in dims)
        A = ops.moveaxis(A, dims, tuple(range(A.ndim - len(dims), A.ndim)))
    shape = tuple(A.shape[B.ndim:])
    return linalg_solve(A.reshape(B.size, -1), B.reshape(-1, 1)).reshape(shape)


def normalize(input, p=2.0, dim=1, eps=1e-12):
    """F.normalize for any p and eps: input / max(its p-norm over dim, eps) (ops.L2Normalize is p=2 only
    and takes three values of eps); a complex input is scaled by the real reciprocal (no complex Div
    kernel for a real divisor)."""
    norm = ops.clamp(lp_norm(input, p, dim, keepdim=True), min=eps)
    if input.is_complex():
        return input * (1 / norm).astype(input.dtype)
    return input / norm


def lp_distance(input, other, p=2):
    """torch.dist: the p-norm of input - other over all elements, for any real p (ops.dist takes
    integers only)."""
    return lp_norm(input - other, p)


def tensor_norm(input, p="fro", dim=None, keepdim=False, *, dtype=None):
    """torch.norm as PyTorch computes it: 'fro' and numbers are vector norms over dim (all elements
    for None), 'nuc' the sum of singular values over the two axes of dim (the last two)."""
    axis = None if dim is None else dim if isinstance(dim, int) else tuple(dim)
    if isinstance(p, str) and (p != "fro" or (isinstance(axis, tuple) and len(axis) > 2)):
        if p != "nuc":
            raise RuntimeError(f"only valid string values are 'fro' and 'nuc', found {p}")
        axis = tuple(range(input.ndim)) if axis is None else axis
        x = input if dtype is None else input.astype(dtype)
        moved = ops.moveaxis(x, axis, (-2, -1))
        out = ops.real(ops.svd(moved, compute_uv=False)).sum(-1)
        if keepdim:
            for a in sorted(d % input.ndim for d in axis):
                out = out.unsqueeze(a)
        return out
    x = input if dtype is None else input.astype(dtype)
    return lp_norm(x, 2.0 if p in ("fro", None) else p, axis, keepdim)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """torch.cdist: the p-norm distance of every row of x1 to every row of x2 (ops.cdist, which takes a
    float p). float64 is computed from the differences: MindSpore's kernel rounds it to float32."""
    if x1.dtype == mindspore.float64 or x2.dtype == mindspore.float64:
        return lp_norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), p, -1)
    return ops.cdist(x1, x2, float(p))


class TypeInfo:
    """torch.finfo / torch.iinfo: numpy's constants for the same dtype, as Python numbers like PyTorch's
    (a numpy scalar would carry its own dtype into MindSpore's arithmetic); dtype as its name."""

    def __init__(self, info):
        integer = info.__class__.__name__ == "iinfo"
        for name in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
            if hasattr(info, name):
                value = getattr(info, name)
                setattr(self, name, int(value) if integer or name == "bits" else float(value))
        self.dtype = str(info.dtype)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """torch.isclose elementwise (broadcast): input == other, or |input - other| finite and at most
    atol + rtol * |other|; NaNs close only with equal_nan. ops.isclose for real dtypes (it refuses
    complex ones: those in NumPy, with PyTorch's rules for infinite and NaN parts)."""
    if input.dtype not in (mindspore.complex64, mindspore.complex128):
        return ops.isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)
    import numpy as np
    a, b = input.asnumpy(), other.asnumpy()
    with np.errstate(invalid="ignore", over="ignore"):
        close = a == b
        if equal_nan:
            close = close | (np.isnan(a) & np.isnan(b))
        if rtol != 0 or atol != 0:
            error = np.abs(a - b)
            close = close | (np.isfinite(error) & (error <= atol + rtol * np.abs(b)))
    return mindspore.Tensor(close)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """torch.allclose: whether every element pair is close as isclose() says (one Python bool);
    like PyTorch, tensors of two dtypes are an error, not a comparison."""
    if input.dtype != other.dtype:
        raise RuntimeError(f"{input.dtype} did not match {other.dtype}")
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


def equal(input, other):
    """torch.equal: one Python bool, True when both have one shape and equal elements (NaN is equal
    to nothing); MindSpore's ops.equal compares element by element."""
    return tuple(input.shape) == tuple(other.shape) and bool((input == other).all())


def cartesian_prod(*tensors):
    """torch.cartesian_prod: ops.cartesian_prod, whose result for one tensor is a column (n, 1) where
    PyTorch returns the tensor's n elements as they are."""
    out = ops.cartesian_prod(*tensors)
    return out.reshape(-1) if len(tensors) == 1 else out


def unravel_index(indices, shape):
    """torch.unravel_index: the coordinates (a tuple of int64 tensors of indices' shape) of flat
    indices into `shape`, computed as PyTorch does: floor(index / stride) mod size per axis, so
    negative and too large indices wrap."""
    if indices.dtype not in (mindspore.int8, mindspore.int16, mindspore.int32, mindspore.int64, mindspore.uint8,
                             mindspore.uint16, mindspore.uint32, mindspore.uint64):
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(size < 0 for size in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if 0 in shape:
        raise RuntimeError("ZeroDivisionError")
    flat, strides, stride = indices.astype(mindspore.int64), [], 1
    for size in reversed(shape):
        strides.insert(0, stride)
        stride *= size
    return tuple(ops.floor_mod(ops.floor_divide(flat, stride), size) for stride, size in zip(strides, shape))


def one_hot(tensor, num_classes=-1):
    """F.one_hot: int64 indices -> int64 one-hot rows of num_classes (-1: the largest index + 1),
    with PyTorch's errors for other index dtypes, negative or too large indices and an empty input
    whose class count must be inferred."""
    if tensor.dtype != mindspore.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.size == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return ops.zeros(tuple(tensor.shape) + (num_classes,), mindspore.int64)
    if int(tensor.min()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    largest = int(tensor.max())
    if num_classes == -1:
        num_classes = largest + 1
    elif largest >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    on, off = mindspore.Tensor(1, mindspore.int64), mindspore.Tensor(0, mindspore.int64)
    return ops.one_hot(tensor, num_classes, on, off)


def hfft(input, n=None, dim=-1, norm=None):
    """torch.fft.hfft as the inverse real transform of the conjugate under the opposite normalisation
    (PyTorch's definition): MindSpore 2.10's ops.hfft returns the conjugated result on every other
    call. Integer and boolean input is read as float32, as PyTorch reads it (MindSpore's Conj and IRFFT
    kernels refuse bool, int8 and uint8)."""
    return ops.irfft(ops.conj(float_input(input)), n, dim, {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm])


def ihfft(input, n=None, dim=-1, norm=None):
    """torch.fft.ihfft as the conjugate of the real transform under the opposite normalisation (see
    hfft: ops.ihfft alternates too)."""
    return ops.conj(ops.rfft(float_input(input), n, dim, {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]))


def hfft2(input, s=None, dim=(-2, -1), norm=None):
    """torch.fft.hfft2 as irfft2 of the conjugate under the opposite normalisation (see hfft)."""
    return ops.irfft2(ops.conj(float_input(input)), s, dim, {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm])


def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    """torch.fft.ihfft2 as the conjugate of rfft2 under the opposite normalisation (see hfft)."""
    return ops.conj(ops.rfft2(float_input(input), s, dim, {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]))


def hfftn(input, s=None, dim=None, norm=None):
    """torch.fft.hfftn as irfftn of the conjugate under the opposite normalisation (see hfft)."""
    return ops.irfftn(ops.conj(float_input(input)), s, dim, {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm])


def ihfftn(input, s=None, dim=None, norm=None):
    """torch.fft.ihfftn as the conjugate of rfftn under the opposite normalisation (see hfft)."""
    return ops.conj(ops.rfftn(float_input(input), s, dim, {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]))

def fftfreq(n, d=1.0, *, dtype=None):
    """torch.fft.fftfreq with ops.fftfreq, which takes the sample spacing d as a float only."""
    return ops.fftfreq(n, float(d), dtype=dtype)


def rfftfreq(n, d=1.0, *, dtype=None):
    """torch.fft.rfftfreq with ops.rfftfreq, which takes the sample spacing d as a float only."""
    return ops.rfftfreq(n, float(d), dtype=dtype)


def scatter(input, dim, index, src, reduce=None):
    """PyTorch's scatter / scatter_ / scatter_add with the TensorScatterElements kernel (MindSpore's
    Scatter kernels on CPU need src shaped as index and ignore reduce=). PyTorch reads src only where
    index reaches, so src is cut to index's shape; a number becomes a tensor of index's shape in
    input's dtype. reduce: None writes, "add" sums (duplicates included), "multiply" multiplies each
    target once (an index naming a place twice raises: PyTorch's running product is not written out).
    A 0-d input is scattered as one element (TensorScatterElements refuses 0-d tensors)."""
    if input.ndim == 0:
        src = src.reshape(1) if isinstance(src, mindspore.Tensor) else src
        return scatter(input.reshape(1), 0, index.reshape(1), src, reduce).reshape(())
    if isinstance(src, mindspore.Tensor):
        src = src[tuple(slice(0, size) for size in index.shape)]
    else:
        src = ops.full(index.shape, src, dtype=input.dtype)
    if reduce is None:
        return ops.tensor_scatter_elements(input, index, src, dim)
    if reduce == "add":
        return ops.tensor_scatter_elements(input, index, src, dim, "add")
    if reduce == "multiply":
        ones = ops.ones(index.shape, mindspore.int32)
        hits = ops.tensor_scatter_elements(ops.zeros(input.shape, mindspore.int32), index, ones, dim, "add")
        if bool((hits > 1).any()):
            raise ValueError("scatter: reduce='multiply' with an index naming a place twice is not written out")
        return ops.tensor_scatter_elements(input, index, ops.gather_elements(input, dim, index) * src, dim)
    raise ValueError(f"scatter: reduce={reduce!r} (PyTorch takes 'add' or 'multiply')")


def einsum(*args):
    """torch.einsum with classic MindSpore ops (MindSpore's Einsum has no CPU kernel), in all of
    PyTorch's forms: einsum("ij,jk->ik", a, b), einsum("ij,jk", [a, b]) and the sublist form
    einsum(a, [0, 1], b, [1, 2], [0, 2]). A label repeated in one operand takes its diagonal, labels
    in neither the output nor another operand are summed, then the operands are contracted left to
    right as batched matrix products; dimensions of size 1 broadcast. Without "->" the output is the
    broadcast (...) dimensions, then the labels used once in alphabetical order, as in PyTorch."""
    if isinstance(args[0], str):
        equation, operands = args[0].replace(" ", ""), list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    else:  # sublists of ints 0..51 (A-Z, a-z) and Ellipsis
        def letters(sublist):
            return "".join("..." if s is Ellipsis else chr(ord("A") + s) if s < 26 else chr(ord("a") + s - 26)
                           for s in sublist)
        equation = ",".join(letters(s) for s in args[1::2])
        if len(args) % 2 == 1:
            equation += "->" + letters(args[-1])
        operands = list(args[0:len(args) - len(args) % 2:2])
    inputs, arrow, output = equation.partition("->")

    def tokens(term):
        head, dots, tail = term.partition("...")
        return list(head) + ["..."] * bool(dots) + list(tail)

    terms = [tokens(term) for term in inputs.split(",")]
    spans = [x.ndim - (len(t) - 1) if "..." in t else 0 for x, t in zip(operands, terms)]
    width = max(spans, default=0)
    broad = [f".{i}" for i in range(width)]
    for n, (term, span) in enumerate(zip(terms, spans)):
        if "..." in term:
            at = term.index("...")
            terms[n] = term[:at] + broad[width - span:] + term[at + 1:]
    if arrow:
        out = tokens(output)
        if "..." in out:
            at = out.index("...")
            out = out[:at] + broad + out[at + 1:]
    else:
        counts = {}
        for term in terms:
            for label in term:
                counts[label] = counts.get(label, 0) + 1
        out = broad + sorted(label for label, count in counts.items() if count == 1 and not label.startswith("."))

    def collapse(x, term, keep):
        while len(set(term)) < len(term):  # a repeated label: its diagonal
            first = next(label for label in term if term.count(label) > 1)
            p = term.index(first)
            q = term.index(first, p + 1)
            x = ops.diagonal(x, 0, p, q)
            term = [label for i, label in enumerate(term) if i not in (p, q)] + [first]
        summed = [i for i, label in enumerate(term) if label not in keep]
        if summed:
            x = ops.sum(x, tuple(summed))
            term = [label for label in term if label in keep]
        return x, term

    def move(x, term, order):
        perm = tuple(term.index(label) for label in order)
        return x if perm == tuple(range(len(perm))) else ops.permute(x, perm)

    def size(labels, sizes):
        total = 1
        for label in labels:
            total *= sizes[label]
        return total

    reduced = []
    for n, (x, term) in enumerate(zip(operands, terms)):
        others = set(out).union(*[t for m, t in enumerate(terms) if m != n])
        reduced.append(collapse(x, term, others))
    x, term = reduced[0]
    for n in range(1, len(reduced)):
        y, other = reduced[n]
        keep = set(out).union(*[t for _, t in reduced[n + 1:]])
        sizes = {}
        for t, v in ((term, x), (other, y)):
            for label, s in zip(t, v.shape):
                sizes[label] = max(sizes.get(label, 1), s)
        x = ops.broadcast_to(x, tuple(sizes[label] for label in term))
        y = ops.broadcast_to(y, tuple(sizes[label] for label in other))
        shared = [label for label in term if label in other]
        batch = [label for label in shared if label in keep]
        summed = [label for label in shared if label not in keep]
        left = [label for label in term if label not in other]
        right = [label for label in other if label not in term]
        a = move(x, term, batch + left + summed).reshape(size(batch, sizes), size(left, sizes), size(summed, sizes))
        b = move(y, other, batch + summed + right).reshape(size(batch, sizes), size(summed, sizes), size(right, sizes))
        term = batch + left + right
        x = ops.bmm(a, b).reshape(tuple(sizes[label] for label in term))
    x, term = collapse(x, term, set(out))
    return move(x, term, out)


def roll(input, shifts, dims=None):
    """torch.roll by slicing and concatenation (MindSpore's Roll has no CPU kernel): each dimension
    in dims is rotated by its shift; with no dims the flattened tensor is rotated and reshaped back."""
    if dims is None:
        return roll(input.reshape(-1), shifts, 0).reshape(input.shape)
    shifts = tuple(shifts) if isinstance(shifts, (list, tuple)) else (shifts,)
    dims = tuple(dims) if isinstance(dims, (list, tuple)) else (dims,)
    if len(shifts) != len(dims):
        raise ValueError(f"roll: shifts and dims must have the same length, got {len(shifts)} and {len(dims)}")
    for shift, dim in zip(shifts, dims):
        dim = int(dim) % input.ndim
        length = input.shape[dim]
        shift = int(shift) % length if length else 0
        if shift:
            head = (slice(None),) * dim
            input = ops.cat((input[head + (slice(length - shift, None),)], input[head + (slice(0, length - shift),)]),
                            dim)
    return input


def angle(input):
    """torch.angle: MindSpore's Angle kernel takes complex input only on CPU. A real input gives pi
    where it is negative, 0 elsewhere (also at -0.0) and NaN where it is NaN, in its own floating
    dtype (float32 for integers and bools, PyTorch's default)."""
    if input.dtype in (mindspore.complex64, mindspore.complex128):
        return ops.angle(input)
    x = input if ops.is_floating_point(input) else input.astype(mindspore.float32)
    result = ops.where(x < 0, ops.full_like(x, 3.141592653589793), ops.zeros_like(x))
    return ops.where(ops.isnan(x), x, result)


def nonzero_tuple(input):
    """torch.nonzero(input, as_tuple=True) (and torch.where(condition)): one int64 index tensor per
    dimension, from the NonZero kernel (as_tuple=True has none on CPU); a 0-d input counts as 1-d."""
    indices = ops.nonzero(input.reshape(1) if input.ndim == 0 else input)
    return tuple(indices[:, axis] for axis in range(indices.shape[1]))


def round_decimals(input, decimals=0):
    """torch.round(input, decimals=d) (MindSpore's Round kernel takes decimals=0 only) in PyTorch's
    own steps: round half to even of input * 10**d, divided by 10**d; for d < 0, of input / 10**-d,
    multiplied back. float16 and bfloat16 are computed in float32, as PyTorch does, and cast back."""
    x = input.astype(mindspore.float32) if input.dtype in (mindspore.float16, mindspore.bfloat16) else input
    scale = float(10 ** abs(decimals))
    x = ops.round(x * scale) / scale if decimals >= 0 else ops.round(x / scale) * scale
    return x.astype(input.dtype)


def bincount(input, weights=None, minlength=0):
    """torch.bincount with PyTorch's dtypes (MindSpore's gives float32 always): int64 counts without
    weights, else float32 for float32 weights and float64 for any other; summed by scatter-add."""
    length = max(int(input.max()) + 1 if input.numel() else 0, minlength)
    if weights is None:
        values, dtype = ops.ones(input.shape, mindspore.int64), mindspore.int64
    else:
        dtype = mindspore.float32 if weights.dtype == mindspore.float32 else mindspore.float64
        values = weights.astype(dtype)
    return ops.tensor_scatter_elements(ops.zeros((length,), dtype), input.astype(mindspore.int64), values, 0, "add")


def scalar_dtype(value):
    """The dtype PyTorch gives a tensor filled with `value` (torch.full without dtype=): bool ->
    bool_, an integer (numpy's too) -> int64, a Python complex -> complex64, anything else float32
    (PyTorch's default; numpy bools and floats included); a 0-d tensor counts as the number it holds."""
    import numbers
    if isinstance(value, mindspore.Tensor):
        value = value.item()
    if isinstance(value, bool):
        return mindspore.bool_
    if isinstance(value, numbers.Integral):
        return mindspore.int64
    if isinstance(value, complex):
        return mindspore.complex64
    return mindspore.float32


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


def diag(input, diagonal=0):
    """torch.diag: a vector becomes a square matrix holding it on the diagonal-th diagonal (above the
    main one when positive), a matrix gives its diagonal-th diagonal (ops.diag builds a matrix of
    either). Booleans go through int8: diag_embed has no bool kernel."""
    if input.ndim == 1:
        if input.dtype == mindspore.bool_:
            return ops.diag_embed(input.astype(mindspore.int8), diagonal).astype(mindspore.bool_)
        return ops.diag_embed(input, diagonal)
    return ops.diagonal(input, diagonal)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """torch.diag_embed (and the tensor method MindSpore lacks): ops.diag_embed, booleans through int8
    (no bool kernel)."""
    if input.dtype == mindspore.bool_:
        return ops.diag_embed(input.astype(mindspore.int8), offset, dim1, dim2).astype(mindspore.bool_)
    return ops.diag_embed(input, offset, dim1, dim2)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """torch.lu_unpack: (P, L, U) from ops.lu_unpack; a part not asked for is an empty tensor, as in
    PyTorch (MindSpore gives None)."""
    P, L, U = ops.lu_unpack(LU_data, LU_pivots)
    empty = ops.zeros((0,), LU_data.dtype)
    return (P if unpack_pivots else empty), (L if unpack_data else empty), (U if unpack_data else empty)


def extreme_all(input, largest):
    """The largest (or smallest) element of the whole input as a 0-d tensor, as torch.max(input) and
    torch.min(input) give it: NaN wherever the input holds one (the MindSpore reduction skips a NaN
    after the first element); any() / all() for booleans (no bool kernel)."""
    if input.dtype == mindspore.bool_:
        return input.any() if largest else input.all()
    value = input.max() if largest else input.min()
    if input.is_floating_point():
        value = ops.where(ops.isnan(input).any(), ops.full((), float("nan"), dtype=input.dtype), value)
    return value


def max_all(input):
    """torch.max(input): the largest element as a 0-d tensor (extreme_all)."""
    return extreme_all(input, True)


def min_all(input):
    """torch.min(input): the smallest element as a 0-d tensor (extreme_all)."""
    return extreme_all(input, False)


def middle_all(input, skip_nan):
    """The lower of the two middle elements of the flattened input as a 0-d tensor, as torch.median(input)
    gives it (NaN if it holds one) or, with skip_nan, torch.nanmedian(input) (NaN only when every element
    is NaN); MindSpore's median works along an axis and returns (values, indices). Types the kernel lacks
    go through a wider one (the result is one of the elements, so it is exact). Anything that is no
    MindSpore tensor keeps its own median()/nanmedian()."""
    if not isinstance(input, mindspore.Tensor):
        return input.nanmedian() if skip_nan else input.median()
    reduce = ops.nanmedian if skip_nan else ops.median
    flat = input.reshape(-1)
    wider = {mindspore.float16: mindspore.float32, mindspore.bfloat16: mindspore.float32,
             mindspore.int8: mindspore.int16, mindspore.uint8: mindspore.int16}.get(flat.dtype)
    if wider is not None:
        return reduce(flat.astype(wider), 0)[0].astype(flat.dtype)
    return reduce(flat, 0)[0]


def median_all(input):
    """torch.median(input) / input.median() (middle_all)."""
    return middle_all(input, False)


def nanmedian_all(input):
    """torch.nanmedian(input) / input.nanmedian(): NaN left out (middle_all)."""
    return middle_all(input, True)


def copysign(input, other):
    """torch.copysign: input's magnitude with other's sign, read from other's sign bit, so -0.0 and
    -nan count as negative (MindSpore's copysign takes them as positive). The result's dtype follows
    PyTorch's promotion: a 0-d tensor or a number counts only when of a higher kind (int < float);
    an integer result becomes float32."""
    if not isinstance(other, mindspore.Tensor):
        other = mindspore.tensor(other, mindspore.float64 if isinstance(other, float) else mindspore.int64)
        dtype = input.dtype if input.is_floating_point() or not other.is_floating_point() else mindspore.float32
    elif (input.ndim == 0) == (other.ndim == 0) or input.is_floating_point() == other.is_floating_point():
        pair = (input, other) if (input.ndim == 0) == (other.ndim == 0) else \
            (input, input) if other.ndim == 0 else (other, other)
        dtype = (pair[0].reshape(-1)[:1] + pair[1].reshape(-1)[:1]).dtype
    else:
        dtype = other.dtype if other.is_floating_point() else input.dtype
    if dtype not in (mindspore.float16, mindspore.bfloat16, mindspore.float32, mindspore.float64):
        dtype = mindspore.float32
    magnitude = ops.abs(input.astype(dtype))
    if other.is_floating_point():
        bits = {mindspore.float16: mindspore.int16, mindspore.bfloat16: mindspore.int16,
                mindspore.float32: mindspore.int32, mindspore.float64: mindspore.int64}[other.dtype]
        negative = other.view(bits) < 0
    else:
        negative = other < 0
    return ops.where(negative, -magnitude, magnitude)


def repeat_interleave_index(repeats):
    """torch.repeat_interleave(repeats): each index i of repeats written repeats[i] times
    ([2, 0, 1] -> [0, 0, 2]), in repeats' dtype."""
    return ops.repeat_interleave(ops.arange(repeats.shape[0], dtype=repeats.dtype), repeats, 0)


def bucketize(input, boundaries, out_int32=False, right=False):
    """torch.bucketize: for each value, the index of the bucket of the sorted 1-D boundaries it falls
    in, which is ops.searchsorted(boundaries, input) (MindSpore's bucketize takes a list of floats).
    Both go to float64 where either is floating and to int64 otherwise, which hold every value of
    their dtypes, so the comparisons are PyTorch's (the CPU kernel refuses float16 and uint8); out_int32
    casts the result (searchsorted's own out_int32 fails on CPU)."""
    if not isinstance(input, mindspore.Tensor):
        input = mindspore.tensor(input)
    wide = mindspore.float64 if (ops.is_floating_point(input) or ops.is_floating_point(boundaries)) \
        else mindspore.int64
    result = ops.searchsorted(boundaries.astype(wide), input.astype(wide), right=right)
    return result.astype(mindspore.int32) if out_int32 else result


def combinations(input, r=2, with_replacement=False):
    """torch.combinations: ops.combinations, except where there is nothing to combine (r=0, or fewer
    elements than r without replacement), which PyTorch answers with an empty (0, r) tensor of the
    input's dtype ((0,) for r=0) and MindSpore with a float (0,) tensor or an error."""
    import math

    n = input.shape[0]
    if r == 0 or (math.comb(n + r - 1, r) if with_replacement else math.comb(n, r)) == 0:
        return ops.zeros((0,) if r == 0 else (0, r), input.dtype)
    return ops.combinations(input, r, with_replacement)


def narrow(input, dim, start, length):
    """torch.narrow / x.narrow: length elements along dim from start, which PyTorch takes negative
    (counted from the end) or as a 0-d tensor; MindSpore's narrow takes a non-negative int only."""
    start = int(start)
    if start < 0:
        start += input.shape[dim]
    if length == 0:  # an empty slice, which MindSpore's narrow refuses
        return input[(slice(None),) * (dim % input.ndim) + (slice(start, start),)]
    return ops.narrow(input, dim, start, length)


def masked_scatter(input, mask, source):
    """torch.masked_scatter / x.masked_scatter: source's leading elements, in order, written where
    mask is True. PyTorch broadcasts input and mask together; MindSpore's needs mask broadcastable
    to input, so both are broadcast first."""
    import numpy as np

    shape = tuple(np.broadcast_shapes(tuple(input.shape), tuple(mask.shape)))
    return ops.broadcast_to(input, shape).masked_scatter(ops.broadcast_to(mask, shape), source)


def conv_transpose_output_size(layer, input, output_size):
    """A PyTorch ConvTranspose1d/2d/3d layer called with output_size=: MindSpore's cell takes the
    input only, so the transposed convolution runs here on the layer's own weight and bias, with
    the output grown to the requested size as PyTorch does (the extra rows, fewer than
    max(stride, dilation) per axis, get what the kernel reaches there, not zeros)."""
    dims = len(layer.kernel_size) if not isinstance(layer, nn.Conv1dTranspose) else 1
    batched = input.ndim == dims + 2
    x = input if batched else input.expand_dims(0)
    kernel, stride, dilation = layer.kernel_size[-dims:], layer.stride[-dims:], layer.dilation[-dims:]
    pads = layer.padding if isinstance(layer.padding, tuple) else (layer.padding,) * (2 * dims)
    pads = pads[-2 * dims:]
    sizes = tuple(int(s) for s in tuple(output_size)[-dims:])
    extra = []
    for axis in range(dims):
        natural = (x.shape[2 + axis] - 1) * stride[axis] - pads[2 * axis] - pads[2 * axis + 1] \
            + dilation[axis] * (kernel[axis] - 1) + 1
        extra.append(sizes[axis] - natural)
        if not 0 <= extra[axis] < max(stride[axis], dilation[axis]):
            raise ValueError(f"requested an output size of {sizes}, but valid sizes along axis {axis} range "
                             f"from {natural} to {natural + max(stride[axis], dilation[axis]) - 1}")
    if dims == 3:
        out = ops.Conv3DTranspose(layer.in_channels, layer.out_channels, kernel, mode=1, pad_mode="pad", pad=pads,
                                  stride=stride, dilation=dilation, group=layer.group,
                                  output_padding=tuple(extra))(x, layer.weight)
    else:
        flat = x.expand_dims(2) if dims == 1 else x
        out = ops.Conv2DTranspose(out_channel=layer.in_channels, kernel_size=layer.kernel_size, mode=1, pad_mode="pad",
                                  pad=(0, 0, *pads) if dims == 1 else pads, stride=layer.stride,
                                  dilation=layer.dilation, group=layer.group)(
            flat, layer.weight, (x.shape[0], layer.out_channels, *((1,) if dims == 1 else ()), *sizes))
        out = out.squeeze(2) if dims == 1 else out
    if layer.has_bias:
        out = ops.bias_add(out, layer.bias)
    return out if batched else out.squeeze(0)


def multilabel_margin_loss(input, target, reduction="mean"):
    """F.multilabel_margin_loss (MindSpore's has no CPU kernel): a sample's targets are the class
    indices before its first -1; its loss sums max(0, 1 - (x[t] - x[c])) over each target t and each
    class c that is no target, over the number of classes. Input (C) or (N, C), targets alike."""
    x = input if input.ndim == 2 else input.expand_dims(0)
    y = (target if target.ndim == 2 else target.expand_dims(0)).astype(mindspore.int32)
    classes = x.shape[1]
    valid = ops.cumprod((y >= 0).astype(mindspore.int32), 1) > 0
    index = ops.where(valid, y, ops.zeros_like(y))
    chosen = ops.one_hot(index, classes, ops.ones((), mindspore.int32), ops.zeros((), mindspore.int32)) \
        * valid.astype(mindspore.int32).expand_dims(2)
    is_target = chosen.sum(1) > 0
    picked = ops.gather_elements(x, 1, index)
    margins = ops.relu(1 - picked.expand_dims(2) + x.expand_dims(1))
    keep = ops.logical_and(valid.expand_dims(2), ops.logical_not(is_target).expand_dims(1))
    loss = (margins * keep.astype(x.dtype)).sum((1, 2)) / classes
    if input.ndim == 1:
        loss = loss.squeeze(0)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


class Softplus(nn.Cell):
    """torch.nn.Softplus(beta, threshold) as a cell over ops.softplus: mindspore.nn has no Softplus in 2.10,
    and the ops.Softplus primitive takes neither argument and is no Cell (no set_train, no parameters)."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def construct(self, input):
        return ops.softplus(input, self.beta, self.threshold)


class MultiLabelMarginLoss(nn.Cell):
    """torch.nn.MultiLabelMarginLoss: multilabel_margin_loss as a cell (mindspore.nn has none)."""

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def construct(self, input, target):
        return multilabel_margin_loss(input, target, self.reduction)


def relu6(input, inplace=False):
    """F.relu6 as a clamp to [0, 6]: MindSpore's ReLU6 kernel takes float16/float32 only, PyTorch's
    every real dtype, integers included (kept in their dtype)."""
    return ops.clamp(input, 0, 6)


def factory_options(options):
    """PyTorch's factory keywords ({'device': d, 'dtype': t}) spread into a layer or creation call: device
    dropped (MindSpore places by its context), a dtype of None dropped (float32 either way), others kept."""
    return {key: value for key, value in options.items() if key != "device" and not (key == "dtype" and value is None)}


def range_inclusive(start, end, step=1, dtype=None, device=None):
    """torch.range (deprecated there): start to end inclusive, step apart, float32 unless dtype says otherwise,
    counted and stepped in float64 (in int64 from truncated bounds for an integer dtype), as PyTorch does.
    MindSpore's ops.range stops before end and keeps integer bounds integer."""
    import math
    dtype = dtype or mindspore.float32
    if dtype in (mindspore.int8, mindspore.int16, mindspore.int32, mindspore.int64, mindspore.uint8):
        start, end, step = int(start), int(end), int(step)
    count = int(math.floor((float(end) - float(start)) / float(step))) + 1
    return (ops.arange(0, count).astype(mindspore.float64) * float(step) + float(start)).astype(dtype)


class ReLU6(nn.Cell):
    """nn.ReLU6 as relu6() (MindSpore's ReLU6 kernel takes float16/float32 only). inplace is taken
    and ignored: the converter writes the result back to the input's name where it was set."""

    def __init__(self, inplace=False):
        super().__init__()

    def construct(self, input):
        return relu6(input)


def hardshrink(input, lambd=0.5):
    """F.hardshrink with where(): MindSpore's HShrink kernel has no float64."""
    return ops.where(ops.abs(input) > lambd, input, ops.zeros_like(input))


def softshrink(input, lambd=0.5):
    """F.softshrink with where(): MindSpore's SoftShrink kernel has no float64."""
    zero = ops.zeros_like(input)
    return ops.where(input > lambd, input - lambd, ops.where(input < -lambd, input + lambd, zero))


def circular_pad(input, pad, mode="circular", value=None):
    """F.pad(input, pad, mode="circular") by concatenation, last axis first (MindSpore's PadV3 refuses
    boolean inputs and some shapes PyTorch pads circularly). As PyTorch, a negative amount first removes
    that many items, and the wrapped items come from what is left."""
    if mode != "circular":
        return ops.pad(input, pad, mode, value)
    for i in range(len(pad) // 2):
        axis = input.ndim - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        kept = input.narrow(axis, max(-before, 0), input.shape[axis] - max(-before, 0) - max(-after, 0))
        size = kept.shape[axis]
        parts = [kept.narrow(axis, size - before, before)] if before > 0 else []
        parts.append(kept)
        if after > 0:
            parts.append(kept.narrow(axis, 0, after))
        input = ops.cat(parts, axis) if len(parts) > 1 else kept
    return input


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    """F.smooth_l1_loss; with beta=0 it is the L1 loss, as in PyTorch (MindSpore's dispatches beta=0 to an
    L1LossExt kernel that is not registered on CPU)."""
    if beta == 0:
        return ops.l1_loss(input, target, reduction)
    return ops.smooth_l1_loss(input, target, beta, reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, reduction="mean"):
    """F.multi_margin_loss written out (MindSpore's takes an int margin only and refuses PyTorch's unbatched
    form, a (C) or 0-d input with a 0-d target): per sample, the sum over the classes i other than the
    target y of max(0, margin - x[y] + x[i]) ** p, times weight[y], over the number of classes."""
    x = input.reshape(-1, input.shape[-1] if input.ndim else 1)
    y = target.reshape(-1).astype(mindspore.int32)
    picked = ops.gather_elements(x, 1, y.expand_dims(1))
    loss = ops.relu(margin - picked + x)
    loss = loss * loss if p == 2 else loss
    if weight is not None:
        loss = loss * ops.gather(weight, y, 0).expand_dims(1)
    other = (1 - ops.one_hot(y, x.shape[1], ops.ones((), mindspore.int32), ops.zeros((), mindspore.int32))).astype(x.dtype)
    loss = (loss * other).sum(1) / x.shape[1]
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss.reshape(target.shape)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """F.dropout2d: PyTorch reads a 3-D input as (N, C, L), dropping whole channels as dropout1d does (it
    warns so); MindSpore's takes 4-D inputs only, so a trailing axis is added and removed."""
    if input.ndim == 3:
        return ops.dropout2d(input.expand_dims(-1), p, training).squeeze(-1)
    return ops.dropout2d(input, p, training)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """F.dropout3d, also for PyTorch's unbatched (C, D, H, W) form, which MindSpore's refuses."""
    if input.ndim == 4:
        return ops.dropout3d(input.expand_dims(0), p, training).squeeze(0)
    return ops.dropout3d(input, p, training)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """F.cosine_embedding_loss as PyTorch computes it (MindSpore's refuses a 0-d target with 1-D inputs,
    the unbatched form, and integer or boolean inputs): cosine along the last axis, 1 - cos where the
    target is 1, max(0, cos - margin) where it is -1. Integer products wrap in their dtype and are summed
    in int64 as in PyTorch; booleans are read as int64."""
    if input1.dtype == mindspore.bool_:
        input1, input2 = input1.astype(mindspore.int64), input2.astype(mindspore.int64)
    axis = target.ndim
    integer = not ops.is_floating_point(input1) and not input1.is_complex()
    total = (lambda t: t.sum(axis, dtype=mindspore.int64).astype(mindspore.float32)) if integer \
        else (lambda t: t.sum(axis))
    product = total(input1 * input2)
    denom = ops.sqrt((total(input1 * input1) + 1e-12) * (total(input2 * input2) + 1e-12))
    cos = product / denom
    zero = ops.zeros_like(cos)
    loss = ops.where(target == 1, 1 - cos, zero) + ops.where(target == -1, ops.clamp(cos - margin, min=0), zero)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def histogram_edges(low, high, bins, dtype):
    """The bin_edges PyTorch's histogram functions use for `bins` equal bins over [low, high] (as a
    NumPy array of dtype): low == high widens by 0.5 each side, then torch.linspace's formula (from
    the start for the first half, from the end for the rest)."""
    import numpy as np
    low, high = dtype.type(low), dtype.type(high)
    if not (np.isfinite(low) and np.isfinite(high)):
        raise ValueError(f"histogram range [{low}, {high}] is not finite")
    if low > high:
        raise ValueError(f"histogram range: min should not exceed max, but got min {low} max {high}")
    if low == high:
        low, high = low - dtype.type(0.5), high + dtype.type(0.5)
    step = dtype.type((high - low) / dtype.type(bins))
    index = np.arange(bins + 1)
    return np.where(index < (bins + 1) // 2, low + step * index.astype(dtype),
                    high - step * (bins - index).astype(dtype)).astype(dtype)


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """torch.histogramdd in NumPy: the last axis of input holds the D coordinates; bins an int, D ints
    or D tensors of edges (decreasing ones too, as PyTorch takes them); range [min0, max0, min1, max1,
    ...] (default each coordinate's min and max); a value on a bin's left edge falls in it, the last bin
    also takes its right edge, values outside or NaN are left out; weight sums per bin; density divides
    by the total and the bin volume. Returns (hist, [bin_edges per dimension]) with input's float dtype."""
    import collections
    import numpy as np
    points = input.asnumpy()
    if points.dtype.kind != "f":
        raise RuntimeError(f"histogramdd is not implemented for {input.dtype}")
    if points.ndim < 2:
        raise RuntimeError("histogramdd: input tensor should have at least 2 dimensions")
    points = points.reshape(-1, points.shape[-1])
    dims = points.shape[1]
    if isinstance(bins, int):
        bins = [bins] * dims
    edges = []
    for dim, spec in enumerate(bins):
        if isinstance(spec, mindspore.Tensor):
            edges.append(spec.asnumpy().astype(points.dtype))
            continue
        if range is not None:
            low, high = range[2 * dim], range[2 * dim + 1]
        elif len(points):
            low, high = points[:, dim].min(), points[:, dim].max()
        else:
            low, high = 0.0, 1.0
        edges.append(histogram_edges(low, high, int(spec), points.dtype))
    weights = np.ones(len(points)) if weight is None else weight.asnumpy().reshape(-1).astype(np.float64)
    # PyTorch's binning (np.histogramdd refuses the decreasing edges PyTorch takes): a value counts where it
    # lies within [first edge, last edge] of every dimension, in the bin its upper bound among the edges
    # names, the last edge in the last bin; a NaN coordinate falls outside
    keep = np.ones(len(points), dtype=bool)
    index = []
    for dim, e in enumerate(edges):
        values = points[:, dim].astype(np.float64)
        e = e.astype(np.float64)
        keep &= (values >= e[0]) & (values <= e[-1])
        index.append(np.minimum(np.searchsorted(e, values, side="right") - 1, max(len(e) - 2, 0)))
    hist = np.zeros([max(len(e) - 1, 0) for e in edges])
    if hist.size:
        np.add.at(hist, tuple(i[keep] for i in index), weights[keep])
    hist = hist.astype(points.dtype)
    if density:
        with np.errstate(invalid="ignore", divide="ignore"):  # no values: NaN, as in PyTorch
            hist = hist / hist.sum()
            for dim, e in enumerate(edges):
                shape = [1] * dims
                shape[dim] = -1
                hist = hist / np.diff(e).reshape(shape)
    result = collections.namedtuple("histogramdd", ["hist", "bin_edges"])
    return result(mindspore.Tensor(hist.astype(points.dtype)), [mindspore.Tensor(e) for e in edges])


def histogram(input, bins, *, range=None, weight=None, density=False):
    """torch.histogram: histogramdd of the flattened input as one coordinate; returns (hist,
    bin_edges)."""
    import collections
    if isinstance(range, (list, tuple)):
        range = list(range)
    out = histogramdd(input.reshape(-1, 1), [bins], range=range,
                      weight=None if weight is None else weight.reshape(-1), density=density)
    result = collections.namedtuple("histogram", ["hist", "bin_edges"])
    return result(out.hist, out.bin_edges[0])


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """F.fold with ops.fold, which takes output_size as an int32 tensor and a batched (N, C * k, L)
    input only: an unbatched (C * k, L) input is folded as a batch of one."""
    size = (output_size, output_size) if isinstance(output_size, int) else tuple(output_size)
    batched = input.ndim == 3
    out = ops.fold(input if batched else input.expand_dims(0), mindspore.Tensor(size, mindspore.int32),
                   kernel_size, dilation, padding, stride)
    return out if batched else out.squeeze(0)


def conv_nd(op, input, weight, bias, stride, padding, dilation, groups):
    """F.conv1d/2d/3d with ops.conv1d/2d/3d, which take a batched input only: an unbatched input
    (one axis fewer than the weight) is convolved as a batch of one. PyTorch's padding='same' or
    'valid' is MindSpore's pad_mode; a number or a tuple is pad_mode='pad' with that padding. Other
    dtypes than float16/32 (no CPU kernel) go through conv_by_sums."""
    batched = input.ndim == weight.ndim
    image = input if batched else input.expand_dims(0)
    if input.dtype in (mindspore.float16, mindspore.float32, mindspore.bfloat16):
        pad_mode, padding = (padding, 0) if isinstance(padding, str) else ("pad", padding)
        out = op(image, weight, bias, stride, pad_mode, padding, dilation, groups)
    else:  # MindSpore's CPU kernels take no float64, integer or complex input: the sums written out
        out = conv_by_sums(image, weight, bias, stride, padding, dilation, groups)
    return out if batched else out.squeeze(0)


def conv_by_sums(input, weight, bias, stride, padding, dilation, groups):
    """A batched convolution of any dtype (PyTorch's cross-correlation, padding a number, a tuple,
    'same' or 'valid'): for each kernel offset, the strided input window of each group of channels
    times that offset's weights (a matrix product), summed over the offsets."""
    import itertools
    spatial = weight.ndim - 2
    def per_axis(value):
        return tuple(value) if isinstance(value, (tuple, list)) else (value,) * spatial
    stride, dilation, kernel = per_axis(stride), per_axis(dilation), tuple(weight.shape[2:])
    if padding == "same":  # PyTorch puts the odd extra row after
        spans = [d * (k - 1) for d, k in zip(dilation, kernel)]
        pads = [(span // 2, span - span // 2) for span in spans]
    else:
        pads = [(p, p) for p in per_axis(0 if padding == "valid" else padding)]
    flat = []
    for before, after in reversed(pads):  # ops.pad reads (before, after) pairs from the last axis
        flat += [before, after]
    image = ops.pad(input, tuple(flat)) if any(flat) else input
    sizes = [(image.shape[2 + i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1 for i in range(spatial)]
    per_group_in, per_group_out = weight.shape[1], weight.shape[0] // groups
    last = list(range(2, 2 + spatial)) + [1]
    total = None
    for offset in itertools.product(*[range(k) for k in kernel]):
        window = image
        for i, k in enumerate(offset):
            start = k * dilation[i]
            window = window.narrow(2 + i, start, (sizes[i] - 1) * stride[i] + 1)
            if stride[i] > 1:
                window = ops.gather(window, mindspore.Tensor(list(range(0, window.shape[2 + i], stride[i])),
                                                             mindspore.int64), 2 + i)
        window = window.permute(0, *last)  # (N, *sizes, C)
        taps = weight[(slice(None), slice(None)) + tuple(offset)]  # (O, C / groups)
        parts = [ops.matmul(window[..., g * per_group_in:(g + 1) * per_group_in],
                            taps[g * per_group_out:(g + 1) * per_group_out].swapaxes(0, 1)) for g in range(groups)]
        part = parts[0] if groups == 1 else ops.cat(parts, -1)
        total = part if total is None else total + part
    out = total.permute(0, spatial + 1, *range(1, spatial + 1))
    if bias is not None:
        out = out + bias.reshape((1, -1) + (1,) * spatial)
    return out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """F.conv1d: see conv_nd."""
    return conv_nd(ops.conv1d, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """F.conv2d: see conv_nd."""
    return conv_nd(ops.conv2d, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """F.conv3d: see conv_nd."""
    return conv_nd(ops.conv3d, input, weight, bias, stride, padding, dilation, groups)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """F.unfold with ops.unfold, which takes a batched (N, C, H, W) input only: an unbatched
    (C, H, W) input is unfolded as a batch of one."""
    batched = input.ndim == 4
    image = input if batched else input.expand_dims(0)
    args = (kernel_size, dilation, padding, stride)
    out = empty_batch(ops.unfold, image, *args) if image.shape[0] == 0 else ops.unfold(image, *args)
    return out if batched else out.squeeze(0)


def empty_batch(op, input, *args):
    """op(input, *args) for an input with an empty batch axis, which MindSpore's patch and pooling
    kernels refuse where PyTorch returns an empty batch: op of one zero sample, none of it kept."""
    return op(ops.zeros((1,) + tuple(input.shape[1:]), input.dtype), *args)[:0]


def adaptive_avg_pool3d(input, output_size):
    """F.adaptive_avg_pool3d with ops.adaptive_avg_pool3d, which refuses an empty batch."""
    if input.shape[0] == 0:
        return empty_batch(ops.adaptive_avg_pool3d, input, output_size)
    return ops.adaptive_avg_pool3d(input, output_size)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """F.adaptive_max_pool3d with ops.adaptive_max_pool3d, which refuses None in output_size (PyTorch keeps
    the input's size there) and returns int32 indices (PyTorch's are int64)."""
    size = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * 3
    size = tuple(input.shape[i - 3] if s is None else s for i, s in enumerate(size))
    out = ops.adaptive_max_pool3d(input, size, return_indices)
    return (out[0], out[1].astype(mindspore.int64)) if return_indices else out


def linalg_det(A):
    """torch.linalg.det with ops.det, whose kernel refuses a 0x0 matrix (its determinant is 1)."""
    if A.shape[-1] == 0:
        return ops.ones(A.shape[:-2], A.dtype)
    return ops.det(A)


def multigammaln(input, p):
    """torch.special.multigammaln as PyTorch computes it, p(p-1)/4 log(pi) + sum_j lgamma(input - j/2); MindSpore's
    mvlgamma gives other values where input <= (p-1)/2, which PyTorch computes all the same."""
    halves = ops.arange(p).astype(input.dtype) / 2
    return ops.lgamma(input.unsqueeze(-1) - halves).sum(-1) + p * (p - 1) / 4 * 1.1447298858494002  # log(pi)


def quantile_pick(ordered, ranks, interpolation):
    """The values of ordered (sorted along its last axis) at the fractional ranks (..., len(q)), one row of
    ranks per slice, as torch.quantile and torch.nanquantile pick them: the value below or above the rank,
    the one at the rank rounded ("nearest"), their mean ("midpoint") or the linear interpolation."""
    below, above = ops.floor(ranks), ops.ceil(ranks)
    if interpolation == "nearest":
        below = above = ops.round(ranks)
    low = ops.gather_elements(ordered, -1, below.astype(mindspore.int64))
    high = ops.gather_elements(ordered, -1, above.astype(mindspore.int64))
    if interpolation == "lower":
        return low
    if interpolation == "higher":
        return high
    if interpolation == "midpoint":
        return (low + high) / 2
    return low + (high - low) * (ranks - below)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """torch.quantile by sorting and picking (MindSpore 2.10 has no Quantile kernel on CPU): PyTorch's ranks
    q * (n - 1), the five interpolations, NaN where a reduced slice holds one, the quantiles first in the
    result and none for a scalar q."""
    x = input.reshape(-1) if dim is None else input
    axis = 0 if dim is None else dim % x.ndim
    qs = q.astype(x.dtype) if isinstance(q, mindspore.Tensor) else mindspore.tensor(q, x.dtype)
    ordered = ops.sort(x.movedim(axis, -1), axis=-1)[0]
    ranks = ops.broadcast_to(qs.reshape(-1) * (x.shape[axis] - 1), ordered.shape[:-1] + (qs.size,))
    out = quantile_pick(ordered, ranks, interpolation)
    out = ops.where(ops.isnan(ordered).any(-1, keep_dims=True), ops.full_like(out, float("nan")), out)
    out = out.movedim(-1, 0)
    if keepdim:
        out = out.unsqueeze(axis + 1) if dim is not None else out.reshape(out.shape[:1] + (1,) * input.ndim)
    return out.squeeze(0) if qs.ndim == 0 else out


def nextafter(input, other):
    """torch.nextafter as one step of the value's bits toward other, the bits read as integers ordered like
    the floats (MindSpore 2.10's nextafter returns float32 values unchanged on CPU and refuses float16, and its
    comparisons read subnormals as zero); other dtypes go to ops.nextafter."""
    ints = {mindspore.float16: mindspore.int16, mindspore.float32: mindspore.int32,
            mindspore.float64: mindspore.int64}.get(input.dtype)
    if ints is None:
        return ops.nextafter(input, other)
    shape = (input + other.astype(input.dtype)).shape  # the broadcast shape
    x, y = ops.broadcast_to(input, shape), ops.broadcast_to(other.astype(input.dtype), shape)
    lowest = -2 ** {mindspore.int16: 15, mindspore.int32: 31, mindspore.int64: 63}[ints]  # the bits of -0.0
    xb, yb = x.view(ints), y.view(ints)
    xo = ops.where(xb >= 0, xb, lowest - xb)  # ordered like the floats, both zeros at 0
    yo = ops.where(yb >= 0, yb, lowest - yb)
    stepped = xo + ops.where(yo > xo, 1, -1).astype(ints)
    stepped = ops.where((stepped > 0) | ((stepped == 0) & (xb >= 0)), stepped, lowest - stepped).view(input.dtype)
    out = ops.where(xo == yo, y, stepped)
    return ops.where(ops.isnan(x) | ops.isnan(y), ops.full_like(out, float("nan")), out)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """F.avg_pool3d with ops.avg_pool3d, whose stride defaults to 1 (not to kernel_size), whose padding
    tuple has six items (before and after each axis), which takes a positive divisor_override only
    (sums, divided here, give any other) and refuses an empty batch."""
    if isinstance(padding, (tuple, list)) and len(padding) == 3:
        padding = (padding[0], padding[0], padding[1], padding[1], padding[2], padding[2])
    args = (kernel_size, kernel_size if stride is None else stride, padding, ceil_mode, count_include_pad,
            0 if divisor_override is None else 1)
    out = empty_batch(ops.avg_pool3d, input, *args) if input.shape[0] == 0 else ops.avg_pool3d(input, *args)
    return out if divisor_override is None else out / divisor_override


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """F.ctc_loss with ops.ctc_loss, which takes the lengths as tensors only, padded (N, S) targets
    only (PyTorch's 1-D form concatenates them: split here by target_lengths, which must then be known
    values, as in eager code) and returns (loss, log_alpha): the loss alone is PyTorch's value."""
    input_lengths = mindspore.Tensor(input_lengths, mindspore.int64) if isinstance(input_lengths, (list, tuple)) \
        else input_lengths.astype(mindspore.int64)
    target_lengths = mindspore.Tensor(target_lengths, mindspore.int64) if isinstance(target_lengths, (list, tuple)) \
        else target_lengths.astype(mindspore.int64)
    if log_probs.ndim == 2:  # unbatched (T, C): a batch of one
        loss = ctc_loss(log_probs.expand_dims(1), targets.reshape(1, -1), input_lengths.reshape(1),
                        target_lengths.reshape(1), blank, reduction, zero_infinity)
        return loss if reduction != "none" else loss.squeeze(0)
    if targets.ndim == 1:
        lengths = [int(n) for n in target_lengths.asnumpy()]
        width, starts = max(lengths + [1]), [sum(lengths[:i]) for i in range(len(lengths))]
        targets = ops.stack([ops.pad(targets[s:s + n], (0, width - n), value=blank) for s, n in zip(starts, lengths)])
    return ops.ctc_loss(log_probs, targets.astype(mindspore.int64), input_lengths, target_lengths, blank, reduction,
                        zero_infinity)[0]


class CTCLoss(nn.Cell):
    """nn.CTCLoss: the layer form of ctc_loss() (MindSpore's CTCLoss takes tensor lengths and padded
    targets only and returns (loss, log_alpha))."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__()
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def construct(self, log_probs, targets, input_lengths, target_lengths):
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                        self.zero_infinity)


def adaptive_windows(length, size):
    """(start, end) of each of PyTorch's adaptive pooling windows over an axis of `length`: output i
    reads floor(i * length / size) up to ceil((i + 1) * length / size), so windows may overlap and
    length need not be a multiple of size (MindSpore's 1-D adaptive pooling requires one)."""
    return [((i * length) // size, -((-(i + 1) * length) // size)) for i in range(size)]


def adaptive_avg_pool1d(input, output_size):
    """F.adaptive_avg_pool1d over the last axis, by PyTorch's windows (adaptive_windows)."""
    size = output_size[0] if isinstance(output_size, (tuple, list)) else output_size
    return ops.stack([input[..., start:end].mean(-1) for start, end in adaptive_windows(input.shape[-1], size)], -1)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """F.adaptive_max_pool1d over the last axis, by PyTorch's windows (adaptive_windows); the indices
    count along the input's last axis, as PyTorch's do."""
    size = output_size[0] if isinstance(output_size, (tuple, list)) else output_size
    pairs = [(ops.max(input[..., start:end], -1), start) for start, end in adaptive_windows(input.shape[-1], size)]
    values = ops.stack([found[0] for found, _ in pairs], -1)
    if not return_indices:
        return values
    return values, ops.stack([found[1].astype(mindspore.int64) + start for found, start in pairs], -1)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None,
                antialias=False):
    """F.interpolate by PyTorch's CPU formulas, one spatial axis at a time (interpolate_plan): the output
    size floor(size * scale_factor), the source coordinate from 1 / scale_factor unless
    recompute_scale_factor, nearest's float32 index arithmetic, bicubic's A = -0.75 kernel with edge
    indices clamped, area as adaptive average pooling over PyTorch's windows. ops.interpolate refuses
    scale_factor for 4-D input, computes bicubic otherwise and has no nearest-exact or 1-D area for a
    length that is no multiple of the size. antialias is PyTorch's parameter, False only (the
    conversion marks a call with another value)."""
    spatial = input.ndim - 2
    sizes_in = tuple(input.shape[2:])
    if size is not None:
        sizes_out = (size,) * spatial if isinstance(size, int) else tuple(size)
        scales = (None,) * spatial
    else:
        factors = tuple(scale_factor) if isinstance(scale_factor, (tuple, list)) else (scale_factor,) * spatial
        sizes_out = tuple(int(n * f // 1) for n, f in zip(sizes_in, factors))
        scales = (None,) * spatial if recompute_scale_factor else factors
    if mode == "area":
        out = input
        for axis in range(2, input.ndim):
            windows = adaptive_windows(sizes_in[axis - 2], sizes_out[axis - 2])
            out = ops.stack([out.narrow(axis, start, end - start).mean(axis) for start, end in windows], axis)
        return out
    nearest = mode in ("nearest", "nearest-exact")
    wide = input.dtype == mindspore.float64  # PyTorch weighs in float64 for float64, in float32 otherwise
    out = input if nearest else input.astype(mindspore.float64 if wide else mindspore.float32)
    for axis in range(2, input.ndim):
        index, weights = interpolate_plan(mode, sizes_in[axis - 2], sizes_out[axis - 2], scales[axis - 2],
                                          align_corners, wide)
        shape = [1] * input.ndim
        shape[axis] = -1
        total = None
        for where, weight in zip(index, weights):
            term = ops.gather(out, where, axis)
            term = term if weight is None else term * weight.reshape(tuple(shape))
            total = term if total is None else total + term
        out = total
    return out.astype(input.dtype)


@mindspore.constexpr
def interpolate_plan(mode, size_in, size_out, scale, align_corners, wide):
    """The input indices and their weights (None: taken as they are) giving each output position along
    one axis, as PyTorch's CPU upsampling kernels compute them (float32 arithmetic unless `wide`), as
    tensors. A constant of the graph when interpolate runs inside a compiled step (its arguments are
    sizes and settings, known when the graph compiles): graph mode cannot run NumPy itself."""
    import numpy as np

    def tensors(index, weights):
        return (tuple(mindspore.Tensor(i.astype(np.int64)) for i in index),
                tuple(None if w is None else mindspore.Tensor(w) for w in weights))

    dst = np.arange(size_out)
    if mode in ("nearest", "nearest-exact"):  # float32 scale whatever the dtype, as PyTorch's kernels
        step = np.float32(1.0 / scale) if scale else np.float32(size_in) / np.float32(size_out)
        if mode == "nearest":
            src = np.floor(dst.astype(np.float32) * step)
        else:
            src = np.floor(((dst + 0.5) * np.float64(step)).astype(np.float32))
        return tensors([np.minimum(src.astype(np.int64), size_in - 1)], [None])
    real = np.float64 if wide else np.float32
    if align_corners:
        step = real((size_in - 1) / (size_out - 1)) if size_out > 1 else real(0)
        source = step * dst.astype(real)
    else:
        step = real(1.0 / scale) if scale else real(size_in) / real(size_out)
        source = step * (dst.astype(real) + real(0.5)) - real(0.5)
    if mode != "bicubic":  # linear, bilinear, trilinear: two neighbours, the source clamped at 0
        source = source if align_corners else np.maximum(source, real(0))
        low = source.astype(np.int64)
        high = np.where(low < size_in - 1, low + 1, low)
        part = np.clip(source - low, 0, 1).astype(real)
        return tensors([low, high], [(1 - part).astype(real), part])
    base = np.floor(source)
    t = (source - base).astype(real)
    a = real(-0.75)
    near = lambda x: ((a + 2) * x - (a + 3)) * x * x + 1  # noqa: E731 (cubic convolution, |x| <= 1)
    far = lambda x: ((a * x - 5 * a) * x + 8 * a) * x - 4 * a  # noqa: E731 (1 < |x| < 2)
    index = [np.clip(base.astype(np.int64) - 1 + k, 0, size_in - 1) for k in range(4)]
    return tensors(index, [w.astype(real) for w in (far(t + 1), near(t), near(1 - t), far(2 - t))])


class AdaptiveAvgPool1d(nn.Cell):
    """nn.AdaptiveAvgPool1d: the layer form of adaptive_avg_pool1d()."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, input):
        return adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool1d(nn.Cell):
    """nn.AdaptiveMaxPool1d: the layer form of adaptive_max_pool1d()."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def construct(self, input):
        return adaptive_max_pool1d(input, self.output_size, self.return_indices)


def local_response_norm(input, size, alpha=0.0001, beta=0.75, k=1.0):
    """F.local_response_norm: input / (k + alpha * mean of the squares over `size` neighbouring
    channels, zeros past the edges) ** beta, for any input of three axes or more. MindSpore's LRN takes
    4-D input only, a half-width for size, and sums where PyTorch averages."""
    if input.size == 0:  # PyTorch returns an empty input as it is, whatever its dtype
        return input
    square = input * input
    before, after = list(input.shape), list(input.shape)
    before[1], after[1] = size // 2, (size - 1) // 2
    padded = ops.cat([ops.zeros(tuple(before), input.dtype), square, ops.zeros(tuple(after), input.dtype)], 1)
    channels = input.shape[1]
    total = padded[:, 0:channels]
    for start in range(1, size):
        total = total + padded[:, start:start + channels]
    return input / (total * (alpha / size) + k) ** beta


class LocalResponseNorm(nn.Cell):
    """nn.LocalResponseNorm: the layer form of local_response_norm()."""

    def __init__(self, size, alpha=0.0001, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def construct(self, input):
        return local_response_norm(input, self.size, self.alpha, self.beta, self.k)


class Fold(nn.Cell):
    """nn.Fold: the layer form of fold() (MindSpore has no Fold cell)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def construct(self, input):
        return fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)


class Unfold(nn.Cell):
    """nn.Unfold: the layer form of unfold() (MindSpore's nn.Unfold extracts image patches with
    another layout and other arguments)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def construct(self, input):
        return unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)


def aminmax(input, *, dim=None, keepdim=False):
    """torch.aminmax: (min, max) over dim (None: all elements) as a named tuple; a NaN in a reduced
    slice gives NaN for both, as in PyTorch (MindSpore's amin/amax skip NaN)."""
    import collections
    if input.size == 0 and (dim is None or input.shape[dim] == 0):  # (5, 0, 5) over axis 0 is an empty result
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension")
    axis = tuple(range(input.ndim)) if dim is None else (dim,)
    low, high = input.amin(axis, keepdim), input.amax(axis, keepdim)
    if ops.is_floating_point(input):
        missing = ops.isnan(input).any(axis=axis, keep_dims=keepdim)
        nan = mindspore.Tensor(float("nan"), input.dtype)
        low, high = ops.where(missing, nan, low), ops.where(missing, nan, high)
    if dim is None and keepdim:
        low, high = low.reshape((1,) * input.ndim), high.reshape((1,) * input.ndim)
    return collections.namedtuple("aminmax", ["min", "max"])(low, high)


def vdot(input, other):
    """torch.vdot: the dot product of two 1-D tensors of one dtype, the first conjugated when
    complex."""
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input.dtype != other.dtype:
        raise RuntimeError(f"vdot: expected both vectors to have same dtype, but found {input.dtype} and {other.dtype}")
    if input.shape != other.shape:
        raise RuntimeError("inconsistent tensor size")
    if input.dtype in (mindspore.complex64, mindspore.complex128):
        input = ops.conj(input)
    return ops.inner(input, other)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """torch.isin: whether each element of `elements` equals one of `test_elements` (either may be a
    Python number; NaN matches nothing); invert negates."""
    elements = elements if isinstance(elements, mindspore.Tensor) else mindspore.Tensor(elements)
    test_elements = test_elements if isinstance(test_elements, mindspore.Tensor) else mindspore.Tensor(test_elements)
    flat = test_elements.reshape(-1)
    if flat.shape[0] == 0:
        found = ops.zeros(elements.shape, mindspore.bool_)
    else:
        found = (elements.reshape(elements.shape + (1,)) == flat).any(axis=-1)
    return ops.logical_not(found) if invert else found


def take(input, index):
    """torch.take: input read as 1-D at `index` (negative indices count from the end), shaped like
    index; an index out of range raises IndexError as in PyTorch (MindSpore's Take has no CPU
    kernel)."""
    flat = input.reshape(-1)
    count = flat.shape[0]
    if index.size and (int(index.max()) >= count or int(index.min()) < -count):
        raise IndexError(f"out of range: tried to access an index outside a tensor of {count} elements")
    index = index.astype(mindspore.int64)
    index = ops.where(index < 0, index + count, index)
    return ops.gather(flat, index.reshape(-1), 0).reshape(index.shape)


def shift_operands(input, other):
    """Two operands of a shift as tensors of the dtype PyTorch computes in (a Python int takes the
    tensor's dtype; two integer tensors promote as in NumPy)."""
    import numpy as np
    if not isinstance(input, mindspore.Tensor):
        input = mindspore.Tensor(input, other.dtype)
    if not isinstance(other, mindspore.Tensor):
        other = mindspore.Tensor(other, input.dtype)
    if input.dtype != other.dtype:
        common = np.promote_types(mindspore.dtype_to_nptype(input.dtype), mindspore.dtype_to_nptype(other.dtype))
        dtype = mindspore.Tensor(np.zeros(0, common)).dtype
        input, other = input.astype(dtype), other.astype(dtype)
    return input, other, 8 * input.itemsize


def bitwise_left_shift(input, other):
    """torch.bitwise_left_shift: ops.bitwise_left_shift, with PyTorch's 0 where the shift is negative
    or not smaller than the bit width (MindSpore wraps those for 32- and 64-bit integers)."""
    input, other, bits = shift_operands(input, other)
    out = ops.bitwise_left_shift(input, other)
    return ops.where((other < 0) | (other >= bits), ops.zeros_like(out), out)


def bitwise_right_shift(input, other):
    """torch.bitwise_right_shift: ops.bitwise_right_shift, with PyTorch's sign fill (-1 for negative
    values, else 0) where the shift is negative or not smaller than the bit width."""
    input, other, bits = shift_operands(input, other)
    out = ops.bitwise_right_shift(input, other)
    fill = ops.where(input < 0, ops.full_like(out, -1), ops.zeros_like(out))
    return ops.where((other < 0) | (other >= bits), fill, out)


def bitwise_not(input):
    """torch.bitwise_not: ops.invert for integers, logical not for bool (ops.invert refuses bool)."""
    return ops.logical_not(input) if input.dtype == mindspore.bool_ else ops.invert(input)


def conj_physical(input):
    """torch.conj_physical: ops.conj for complex tensors, the values as they are for the others
    (ops.conj refuses bool)."""
    return ops.conj(input) if input.dtype in (mindspore.complex64, mindspore.complex128) else input.copy()


def complex_tensor(real, imag):
    """torch.complex (named apart from Python's complex()): real + imag * 1j of one float dtype (float32 -> complex64, float64 ->
    complex128), the two broadcast first (the Complex primitive does not broadcast)."""
    import numpy as np
    shape = tuple(np.broadcast_shapes(tuple(real.shape), tuple(imag.shape)))
    return ops.Complex()(ops.broadcast_to(real, shape), ops.broadcast_to(imag, shape))


def frexp(input):
    """torch.frexp in NumPy: (mantissa, exponent) with input = mantissa * 2 ** exponent, mantissa in
    [0.5, 1) in magnitude and input's dtype, exponent int32 (0 for 0, infinities and NaN)."""
    import collections
    import numpy as np
    if not ops.is_floating_point(input):
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = np.frexp(input.asnumpy())
    return collections.namedtuple("frexp", ["mantissa", "exponent"])(
        mindspore.Tensor(mantissa), mindspore.Tensor(exponent.astype(np.int32)))


def element_size(input):
    """Tensor.element_size(): the bytes of one element (MindSpore's itemsize)."""
    return input.itemsize


def dot(input, other):
    """x.dot(y) where x may be a tensor or a numpy array: PyTorch's takes 1-D tensors, which MindSpore's
    Tensor.dot refuses, so a tensor's goes to ops.inner; anything else keeps its own dot."""
    if isinstance(input, mindspore.Tensor):
        return ops.inner(input, other)
    return input.dot(other)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """torch.nn.utils.rnn.pad_sequence: tensors of lengths L_i (and one trailing shape) padded with
    padding_value to the longest, on the right or the left, stacked as (L, B, *) or, batch_first,
    (B, L, *)."""
    if padding_side not in ("right", "left"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    longest = max(sequence.shape[0] for sequence in sequences)
    padded = []
    for sequence in sequences:
        extra = longest - sequence.shape[0]
        if extra:
            fill = ops.full((extra,) + tuple(sequence.shape[1:]), padding_value, dtype=sequence.dtype)
            sequence = ops.cat([sequence, fill] if padding_side == "right" else [fill, sequence])
        padded.append(sequence)
    out = ops.stack(padded)
    return out if batch_first else out.swapaxes(0, 1)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, msg=None):
    """torch.testing.assert_close for MindSpore tensors, NumPy arrays, Python numbers and sequences or
    mappings of them: raises AssertionError where PyTorch does (shapes, dtypes unless check_dtype is
    False, then values: |actual - expected| <= atol + rtol * |expected|, equal infinities, NaN only
    with equal_nan; rtol/atol default by dtype as in PyTorch), TypeError for pairs PyTorch cannot
    compare. MindSpore has no devices or layouts to compare; msg replaces the message (a callable
    gets it)."""
    import numpy as np
    tolerances = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
                  "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}
    numbers = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, "
                         f"but got no {'rtol' if rtol is None else 'atol'}.")

    def fail(default):
        raise AssertionError(msg(default) if callable(msg) else default if msg is None else msg)

    def values(item):
        """(array, dtype name, what it is) for a tensor, an array or a number; None for anything else."""
        if isinstance(item, mindspore.Tensor):
            name = str(item.dtype).lower()
            return (item.astype(mindspore.float32) if name == "bfloat16" else item).asnumpy(), name, "Tensor-likes"
        if isinstance(item, np.ndarray):
            return item, str(item.dtype), "Tensor-likes"
        if isinstance(item, np.generic) or type(item) in numbers:
            array = np.asarray(item, numbers.get(type(item)))
            return array, str(array.dtype), "Scalars"
        return None

    def compare(a, e):
        if a is None and e is None:
            return
        pair_a, pair_e = values(a), values(e)
        tensors = isinstance(a, mindspore.Tensor) and isinstance(e, mindspore.Tensor)
        related = tensors and (allow_subclasses and (isinstance(a, type(e)) or isinstance(e, type(a)))
                               or type(a) is type(e))
        arrays = isinstance(a, np.ndarray) and isinstance(e, np.ndarray)
        scalars = pair_a is not None and pair_e is not None and pair_a[2] == pair_e[2] == "Scalars"
        if not (related or arrays or scalars):
            if isinstance(a, (list, tuple)) and isinstance(e, (list, tuple)):
                if len(a) != len(e):
                    fail(f"The length of the sequences mismatch: {len(a)} != {len(e)}")
                for x, y in zip(a, e):
                    compare(x, y)
                return
            if isinstance(a, dict) and isinstance(e, dict):
                if set(a) != set(e):
                    fail(f"The keys of the mappings do not match: missing in the actual mapping: "
                         f"{sorted(set(e) - set(a), key=str)}, additional: {sorted(set(a) - set(e), key=str)}")
                for key in e:
                    compare(a[key], e[key])
                return
            raise TypeError(f"No comparison pair was able to handle inputs of type {type(a)} and {type(e)}.")
        (x, x_dtype, kind), (y, y_dtype, _) = pair_a, pair_e
        if x.shape != y.shape:
            fail(f"The values for attribute 'shape' do not match: {x.shape} != {y.shape}.")
        if check_dtype and x_dtype != y_dtype:
            fail(f"The values for attribute 'dtype' do not match: {x_dtype} != {y_dtype}.")
        low, high = (rtol, atol) if rtol is not None else tuple(
            max(tolerances.get(name, (0.0, 0.0))[i] for name in (x_dtype, y_dtype)) for i in (0, 1))
        if x.dtype != y.dtype:
            common = np.promote_types(x.dtype, y.dtype)
            x, y = x.astype(common), y.astype(common)
        with np.errstate(invalid="ignore", over="ignore"):
            close = x == y
            if equal_nan and x.dtype.kind in "fc":
                close = close | (np.isnan(x) & np.isnan(y))
            if (low or high) and x.dtype.kind != "b":
                wide = x.dtype if x.dtype.kind in "fc" else np.float64  # floats in their own precision
                error = np.abs(x.astype(wide) - y.astype(wide))
                close = close | (np.isfinite(error) & (error <= high + low * np.abs(y.astype(wide))))
        if not np.all(close):
            wrong = int(np.size(close) - np.count_nonzero(close))
            fail(f"{kind} are not close!\n\nMismatched elements: {wrong} / {np.size(close)} "
                 f"({100.0 * wrong / max(np.size(close), 1):.1f}%)")

    compare(actual, expected)


def result_type(tensor, other):
    """torch.result_type: the dtype PyTorch's arithmetic on tensor and other gives. Operands rank by
    kind (tensors with dimensions, then 0-d tensors, then Python numbers: bool, int64, float32,
    complex64); a lower-ranked operand counts only when its category (bool < integer < float <
    complex) is higher, as in PyTorch's type promotion."""
    import numbers
    import numpy as np
    names = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
             "complex64", "complex128"]

    def category(name):
        return 0 if name == "bool" else 1 if "int" in name else 3 if "complex" in name else 2

    def promote(a, b):
        if a is None or a == b:
            return b
        if b is None:
            return a
        if category(a) != category(b):
            high, low = (a, b) if category(a) > category(b) else (b, a)
            if category(high) == 3 and category(low) == 2 and low == "float64":
                return "complex128"
            return high
        if {a, b} == {"float16", "bfloat16"}:
            return "float32"
        if "uint8" in (a, b) and category(a) == 1:
            signed = b if a == "uint8" else a
            return "int16" if signed == "int8" else signed
        return max(a, b, key=names.index)

    def combine(higher, lower):
        if higher is None:
            return lower
        if lower is None or category(higher) >= category(lower):
            return higher if category(higher) > 0 or lower is None else promote(higher, lower)
        if category(lower) == 3 and category(higher) == 2:
            return {"float64": "complex128", "float16": "complex32"}.get(higher, "complex64")
        return promote(higher, lower) if category(lower) == 2 and category(higher) == 0 else lower

    groups = {"dims": None, "zero": None, "number": None}
    for operand in (tensor, other):
        if isinstance(operand, mindspore.Tensor):
            key = "dims" if operand.ndim else "zero"
            groups[key] = promote(groups[key], str(operand.dtype).lower())
        elif isinstance(operand, numbers.Number):
            name = "bool" if isinstance(operand, (bool, np.bool_)) else "int64" if isinstance(operand, numbers.Integral) \
                else "float32" if isinstance(operand, numbers.Real) else "complex64"
            groups["number"] = promote(groups["number"], name)
        else:
            raise TypeError(f"result_type() takes tensors and numbers, not {type(operand).__name__}")
    name = combine(groups["dims"], combine(groups["zero"], groups["number"]))
    if name == "complex32":
        raise TypeError("the result would be complex32, which MindSpore does not have")
    return getattr(mindspore, {"bool": "bool_"}.get(name, name))


def ndtr(input):
    """torch.special.ndtr: the standard normal CDF, 0.5 * erfc(-x / sqrt(2)) as PyTorch computes it
    (integer and bool inputs as float32)."""
    if not ops.is_floating_point(input):
        input = input.astype(mindspore.float32)
    return 0.5 * ops.erfc(-input * 0.7071067811865476)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """torch.nn.utils.rnn.unpad_sequence: the list of each sequence cut to its length. Like PyTorch,
    with batch_first=False it first transposes padded_sequences in place to (B, T, *)."""
    if not batch_first:
        padded_sequences.assign_value(padded_sequences.swapaxes(0, 1))
    return [sequence[:max(int(length), 0)] for sequence, length in zip(padded_sequences, lengths, strict=True)]


def renorm(input, p, dim, maxnorm):
    """torch.renorm: each slice along dim whose p-norm exceeds maxnorm scaled down to maxnorm (by
    maxnorm / (norm + 1e-7), as PyTorch does); MindSpore's renorm takes an integer p only."""
    axes = tuple(a for a in range(input.ndim) if a != dim % input.ndim)
    norms = lp_norm(input, p, axes, True)
    scale = ops.where(norms > maxnorm, maxnorm / (norms + 1e-7), ops.ones_like(norms))
    return input * scale.astype(input.dtype)


# Issue 29 (marked calls with an exact form): torch.normal, randint_like, log_softmax(dtype=), addcdiv.
def normal(mean, std=1.0, size=None, *, dtype=None):
    """torch.normal's four overloads: tensor/tensor, tensor/float and float/tensor draw one value per
    element of the broadcast mean and std, in the tensor's dtype; float/float draws `size` values in dtype
    (float32 by default). MindSpore's normal takes shape, mean and std as other arguments."""
    tensors = [v for v in (mean, std) if isinstance(v, mindspore.Tensor)]
    if not tensors:
        dtype = mindspore.float32 if dtype is None else dtype
        return ops.randn(tuple(size), dtype=dtype) * std + mean
    like = tensors[0] if len(tensors) == 1 else tensors[0] + tensors[1]  # the broadcast shape, promoted dtype
    return (ops.randn(like.shape, dtype=like.dtype) * std + mean).astype(like.dtype)


def randint_like(input, low=0, high=None, *, dtype=None):
    """torch.randint_like(input, high) and (input, low, high): int64 draws of input's shape, cast to dtype
    or input's dtype (MindSpore's randint_like takes integer dtypes only)."""
    if high is None:
        low, high = 0, low
    draw = ops.randint(low, high, input.shape, dtype=mindspore.int64)
    return draw.astype(input.dtype if dtype is None else dtype)


def log_softmax_dtype(input, dim, dtype=None):
    """torch.log_softmax(input, dim, dtype=): input cast to dtype first, as PyTorch does; MindSpore's
    log_softmax has no dtype."""
    return ops.log_softmax(input if dtype is None else input.astype(dtype), dim)


def addcdiv(input, tensor1, tensor2, *, value=1):
    """torch.addcdiv: input + value * tensor1 / tensor2 (float16 computed in float32, as PyTorch's CPU kernel
    does). MindSpore's addcdiv has no CPU kernel for complex tensors."""
    if input.dtype == mindspore.float16:
        return addcdiv(input.astype(mindspore.float32), tensor1.astype(mindspore.float32),
                       tensor2.astype(mindspore.float32), value=value).astype(mindspore.float16)
    return input + value * tensor1 / tensor2


def extreme_of_two(input, other, largest):
    """The elementwise maximum (or minimum) of two tensors as torch.maximum gives it: NaN wherever either
    holds one (MindSpore's returns the other element when the first is NaN), or/and for booleans (no bool
    kernel)."""
    if input.dtype == mindspore.bool_ and other.dtype == mindspore.bool_:
        return ops.logical_or(input, other) if largest else ops.logical_and(input, other)
    value = ops.maximum(input, other) if largest else ops.minimum(input, other)
    if value.is_floating_point():
        nan = ops.isnan(input.astype(value.dtype)) | ops.isnan(other.astype(value.dtype))
        value = ops.where(nan, ops.full_like(value, float("nan")), value)
    return value


def max_dim_or_other(input, dim_or_other):
    """torch.max(input, x) / input.max(x) where x's type is known only at run time: the elementwise maximum
    when x is a tensor (extreme_of_two), else the (values, indices) along dim x."""
    if isinstance(dim_or_other, mindspore.Tensor):
        return extreme_of_two(input, dim_or_other, True)
    return ops.max(input, dim_or_other)


def min_dim_or_other(input, dim_or_other):
    """torch.min(input, x) / input.min(x): the elementwise minimum when x is a tensor, else the
    (values, indices) along dim x (see max_dim_or_other)."""
    if isinstance(dim_or_other, mindspore.Tensor):
        return extreme_of_two(input, dim_or_other, False)
    return ops.min(input, dim_or_other)


def maximum(input, other):
    """torch.maximum: NaN wherever either operand holds one, as PyTorch gives it (extreme_of_two)."""
    return extreme_of_two(input, other, True)


def minimum(input, other):
    """torch.minimum: NaN wherever either operand holds one, as PyTorch gives it (extreme_of_two)."""
    return extreme_of_two(input, other, False)
