"""The one-pass transformer: walks the tree once and hands each node to the
concern that owns it (api calls, layers, tensors, training, data, state, device,
cells). Positions come from the original tree, so every record has its original line.

Converter is the per-node dispatch plus the bookkeeping all concerns share; the rewrites
themselves are mixins, one module each: cells, calls, layermap, assignments, statements,
loops (their shared state is walk.WalkState)."""
from __future__ import annotations

import libcst as cst

from analysis.knowledge.placement_keywords import HARMLESS
from analysis.scan.model_transforms import ACTION, LAYER_CONTAINERS, is_transform

from .apis import partials
from .apis.functional import provided
from .calls import CallRewrites
from .core import rules
from .core.codegen import verbatim
from .core.names import resolve
from .modules.assignments import AssignmentBindings
from .modules.cells import CellRewrites
from .modules.layermap import LayerMap
from .modules.paramnames import ParameterNames
from .statements import StatementRewrites
from .training.idioms import ScriptIdioms
from .training.loops import LoopRewrites

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


class Converter(ScriptIdioms, ParameterNames, CellRewrites, CallRewrites, LayerMap, AssignmentBindings, StatementRewrites, LoopRewrites):
    """One walk over the module; each concern's visit_/leave_ methods come from its mixin, the
    dispatch and the bookkeeping every concern relies on live here."""

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
            for mark in self.ctx.statement_marks.get(id(node), ()):  # noted before the walk (paramgroups)
                self.ctx.mark(node, *mark)
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
            pending = self.pending_values.pop(id(original), ())
            if pending and not self.ctx.marks[-1]:  # no marker of its own: each unmapped value gets one
                for node, *mark in pending:
                    self.ctx.mark(node, *mark)
            within = self.ctx.statements.pop()
            comments = self.ctx.marks.pop()
            if comments:
                result = self._attach(result, comments)
                self.edits += 1
            if id(original) in self.train_before or id(original) in self.hoist_before \
                    or id(original) in self.ctx.before_statement:
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
        if partials.is_partial(node):  # placement keywords partial() binds are dropped: not converted or marked
            self.unwalked.update(id(a) for a in partials.placement_args(node, self.ctx.aliases))
            head = partials.bound_api(node, self.ctx.aliases)
            if head is not None:
                self.partial_heads.add(id(head))
        if provided(node, self.ctx.aliases):  # a feature check that becomes True: its torch module is no use
            self.skip.add(id(node.args[0].value))
        # x.detach().cpu().numpy(): the inner calls are folded into asnumpy() by the outer one
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "numpy" and not node.args:
            inner = node.func.value
            while isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) \
                    and inner.func.attr.value in ("cpu", "detach") and not inner.args:
                self.folded.add(id(inner))
                inner = inner.func.value
        if self.ctx.transforms_imported:
            self._network_part(node)

    def _network_part(self, node: cst.Call) -> None:
        """A torchvision transform inside a layer container's arguments or a Cell's class is part of a
        network: marked, as the analyzer reports it (scan/model_transforms.py)."""
        qualified = resolve(node.func, self.ctx.aliases)
        if qualified in LAYER_CONTAINERS:
            self.layer_calls.add(id(node))
            self.in_layers += 1
        elif is_transform(qualified) and (self.in_layers or self.classes and self.classes[-1][1] == "cell"):
            self.model_transforms.add(id(node))

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if id(original) in self.layer_calls:
            self.in_layers -= 1
        if id(original) in self.model_transforms:
            self.ctx.mark(original, rules.TRANSFORM_IN_MODEL, resolve(original.func, self.ctx.aliases), ACTION)
            return updated
        return super().leave_Call(original, updated)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        self.grad_items.add(id(node.item))

    def visit_Decorator(self, node: cst.Decorator) -> None:
        self.grad_items.add(id(node.decorator))

    def visit_Arg(self, node: cst.Arg) -> bool:
        if node.keyword is not None:
            self.skip.add(id(node.keyword))
            if node.keyword.value in HARMLESS:  # layout=torch.strided: goes with its argument
                self.placement_values.add(id(node.value))
        return id(node) not in self.unwalked

    def visit_Param(self, node: cst.Param) -> None:
        self.skip.add(id(node.name))


_MISSING = object()
_VISITS: dict[type, object] = {}  # node type -> Converter.visit_<Type> (None when absent)
_LEAVES: dict[type, object] = {}
