"""Weight normalisation on a Cell (torch.nn.utils.parametrizations.weight_norm, and the older
torch.nn.utils.weight_norm), which MindSpore lacks: the layer's weight becomes a magnitude g and a
direction v, and every call recomputes weight = v * (g / ||v||), the norm taken over every axis but
`dim`, before the layer's own construct runs (its class is swapped for a subclass that does so).
The parameters sit where PyTorch puts them, under PyTorch's names (`parametrizations.weight.original0`
and `original1`; `weight_g` and `weight_v` for the older function), so a checkpoint's names carry
over. Gradients reach g and v through the recomputed weight. The same rules as helper_source.py:
copied as text, never imported by the converter.
"""
import mindspore
from mindspore import nn, ops


def norm_except_dim(v, dim):
    """The 2-norm of v over every axis but dim (all of them for dim None), keeping v's rank."""
    if dim is None:
        return ops.sqrt((v * v).sum())
    axes = tuple(i for i in range(v.ndim) if i != dim % v.ndim)
    return ops.sqrt((v * v).sum(axis=axes, keepdims=True))


class WeightNormParametrization(nn.Cell):
    """g (original0) and v (original1) of one weight, at parametrizations.<name> as in PyTorch."""

    def __init__(self, weight, dim):
        super().__init__()
        self.dim = dim
        self.original0 = mindspore.Parameter(norm_except_dim(weight, dim), name="original0")
        self.original1 = mindspore.Parameter(weight.copy(), name="original1")

    def construct(self):
        return self.original1 * (self.original0 / norm_except_dim(self.original1, self.dim))


def recomputed_weight_cell(module, name, compute):
    """module with its class swapped for a subclass whose construct first sets attribute `name` to
    compute(module), then runs the class's own construct. Writing into the attribute outside (an init
    function on module.weight) changes a copy, as writing into PyTorch's computed weight does."""
    base = type(module)

    def construct(self, *args, **kwargs):
        object.__setattr__(self, name, compute(self))
        return base.construct(self, *args, **kwargs)

    module.__class__ = type(base.__name__, (base,), {"construct": construct})
    object.__setattr__(module, name, compute(module))  # readable before the first call, as in PyTorch
    return module


def weight_norm(module, name="weight", dim=0):
    """torch.nn.utils.parametrizations.weight_norm: returns module, its weight normalised."""
    parametrization = WeightNormParametrization(getattr(module, name), dim)
    delattr(module, name)
    if not isinstance(getattr(module, "parametrizations", None), nn.CellDict):
        module.parametrizations = nn.CellDict()
    module.parametrizations[name] = parametrization
    return recomputed_weight_cell(module, name, lambda cell: cell.parametrizations[name]())


def weight_norm_g_v(module, name="weight", dim=0):
    """torch.nn.utils.weight_norm (the older form): g and v as parameters <name>_g and <name>_v."""
    weight = getattr(module, name)
    g = mindspore.Parameter(norm_except_dim(weight, dim), name=name + "_g")
    v = mindspore.Parameter(weight.copy(), name=name + "_v")
    delattr(module, name)
    module.insert_param_to_cell(name + "_g", g)
    module.insert_param_to_cell(name + "_v", v)
    return recomputed_weight_cell(
        module, name, lambda cell: getattr(cell, name + "_v") * (getattr(cell, name + "_g")
                                                                 / norm_except_dim(getattr(cell, name + "_v"), dim)))
