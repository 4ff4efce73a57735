"""What the converter's one pass has seen so far: the state its concern mixins (cells, calls, layer
map, assignments, statements, loops) share, each reading and updating it as the walk goes."""
from __future__ import annotations

import libcst as cst

from .context import ConversionContext
from .result import LayerRecord

# Gradient-recording switches: with-blocks and decorators the converter unwraps or drops.
GRAD_CONTEXTS = ("torch.no_grad", "torch.inference_mode", "torch.enable_grad", "torch.set_grad_enabled",
                 "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad")


class WalkState(cst.CSTTransformer):
    """The fields every concern mixin reads or updates; transformer.Converter combines the mixins."""

    def __init__(self, ctx: ConversionContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.skip: set[int] = set()  # nodes that are parts of a larger name, callees, keywords
        self.placement_values: set[int] = set()  # values of device=/layout=/... keywords: dropped with them
        self.pending_values: dict[int, list[tuple]] = {}  # statement -> unmapped torch values, marked at its end
        self.attribute_stores: set[int] = set()  # `obj.is_cuda = ...` / `p.grad = ...` targets (the user's attributes)
        self.classes: list[tuple[str, str, int]] = []  # (name, kind: cell/dataset/other, function depth)
        self.functions: list[str] = []
        self.cells: set[str] = set()
        self.layers: dict[int, list[tuple[str, LayerRecord]]] = {}
        self.loaders: set[int] = set()
        self.loader_sources: dict[int, str] = {}  # converted DataLoader call -> the dataset variable it reads
        self.removed: set[int] = set()
        self.folded: set[int] = set()  # cpu()/detach() calls an outer numpy() rewrites
        self.grad_items: set[int] = set()  # calls used as with-items or decorators
        self.cold: dict[int, int] = {}  # simple statements left unwalked (nothing to convert: see outline.py)
        self.edits = 0  # nodes a handler replaced so far: a statement during which none was is unchanged
        self.entry_edits: list[int] = []  # self.edits when each open statement was entered
        self.statement_count = 0  # statements seen, in source order, counted as the stdlib ast counts them
        self.loops: list[cst.CSTNode] = []  # open for/while statements
        self.loop_bodies: set[int] = set()  # bodies of for/while statements (their else: runs once)
        self.scopes: list[tuple[cst.CSTNode, int]] = []  # open function definitions / the module, len(loops) on entry
        self.outer_aliases: list[dict[str, str]] = []  # ctx.aliases of the enclosing scopes (cells.py)
        self.train_before: dict[int, list[str | None]] = {}  # loop -> networks to switch to training mode before it
        self.hoist_before: dict[int, list[cst.BaseStatement]] = {}  # loop -> training-step functions defined before it
        self.layer_lists: dict[str, list[tuple[str, LayerRecord]]] = {}  # `name = [layers...]` -> their records
        self.switches: dict[int, str] = {}  # torch.backends.* assignments removed -> the switch
        self.layer_names: dict[str, dict[str, str]] | None = None  # attribute names bound to renamed layers
        self.unwalked: set[int] = set()  # arguments a rewrite drops whole (partial()'s device=): not walked
        self.partial_heads: set[int] = set()  # the API partial() binds: converted with its bound arguments
        self.own_statistics: bool | None = None  # the file sets attributes named running_mean/running_var
        self.guarded: dict[int, tuple[str, dict[str, str]]] = {}  # if-body -> (variable, parameter renames)
        self.active_guards: list[tuple[str, dict[str, str]]] = []  # open isinstance()-guarded bodies
        self.layer_calls: set[int] = set()  # nn.Sequential/ModuleList/ModuleDict calls (their arguments are layers)
        self.in_layers = 0  # of those, how many are open
        self.model_transforms: set[int] = set()  # torchvision transform calls that are parts of a network: marked
