"""State shared by the concern handlers while one file is converted."""
from __future__ import annotations

from dataclasses import dataclass, field
import libcst as cst

from analysis.knowledge import load_mapping
from analysis.knowledge.mapping import ApiMapping

from . import holders
from .names import Spelling, dotted_expr
from .result import Change, LayerRecord, Unconverted


def parse_version(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


@dataclass
class ConversionContext:
    target: str
    ms_version: tuple[int, ...]
    mapping: ApiMapping  # the target's table
    classic: ApiMapping  # classic table: semantic rewrites and fallback for APIs mint does not map
    aliases: dict[str, str]  # local name -> fully qualified torch name
    located: list[tuple] = field(default_factory=list)  # (record, node, enclosing statement): line filled in later
    statements: list[tuple[cst.CSTNode, int]] = field(default_factory=list)  # open statements, index in source order
    changes: list[Change] = field(default_factory=list)
    unconverted: list[Unconverted] = field(default_factory=list)
    layer_map: list[LayerRecord] = field(default_factory=list)
    imports: set[str] = field(default_factory=set)  # import statements the output needs
    marks: list[list[str]] = field(default_factory=list)  # MIGRATE comments per open statement
    uses_scheduler: bool = False  # the file builds LR schedulers: optimizers go experimental
    default_dtype_set: bool = False  # the file calls set_default_dtype: float32 is not every creation's default
    stated_classes: dict | None = None  # variable -> dtype class every assignment states (stated_dtypes.py), lazily
    uses_param_groups: bool = False  # the file reads or writes optimizer.param_groups: optimizers go experimental
    group_names: set[str] = field(default_factory=set)  # variables bound by iterating param_groups (grouplr.py)
    group_lr_only: bool = False  # every param_groups write is a group's lr, assigned into its Parameter
    transforms_imported: bool = False  # the imports reach torchvision.transforms (scan/model_transforms.py)
    dataset_names: set[str] = field(default_factory=set)  # variables bound to converted loaders
    loader_sources: dict[str, str] = field(default_factory=dict)  # loader variable -> its dataset variable (loader.dataset)
    optimizer_names: set[str] = field(default_factory=set)  # variables bound to torch.optim optimizers
    optimizer_models: dict[str, str] = field(default_factory=dict)  # optimizer variable -> network it trains
    optimizer_networks: dict[str, tuple[str, ...]] = field(default_factory=dict)  # ... -> networks whose parts it trains
    optimizer_kinds: dict[str, str] = field(default_factory=dict)  # optimizer variable -> its torch.optim class name
    optimizer_params: dict[str, str] = field(default_factory=dict)  # optimizer variable -> its params expression
    step_calls: set[int] = field(default_factory=set)  # backward/step/zero_grad calls a training step rewrite takes
    step_optimizers: dict[int, tuple[str, ...]] = field(default_factory=dict)  # block -> optimizers its step rewrites take
    zero_grads: set[int] = field(default_factory=set)  # zero_grad() statements the step rewrite drops
    step_clips: dict[int, str] = field(default_factory=dict)  # clip_grad_* call inside such a step -> its optimizer
    clip_rewrites: dict[int, str] = field(default_factory=dict)  # kept clip call -> statement acting on grads
    torch_left: set[str] = field(default_factory=set)  # import names still referenced by unconverted code
    left_calls: set[int] = field(default_factory=set)  # ids of the original nodes mark() left as they were
    label_losses: set[str] = field(default_factory=set)  # variables bound to losses taking int32 labels
    dataset_columns: dict[str, list[str]] = field(default_factory=dict)  # Dataset subclass -> columns
    slice_calls: set[int] = field(default_factory=set)  # converted calls giving MindSpore datasets (or split parts)
    ms_datasets: dict[str, int] = field(default_factory=dict)  # variables bound to such datasets -> loop_depth there
    loop_depth: int = 0  # loop bodies the statement being converted sits in (a loop's iterable is outside its body)
    ms_dataset_uses: dict[str, int] = field(default_factory=dict)  # such variable -> pipelines built on it
    outline: object = None  # outline.Outline of the file, None when the stdlib ast could not be used
    bound: dict[str, str] = field(default_factory=dict)  # variable -> kind of value it holds (bound.py)
    foreign: object = None  # analysis.scan.receivers.ForeignTable: receivers that are certainly not torch
    tree: object = None  # the file's stdlib ast (the outline's, or parsed when there is no outline); None if unparsable
    device_call: object = None  # regex that code calling torch.device matches; None: the file has no such call
    device_reads: set[str] | None = None  # dotted names read outside device moves (devices.read_elsewhere)
    device_names: set[str] = field(default_factory=set)  # removed device variables: .to(name) moves to them
    dropped: dict[int, tuple[str, str, str]] = field(default_factory=dict)  # statement -> (rule, api, note): removed
    accumulation: dict[int, object] = field(default_factory=dict)  # loop body / block -> accumulation.Plan
    statement_marks: dict[int, list[tuple[str, str, str]]] = field(default_factory=dict)  # statement -> marks
    inert_contexts: set[str] = field(default_factory=set)  # names bound only to nullcontext()/autocast (inert.py)
    autocast_decorators: set[int] = field(default_factory=set)  # @autocast(...) calls the definition drops
    step_notes: dict[int, str] = field(default_factory=dict)  # backward()/step() call -> its mark when left
    hoisted: dict[int, list] = field(default_factory=dict)
    before_statement: dict[int, list] = field(default_factory=dict)
    prefixed: set[str] = field(default_factory=set)  # networks whose parameter names got their own prefix  # statement -> statements to write before it  # loop body -> step functions to write before its loop
    inplace_layers: dict | None = None  # names bound to layers built with inplace=True -> the layer (inplace_layers.py)
    factory_dicts: frozenset | None = None  # names bound only to {'device': ..., 'dtype': ...} (factory_spread.py)
    # calls that are a whole statement's value (x.f(), y = x.f())
    statement_calls: set[int] = field(default_factory=set)
    shape_rebinds: dict[int, object] = field(default_factory=dict)  # x.squeeze_() call -> x, rebound by its statement
    step_names: set[str] = field(default_factory=set)  # names the file uses, and hoisted step functions' names
    spelling: Spelling = field(default_factory=lambda: Spelling(None))  # local names of MindSpore modules
    helpers: dict[str, tuple[str, str]] = field(default_factory=dict)  # helper written into the file -> (name, code)
    data_reach: tuple[set[str], set[str], set[str]] | None = None  # (parameter holders, foreign modules, variables): holders.py
    helper_uses: dict[str, int] = field(default_factory=dict)  # helper -> calls of it the output holds (helpers.release)
    loop_draws: dict[int, Change] = field(default_factory=dict)  # draw helper call -> its change record (loop_draws.py)
    host_draws: set[str] = field(default_factory=set)  # host_randint's name and the functions calling it (host_draws.py)
    support: str | None = None  # module the helpers are imported from (`ms_support`, `..ms_support`); None: written in

    @classmethod
    def create(cls, *, target: str, ms_version: str, aliases: dict[str, str],
               support: str | None = None) -> "ConversionContext":
        return cls(
            target=target,
            ms_version=parse_version(ms_version),
            mapping=load_mapping(target),
            classic=load_mapping("classic"),
            aliases=aliases,
            support=support,
        )

    def mint_entry(self, torch_name: str):
        """The mint table's entry when --target mint maps this API to mindspore.mint, else None."""
        if self.target != "mint":
            return None
        entry = self.mapping.get(torch_name)
        if entry and any(name.startswith("mindspore.mint") for name in entry.mindspore):
            return entry
        return None

    def fetches_data(self, stmt: cst.CSTNode) -> bool:
        """Whether a statement of a training step only fetches data or builds a network, a loss... (holders.py;
        the file is read once)."""
        if self.data_reach is None:
            self.data_reach = (holders.parameter_holders(self.tree, self.aliases), holders.foreign_modules(self.tree),
                               holders.variables(self.tree))
        reach, foreign, variables = self.data_reach
        # a draw a loop's rewrite gave a helper (apis/loop_draws.py) fetches data as ops.randn does
        draws = frozenset(self.helpers[name][0] for name in ("randn_draw", "rand_draw") if name in self.helpers)
        return holders.builds_object(stmt, variables) or holders.fetches_data(stmt, reach, foreign, draws)

    # -- spelling -----------------------------------------------------------------
    def ms(self, qualified: str) -> str:
        """Code text for a MindSpore name; remembers the import it needs."""
        text, statement = self.spelling.spell(qualified)
        self.imports.add(statement)
        return text

    def ms_expr(self, qualified: str) -> cst.BaseExpression:
        return dotted_expr(self.ms(qualified))

    def keep(self, node: cst.CSTNode) -> None:
        """Note that node still refers to torch through an imported name (its import must stay)."""
        while isinstance(node, (cst.Call, cst.Attribute)):
            node = node.func if isinstance(node, cst.Call) else node.value
        if isinstance(node, cst.Name) and node.value in self.aliases:
            self.torch_left.add(node.value)

    # -- records --------------------------------------------------------------------
    def locate(self, record, node: cst.CSTNode):
        """record.line becomes node's start line in the original source once the pass is over
        (computed for the located nodes only: see codegen.start_lines)."""
        self.located.append((record, node, self.statements[-1] if self.statements else None))
        return record

    def change(self, node: cst.CSTNode, rule_id: str, torch_api: str, mindspore_api: str, description: str) -> None:
        self.changes.append(self.locate(Change(0, rule_id, torch_api, mindspore_api, description), node))

    def mark(self, node: cst.CSTNode, rule_id: str, torch_api: str, action: str) -> None:
        """Leave node as it is; put a MIGRATE comment above its statement and report it."""
        self.keep(node)
        self.left_calls.add(id(node))
        self.caution(node, rule_id, torch_api, action)

    def caution(self, node: cst.CSTNode, rule_id: str, torch_api: str, action: str) -> None:
        """A MIGRATE comment above node's statement, reported like a mark, on a call that is converted
        (node is the original; its rewrite no longer refers to torch): what a person must check."""
        self.unconverted.append(self.locate(Unconverted(0, rule_id, torch_api, action), node))
        comment = f"# MIGRATE({rule_id}): {action}"
        if self.marks:
            if comment not in self.marks[-1]:
                self.marks[-1].append(comment)
