"""The one-pass transformer: walks the tree once and hands each node to the
concern that owns it (api calls, layers, tensors, training, data, state, device,
cells). Positions come from the original tree, so every record has its original line."""
from __future__ import annotations

import re

import libcst as cst

from . import data, layers, rules, state, tensors, training
from .apis import SUPPLEMENT, convert_call, dtype_name
from .codegen import verbatim
from .context import ConversionContext
from .imports import rewrite_imports
from .layout import relayout
from .names import code, dotted, resolve
from .result import Change, LayerRecord, Unconverted
from .signatures import parameter_names

HANDLERS = {**layers.HANDLERS, **state.HANDLERS, **training.HANDLERS, **data.HANDLERS}
MODULE_BASES = ("torch.nn.Module",)
DATASET_BASES = ("torch.utils.data.Dataset", "torch.utils.data.IterableDataset")
GRAD_CONTEXTS = ("torch.no_grad", "torch.inference_mode", "torch.enable_grad", "torch.set_grad_enabled",
                 "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad")
DEVICE_CALLS = ("torch.device", "torch.cuda.is_available", "torch.cuda.device_count", "torch.cuda.current_device",
                "torch.backends.mps.is_available")
# torch.nn classes that are tensors, not layers: the layer map (parity aligns layers by it) leaves them out
NOT_LAYERS = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer",
                        "torch.nn.parameter.Buffer", "torch.nn.UninitializedParameter",
                        "torch.nn.parameter.UninitializedParameter", "torch.nn.UninitializedBuffer",
                        "torch.nn.parameter.UninitializedBuffer"})
LABEL_LOSSES = ("torch.nn.CrossEntropyLoss", "torch.nn.NLLLoss")
# Whitespace, punctuation, operators and literals: no handler acts on them or below them.
LEAF_TYPES = frozenset({
    cst.SimpleWhitespace, cst.ParenthesizedWhitespace, cst.TrailingWhitespace, cst.Newline, cst.EmptyLine,
    cst.Comment, cst.Comma, cst.Dot, cst.Colon, cst.Semicolon, cst.AssignEqual, cst.Equal, cst.LeftParen,
    cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace,
    cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ImportStar, cst.Ellipsis,
    cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power, cst.MatrixMultiply,
    cst.LeftShift, cst.RightShift, cst.BitAnd, cst.BitOr, cst.BitXor, cst.BitInvert, cst.Not, cst.Minus, cst.Plus,
    cst.And, cst.Or, cst.Is, cst.IsNot, cst.In, cst.NotIn, cst.LessThan, cst.LessThanEqual, cst.GreaterThan,
    cst.GreaterThanEqual, cst.NotEqual, cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.DivideAssign,
    cst.FloorDivideAssign, cst.ModuloAssign, cst.PowerAssign, cst.MatrixMultiplyAssign, cst.LeftShiftAssign,
    cst.RightShiftAssign, cst.BitAndAssign, cst.BitOrAssign, cst.BitXorAssign, cst.AssignEqual,
    cst.Pass, cst.Break, cst.Continue,
})
# Concrete statement classes: a type lookup per node instead of an ABC isinstance check.
STATEMENT_TYPES = frozenset({cst.SimpleStatementLine, cst.If, cst.For, cst.While, cst.With, cst.Try, cst.TryStar,
                             cst.FunctionDef, cst.ClassDef, cst.Match})


class Converter(cst.CSTTransformer):
    def __init__(self, ctx: ConversionContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.skip: set[int] = set()  # nodes that are parts of a larger name, callees, keywords
        self.classes: list[tuple[str, str, int]] = []  # (name, kind: cell/dataset/other, function depth)
        self.functions: list[str] = []
        self.cells: set[str] = set()
        self.layers: dict[int, list[tuple[str, LayerRecord]]] = {}
        self.loaders: set[int] = set()
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
        self.train_before: dict[int, list[str | None]] = {}  # loop -> networks to switch to training mode before it
        self.layer_lists: dict[str, list[tuple[str, LayerRecord]]] = {}  # `name = [layers...]` -> their records

    # -- dispatch (libcst's, with the visit_/leave_ lookups cached per node type) ----------------
    def on_visit(self, node: cst.CSTNode) -> bool:
        kind = type(node)
        if kind in LEAF_TYPES or (kind is cst.Name and node.value not in self.ctx.aliases):
            return False  # nothing below to convert: libcst keeps the node as it is (no rebuild)
        if kind is cst.SimpleStatementLine and self._cold(node):
            self.cold[id(node)] = self.statement_count
            self.statement_count += len(node.body)
            return False
        if kind in STATEMENT_TYPES:  # MIGRATE comments go above the innermost statement
            self.ctx.marks.append([])
            self.ctx.statements.append((node, self.statement_count))
            self.entry_edits.append(self.edits)
            self.statement_count += len(node.body) if kind is cst.SimpleStatementLine else 1
        elif kind is cst.SimpleStatementSuite:
            self.statement_count += len(node.body)
        visit = _VISITS.get(kind, _MISSING)
        if visit is _MISSING:
            visit = _VISITS[kind] = getattr(type(self), f"visit_{kind.__name__}", None)
        return visit is None or visit(self, node) is not False

    def on_leave(self, original, updated):
        kind = type(original)
        if kind in LEAF_TYPES:
            return updated
        if kind is cst.SimpleStatementLine and id(original) in self.cold:
            return self._verbatim(original, self.cold[id(original)])
        leave = _LEAVES.get(kind, _MISSING)
        if leave is _MISSING:
            leave = _LEAVES[kind] = getattr(type(self), f"leave_{kind.__name__}", None)
        result = updated if leave is None else leave(self, original, updated)
        if result is not updated:
            self.edits += 1
        if kind in STATEMENT_TYPES:
            within = self.ctx.statements.pop()
            comments = self.ctx.marks.pop()
            if comments:
                result = self._attach(result, comments)
                self.edits += 1
            if id(original) in self.train_before:
                result = self._train_mode(original, result, within)
                self.edits += 1
            if self.entry_edits.pop() == self.edits and kind is cst.SimpleStatementLine:
                return self._verbatim(original, within[1])
        return result

    def _verbatim(self, original: cst.SimpleStatementLine, index: int) -> cst.SimpleStatementLine:
        """An unchanged statement line, carrying its source text so that the output's code generation
        copies it instead of generating it (see codegen.VerbatimLine)."""
        outline = self.ctx.outline
        if outline is None:
            return original
        first = outline.first_lines[index]
        text = outline.source_lines(first - len(original.leading_lines), outline.end_lines[index + len(original.body) - 1])
        start = outline.line_starts[first]
        line = outline.source[start:outline.line_starts[first + 1]]
        return verbatim(original, text, line[:len(line) - len(line.lstrip(" \t"))])

    def _cold(self, node: cst.SimpleStatementLine) -> bool:
        outline = self.ctx.outline
        if outline is None:
            return False
        first = self.statement_count
        return all(index in outline.cold for index in range(first, first + len(node.body)))

    # no visit_<Node>_<attribute> hooks: skip libcst's per-field lookups
    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        return None

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        return None

    def _attach(self, result, comments: list[str]):
        lines = [cst.EmptyLine(comment=cst.Comment(c)) for c in comments]
        if isinstance(result, cst.RemovalSentinel):
            if self.ctx.marks:
                self.ctx.marks[-1].extend(comments)
            return result
        if isinstance(result, cst.FlattenSentinel):
            nodes = list(result.nodes)
            if nodes:
                nodes[0] = nodes[0].with_changes(leading_lines=[*nodes[0].leading_lines, *lines])
            return cst.FlattenSentinel(nodes)
        return result.with_changes(leading_lines=[*result.leading_lines, *lines])

    # -- bookkeeping ----------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.skip.add(id(node.value))
        self.skip.add(id(node.attr))

    def visit_Call(self, node: cst.Call) -> None:
        self.skip.add(id(node.func))
        # x.detach().cpu().numpy(): the inner calls are folded into asnumpy() by the outer one
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "numpy" and not node.args:
            inner = node.func.value
            while isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) \
                    and inner.func.attr.value in ("cpu", "detach") and not inner.args:
                self.folded.add(id(inner))
                inner = inner.func.value

    def visit_WithItem(self, node: cst.WithItem) -> None:
        self.grad_items.add(id(node.item))

    def visit_Decorator(self, node: cst.Decorator) -> None:
        self.grad_items.add(id(node.decorator))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.skip.add(id(node.keyword))

    def visit_Param(self, node: cst.Param) -> None:
        self.skip.add(id(node.name))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.skip.add(id(node.name))
        self.functions.append(node.name.value)
        self.scopes.append((node, len(self.loops)))

    def visit_Module(self, node: cst.Module) -> None:
        self.scopes.append((node, 0))
        training.note_step(self.ctx, node)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        training.note_step(self.ctx, node)
        if id(node) in self.loop_bodies:
            self.ctx.loop_depth += 1

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        if id(node) in self.loop_bodies:
            self.ctx.loop_depth += 1

    def leave_SimpleStatementSuite(self, original: cst.SimpleStatementSuite, updated: cst.SimpleStatementSuite):
        if id(original) in self.loop_bodies:
            self.ctx.loop_depth -= 1
        return updated

    def visit_For(self, node: cst.For) -> None:
        self.loops.append(node)
        self.loop_bodies.add(id(node.body))

    def visit_While(self, node: cst.While) -> None:
        self.loops.append(node)
        self.loop_bodies.add(id(node.body))

    def leave_While(self, original: cst.While, updated: cst.While):
        self.loops.pop()
        return updated

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.skip.add(id(node.name))
        kind = "other"
        for base in node.bases:
            self.skip.add(id(base.value))
            qualified = resolve(base.value, self.ctx.aliases)
            if qualified in MODULE_BASES or (qualified or "").startswith("torch.nn.") or code(base.value) in self.cells:
                kind = "cell"
            elif qualified in DATASET_BASES:
                kind = "dataset"
        if kind == "cell":
            self.cells.add(node.name.value)
        if kind == "dataset":
            columns = data.getitem_columns(node)
            if columns:
                self.ctx.dataset_columns[node.name.value] = columns
        self.classes.append((node.name.value, kind, len(self.functions)))

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef):
        name, kind, _ = self.classes.pop()
        if kind == "other":
            return updated
        bases = []
        for orig, base in zip(original.bases, updated.bases):
            qualified = resolve(orig.value, self.ctx.aliases)
            if qualified in MODULE_BASES:
                bases.append(base.with_changes(value=self.ctx.ms_expr("mindspore.nn.Cell")))
                self.ctx.change(orig, rules.CELL_BASE, qualified, "mindspore.nn.Cell", f"class {name}: nn.Module -> nn.Cell")
            elif qualified in DATASET_BASES:
                self.ctx.change(orig, rules.DATASET_CLASS, qualified, "",
                                f"class {name}: base {qualified} dropped (GeneratorDataset reads __getitem__/__len__)")
            elif qualified and qualified.startswith("torch."):
                entry = self.ctx.classic.get(qualified)
                if entry and entry.primary:
                    bases.append(base.with_changes(value=self.ctx.ms_expr(entry.primary)))
                    self.ctx.change(orig, rules.CELL_BASE, qualified, entry.primary, f"base {qualified} -> {entry.primary}")
                else:
                    self.ctx.mark(orig, rules.API_UNMAPPED, qualified, f"base class {qualified} has no counterpart")
                    bases.append(base)
            else:
                bases.append(base)
        if bases:
            bases[-1] = bases[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        if not bases:
            return updated.with_changes(bases=[], lpar=cst.MaybeSentinel.DEFAULT, rpar=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(bases=bases)

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef):
        self.functions.pop()
        self.scopes.pop()
        decorators = []
        for o, d in zip(original.decorators, updated.decorators):
            name = _decorator_name(o, self.ctx.aliases)
            if name in GRAD_CONTEXTS:
                self.ctx.change(o, rules.NO_GRAD, "torch.no_grad", "",
                                "no_grad decorator removed: MindSpore computes gradients only inside value_and_grad")
            elif name in self.ctx.classic.no_op_decorators:
                self.ctx.change(o, rules.JIT, name, "",
                                f"@{name} removed: MindSpore has no TorchScript, the function runs as written")
            else:
                decorators.append(d)
        if len(decorators) != len(updated.decorators):
            if decorators:  # the first decorator's blank lines and comments stay above the definition
                decorators[0] = decorators[0].with_changes(leading_lines=updated.decorators[0].leading_lines)
            else:
                updated = updated.with_changes(leading_lines=[*updated.leading_lines,
                                                              *updated.decorators[0].leading_lines])
            updated = updated.with_changes(decorators=decorators)
        if self.classes and self.classes[-1][1] == "dataset" and len(self.functions) == self.classes[-1][2] \
                and original.name.value == "__getitem__":
            return data.coerce_index(self.ctx, original, updated)
        if self.classes and self.classes[-1][1] == "cell" and len(self.functions) == self.classes[-1][2]:
            if original.name.value == "forward":
                self.ctx.change(original, rules.CELL_FORWARD, "torch.nn.Module.forward", "mindspore.nn.Cell.construct",
                                "forward -> construct")
                return updated.with_changes(name=cst.Name("construct"))
        return updated

    # -- calls ----------------------------------------------------------------------------------
    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        ctx = self.ctx
        qualified = resolve(original.func, ctx.aliases)
        if qualified is None:
            if isinstance(original.func, cst.Name) and original.func.value in ctx.label_losses:
                return self._int_labels(original, updated)
            if isinstance(original.func, cst.Attribute) and original.func.attr.value in training.STEP_METHODS:
                training.unplaced_call(ctx, original)
                return updated
            if isinstance(original.func, cst.Attribute) and original.func.attr.value == "add_module":
                return self._add_module(original, updated)
            if isinstance(original.func, cst.Attribute) and id(original) not in self.folded:
                new = tensors.method_call(ctx, original, updated)
                if new is not None:
                    return relayout(updated, new) if isinstance(new, cst.Call) and _same_arguments(updated, new) \
                        else new
            return updated
        if id(original) in self.grad_items and qualified in self.ctx.classic.no_op_decorators:
            return updated  # the function definition drops the decorator
        if qualified in GRAD_CONTEXTS:
            if id(original) not in self.grad_items:
                ctx.mark(original, rules.NO_GRAD, qualified,
                         "MindSpore computes gradients only inside value_and_grad: remove this switch")
            return updated  # a with-item or decorator: the statement around it goes
        if qualified in DEVICE_CALLS and qualified != "torch.device":
            ctx.mark(original, rules.DEVICE_CUDA, qualified,
                     "no CUDA query in MindSpore: choose the device once with mindspore.set_device")
            return updated
        mint = ctx.mint_entry(qualified)
        handler = None if mint else HANDLERS.get(qualified)
        entry = mint or ctx.classic.get(qualified)
        if mint is not None:
            new = convert_call(ctx, original, updated, qualified, mint)  # mint keeps PyTorch's semantics
        elif handler is not None:
            new = handler(ctx, original, updated, qualified, entry)
        elif qualified == "torch.device":
            ctx.mark(original, rules.DEVICE_OBJECT, qualified,
                     "torch.device has no counterpart: set the target once with mindspore.set_device")
            return updated
        elif entry is None and qualified in SUPPLEMENT:
            new = convert_call(ctx, original, updated, qualified, _supplement(qualified))
        else:
            new = convert_call(ctx, original, updated, qualified, entry)
        if new is updated:
            self.ctx.keep(original)
        else:
            if isinstance(new, cst.Call) and handler is not data.dataloader and _same_arguments(updated, new):
                new = relayout(updated, new)
            if handler is data.dataloader:
                self.loaders.add(id(new))
            if qualified.startswith("torch.nn.") and qualified.rsplit(".", 1)[1][:1].isupper() and isinstance(new, cst.Call) \
                    and qualified not in NOT_LAYERS:
                self._layer(original, updated, new, qualified)
        return new

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

    def _int_labels(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        positional = [a for a in updated.args if a.keyword is None and not a.star]
        if len(positional) < 2:
            return updated
        label = positional[1]
        cast = cst.Call(func=cst.Attribute(value=label.value, attr=cst.Name("astype")),
                        args=[cst.Arg(value=self.ctx.ms_expr("mindspore.int32"))])
        self.ctx.change(original, rules.LOSS_LABELS, "torch.nn.CrossEntropyLoss", "mindspore.nn.CrossEntropyLoss",
                        "class-index labels cast to int32 (MindSpore's loss rejects int64; "
                        "review if the targets are probabilities)")
        args = [a.with_changes(value=cast) if a is label else a for a in updated.args]
        return updated.with_changes(args=args)

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign):
        value_id = id(updated.value)
        called = resolve(original.value.func, self.ctx.aliases) if isinstance(original.value, cst.Call) else None
        if called in LABEL_LOSSES:
            for target in original.targets:
                if isinstance(target.target, cst.Name):
                    self.ctx.label_losses.add(target.target.value)
        if called in training.OPTIMIZER_NAMES:
            training.note_optimizer(self.ctx, original)
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
            prefix = _self_path(updated.targets[0].target)
            if prefix:
                self._bind(prefix, records)
        return updated

    def _bind(self, prefix: str, records: list[tuple[str, LayerRecord]]) -> None:
        """Layers stored on the cell being defined under the attribute path prefix: the layer map."""
        if not (self.classes and self.classes[-1][1] == "cell"):
            return
        for path, record in records:
            record.class_name = self.classes[-1][0]
            record.attribute = f"{prefix}.{path}" if path else prefix
            self.ctx.layer_map.append(record)

    def _add_module(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """m.add_module(name, layer) -> setattr(m, name, layer): Cell.__setattr__ registers the cell and
        prefixes its parameter names (insert_child_to_cell does not, and checkpoints key on those names)."""
        args = {a.keyword.value if a.keyword else ("name", "module")[i] if i < 2 else "*": a
                for i, a in enumerate(updated.args)}
        if set(args) != {"name", "module"} or any(a.star for a in updated.args):
            return updated
        receiver = updated.func.value
        new = cst.Call(func=cst.Name("setattr"), args=[
            cst.Arg(value=receiver), args["name"].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT,
                                                               comma=cst.MaybeSentinel.DEFAULT),
            args["module"].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT, comma=cst.MaybeSentinel.DEFAULT),
        ])
        self.ctx.change(original, rules.CELL_API, "torch.nn.Module.add_module", "mindspore.nn.Cell.__setattr__",
                        "add_module(name, cell) -> setattr(cell_owner, name, cell) (registers it and names its "
                        "parameters as PyTorch does)")
        name, owner = args["name"].value, _self_path(original.func.value, allow_self=True)
        records = self.layers.pop(id(args["module"].value), None)
        if records and owner is not None and isinstance(name, cst.SimpleString):
            self._bind(f"{owner}.{name.evaluated_value}" if owner else name.evaluated_value, records)
        return new

    def _needs_train_mode(self, optimizer: str) -> None:
        """A training step was rewritten inside a loop: the network its optimizer updates must be in
        training mode, which a Cell is not until set_train(True), unless the scope sets the mode before
        the loop runs (a call after it changes later iterations alike in both frameworks)."""
        scope, base = self.scopes[-1] if self.scopes else (None, 0)
        if scope is None or len(self.loops) <= base:
            return
        receivers = training.mode_set_before(scope, self.loops[-1])
        model = self.ctx.optimizer_models.get(optimizer)
        if (model is None and receivers) or model in receivers:
            return
        wanted = self.train_before.setdefault(id(self.loops[base]), [])
        if model not in wanted:
            wanted.append(model)

    def _train_mode(self, original: cst.CSTNode, result, within):
        """model.set_train(True) above the outermost loop of a scope that trains model (or a mark
        when the file does not say which network the optimizer updates)."""
        if not isinstance(result, (cst.For, cst.While)):
            return result
        kept = len(original.leading_lines)  # blank lines and comments above the loop go above the new line
        above, own = list(result.leading_lines[:kept]), list(result.leading_lines[kept:])
        statements: list[cst.BaseStatement] = []
        for model in self.train_before.pop(id(original)):
            if model is None:
                action = ("a Cell starts in inference mode: call set_train(True) on the network this loop trains "
                          "(PyTorch modules start in training mode)")
                record = Unconverted(0, rules.TRAIN_MODE_MISSING, "torch.nn.Module.train", action)
                self.ctx.unconverted.append(record)
                self.ctx.located.append((record, original, within))
                own.append(cst.EmptyLine(comment=cst.Comment(f"# MIGRATE({rules.TRAIN_MODE_MISSING}): {action}")))
                continue
            change = Change(0, rules.TRAIN_MODE_MISSING, "torch.nn.Module.train", "mindspore.nn.Cell.set_train",
                            f"{model}.set_train(True) added before the training loop (a Cell starts in inference "
                            "mode, a PyTorch module in training mode)")
            self.ctx.changes.append(change)
            self.ctx.located.append((change, original, within))
            statements.append(cst.parse_statement(f"{model}.set_train(True)"))
        if not statements:
            return result.with_changes(leading_lines=[*above, *own])
        statements[0] = statements[0].with_changes(leading_lines=above)
        return cst.FlattenSentinel([*statements, result.with_changes(leading_lines=own)])

    def leave_For(self, original: cst.For, updated: cst.For):
        self.loops.pop()
        it = updated.iter
        if isinstance(it, cst.Name) and it.value in self.ctx.dataset_names:
            self.ctx.change(original, rules.DATALOADER, "torch.utils.data.DataLoader",
                            "mindspore.dataset.Dataset.create_tuple_iterator", "loop over create_tuple_iterator()")
            return updated.with_changes(iter=_iterator(it))
        if (isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "enumerate" and it.args
                and isinstance(it.args[0].value, cst.Name) and it.args[0].value.value in self.ctx.dataset_names):
            self.ctx.change(original, rules.DATALOADER, "torch.utils.data.DataLoader",
                            "mindspore.dataset.Dataset.create_tuple_iterator", "loop over create_tuple_iterator()")
            first = it.args[0].with_changes(value=_iterator(it.args[0].value))
            return updated.with_changes(iter=it.with_changes(args=[first, *it.args[1:]]))
        return updated

    # -- names used as values: dtypes, classes, functions passed around -------------------------
    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute):
        if id(original) in self.skip:
            return updated
        return self._reference(original, updated)

    def leave_Name(self, original: cst.Name, updated: cst.Name):
        if id(original) in self.skip or original.value not in self.ctx.aliases:
            return updated
        return self._reference(original, updated)

    def _reference(self, original, updated):
        qualified = resolve(original, self.ctx.aliases)
        if not qualified:
            return updated
        if id(original) in self.grad_items and (qualified in GRAD_CONTEXTS or qualified in self.ctx.classic.no_op_decorators):
            return updated  # a bare decorator the function definition drops: no reason to keep torch
        if "." not in qualified:
            self.ctx.keep(original)
            return updated
        target = dtype_name(qualified)
        if target is None:
            if qualified == "torch.Tensor":
                target = "mindspore.Tensor"
            else:
                entry = self.ctx.mint_entry(qualified) or self.ctx.classic.get(qualified)
                last = qualified.rsplit(".", 1)[1]
                if entry and entry.primary and (entry.category == "consistent" or last[:1].isupper()):
                    target = entry.primary
        if target is None:
            self.ctx.keep(original)
            return updated
        self.ctx.change(original, rules.API_RENAME, qualified, target, f"{qualified} -> {target}")
        return self.ctx.ms_expr(target)

    # -- statements -----------------------------------------------------------------------------
    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        if self.ctx.device_call is not None and len(node.body) == 1 \
                and isinstance(node.body[0], (cst.Assign, cst.AnnAssign)):
            value = node.body[0].value
            if value is not None and self.ctx.device_call.search(code(value)) \
                    and _calls_any(value, self.ctx.aliases, ("torch.device",)):
                targets = [t.target for t in node.body[0].targets] if isinstance(node.body[0], cst.Assign) \
                    else [node.body[0].target]
                names = [dotted(t) for t in targets]
                read = self.ctx.device_reads
                kept = [n or code(t) for n, t in zip(names, targets) if n is None or read is None or n in read]
                if kept:
                    self._keep_device_variable(node, value, kept)
                    return False
                self.ctx.device_names.update(names)  # .to(name) is a device move whatever the name
                self.removed.add(id(node))
                return False
        return True

    def _keep_device_variable(self, node: cst.SimpleStatementLine, value: cst.BaseExpression, kept: list[str]) -> None:
        """A device variable read elsewhere than in device moves stays, torch code and all, with a mark."""
        names = " and ".join(kept)
        self.ctx.mark(node, rules.DEVICE_OBJECT, "torch.device",
                      f"{names} is also read outside .to()/device= in this file: MindSpore has no device objects, so set the "
                      f"device once with mindspore.set_device and rewrite the code that uses {names}")
        self.ctx.torch_left.update(n for n in re.findall(r"[^\W\d]\w*", code(value)) if n in self.ctx.aliases)

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        if id(original) in self.removed:
            self.ctx.change(original, rules.DEVICE_OBJECT, "torch.device", "",
                            "torch.device variable removed: MindSpore picks the device from its context")
            return cst.RemovalSentinel.REMOVE
        if len(updated.body) == 1:
            o, u = original.body[0], updated.body[0]
            # a device move whose result was discarded, or `x = x` left after removing .to(device)
            if isinstance(o, cst.Expr) and isinstance(o.value, cst.Call) and not isinstance(u.value, cst.Call):
                return _keep_comments_remove(updated)
            if isinstance(u, cst.Assign) and len(u.targets) == 1 and type(u.targets[0].target) is type(u.value) \
                    and code(u.targets[0].target) == code(u.value) and code(o) != code(u):
                return _keep_comments_remove(updated)
        return updated

    def leave_With(self, original: cst.With, updated: cst.With):
        grad = [resolve(i.item.func if isinstance(i.item, cst.Call) else i.item, self.ctx.aliases) in GRAD_CONTEXTS
                for i in original.items]
        if not any(grad):
            return updated
        if not all(grad) or any(i.asname for i in original.items):
            for item in original.items:
                self.ctx.keep(item.item)
            return updated.with_changes(items=[i for i, g in zip(updated.items, grad) if not g]) if not all(grad) else updated
        self.ctx.change(original, rules.NO_GRAD, "torch.no_grad", "",
                        "no_grad block unwrapped: MindSpore computes gradients only inside value_and_grad")
        body = updated.body
        if isinstance(body, cst.SimpleStatementSuite):
            statements = [cst.SimpleStatementLine(body=list(body.body))]
        else:
            statements = list(body.body)
        if not statements:
            return cst.RemovalSentinel.REMOVE
        statements[0] = statements[0].with_changes(leading_lines=[*updated.leading_lines, *statements[0].leading_lines])
        return cst.FlattenSentinel(statements)

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock):
        if id(original) in self.loop_bodies:
            self.ctx.loop_depth -= 1
        updated, optimizer = training.rewrite_step(self.ctx, original, updated)
        if optimizer is not None:
            self._needs_train_mode(optimizer)
        if not updated.body:
            updated = updated.with_changes(body=[cst.SimpleStatementLine(body=[cst.Pass()])])
        return updated

    def leave_Module(self, original: cst.Module, updated: cst.Module):
        updated, _ = training.rewrite_step(self.ctx, original, updated)  # straight-line code: no loop to switch
        if not updated.body:
            return updated
        module, _ = rewrite_imports(updated, self.ctx.imports, self.ctx.torch_left)
        return module


_MISSING = object()
_VISITS: dict[type, object] = {}  # node type -> Converter.visit_<Type> (None when absent)
_LEAVES: dict[type, object] = {}


def resolve_ms(call: cst.Call, ctx: ConversionContext) -> str:
    """The MindSpore name a converted call spells (reverse of ctx.ms)."""
    return ctx.spelling.qualify(dotted(call.func) or "")


def _decorator_name(decorator: cst.Decorator, aliases: dict[str, str]) -> str | None:
    """Qualified torch name of a decorator, called (@torch.no_grad()) or bare (@torch.jit.ignore)."""
    node = decorator.decorator
    return resolve(node.func if isinstance(node, cst.Call) else node, aliases)


def _same_arguments(before: cst.Call, after: cst.Call) -> bool:
    """Whether after edits before's own argument list (not a new call built around other values)."""
    if after.args is before.args:
        return False
    values = {id(a.value) for a in before.args}
    return not after.args or any(id(a.value) in values for a in after.args)


def _iterator(node: cst.BaseExpression) -> cst.Call:
    return cst.Call(func=cst.Attribute(value=node, attr=cst.Name("create_tuple_iterator")))


def _calls_any(node: cst.CSTNode, aliases: dict[str, str], names: tuple[str, ...]) -> bool:
    found = False

    class _Find(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            nonlocal found
            if resolve(call.func, aliases) in names:
                found = True

    node.visit(_Find())
    return found


def _keep_comments_remove(stmt: cst.SimpleStatementLine):
    if any(line.comment for line in stmt.leading_lines):
        return stmt.with_changes(body=[cst.Pass()])
    return cst.RemovalSentinel.REMOVE


def _supplement(qualified: str):
    from analysis.knowledge.mapping import ApiEntry

    return ApiEntry(torch=qualified, mindspore=(SUPPLEMENT[qualified],), category="consistent", section="supplement")


def _self_path(node: cst.BaseExpression, allow_self: bool = False) -> str | None:
    """'a.b' for self.a.b ('' for self itself when allow_self), None for anything else."""
    name = dotted(node)
    if name == "self":
        return "" if allow_self else None
    return name[5:] if name and name.startswith("self.") else None
