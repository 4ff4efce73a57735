"""Idioms of real training scripts that run in PyTorch and fail in MindSpore, rewritten where the
MindSpore spelling is certain (issue 16, pattern 8):

- a 0-d tensor in a numeric format (f"{loss:.4f}", "{:.4f}".format(loss), "%.4f" % loss): MindSpore's
  Tensor refuses format specs, so the value goes through float() (int() for integer specs), which
  gives the same text for Python numbers, numpy scalars and 0-d tensors alike;
- `x[range(n)]`: MindSpore indexes with lists, not ranges -> `x[list(range(n))]` (same for numpy);
- `.is_cuda`: MindSpore tensors carry no CUDA flag -> False (device moves are removed anyway);
- `p.grad` read (logging gradients, a hand-written update): MindSpore tensors keep no gradient -> marked
  (the gradients are what the converted step's grad_fn returns);
- `x.flip(1)` / `x.flip(1, 2)`: PyTorch's dims may be given one by one, MindSpore's as a tuple;
- top-k indices and multinomial samples: int32 in MindSpore, int64 in PyTorch (a cat with int64 ids
  then fails): made int64;
- `net.forward(x)` on a network the file builds -> construct;
- a typed tensor class as a value (`x.type(torch.FloatTensor)`) -> its dtype; in isinstance: marked;
- `.double()/.float()/.half()/.bfloat16()` on a network: Cells have no such methods -> a helper written
  into the file casts every floating-point parameter (and buffer) and returns the cell. MindSpore's
  optimizers take float16/float32 parameters only, so a float64 network that an optimizer of the file
  trains is marked instead."""
from __future__ import annotations

import ast
import re
import string

import libcst as cst

from ..apis import legacy, sample_checks
from ..core import astwalk, rules
from ..core.names import code, dotted_ast, resolve, resolve_text
from ..core.walk import WalkState
from ..support import helpers

FLOAT_TYPES, INT_TYPES = set("eEfFgG%"), set("d")
# values already plain Python numbers: formatted as they are
PLAIN_CALLS = ("float", "int", "len", "round", "str", "item", "tolist")
PLAIN_MODULES = ("np", "numpy", "math")
CELL_DTYPES = {"double": "float64", "float": "float32", "half": "float16", "bfloat16": "bfloat16"}
CHAINED = ("to", "cuda", "cpu", "train", "eval", "double", "float", "half", "bfloat16", "requires_grad_")
_PERCENT = re.compile(r"%(\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?([diouxXeEfFgGcrsa%])")


def _numeric(spec: str) -> str | None:
    """'float' or 'int' for a format spec whose type is numeric, else None."""
    if not spec or "{" in spec:
        return None
    kind = spec[-1]
    return "float" if kind in FLOAT_TYPES else "int" if kind in INT_TYPES else None


def _plain(value: cst.BaseExpression) -> bool:
    if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
        return True
    if isinstance(value, cst.Call):
        func = value.func
        if isinstance(func, cst.Name) and func.value in PLAIN_CALLS:
            return True
        if isinstance(func, cst.Attribute):
            if func.attr.value in PLAIN_CALLS:
                return True
            head = func
            while isinstance(head, cst.Attribute):
                head = head.value
            return isinstance(head, cst.Name) and head.value in PLAIN_MODULES
    return False


def _wrap(kind: str, value: cst.BaseExpression) -> cst.Call:
    return cst.Call(func=cst.Name(kind), args=[cst.Arg(value=value)])


def hot_names(tree: ast.AST) -> set[str]:
    """Identifiers of the lines these rewrites act on (the outline walks the statements holding them)."""
    names = {"is_cuda", "grad", "flip", "range", "format", "topk", "multinomial", *CELL_DTYPES, *(n.rsplit(".", 1)[1] for n in legacy.CONSTRUCTORS)}
    for node in astwalk.nodes(tree):
        values: list[ast.AST] = []
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            values.append(node.value)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) \
                and isinstance(node.left.value, str):
            values.append(node.right)
        for value in values:
            names.update(n.id for n in ast.walk(value) if isinstance(n, ast.Name))
            names.update(n.attr for n in ast.walk(value) if isinstance(n, ast.Attribute))
    return names


def _tensor_flag(node: cst.Attribute) -> bool:
    """x.is_cuda read from a tensor; self.is_cuda / cls.is_cuda is the user's own attribute (a data
    loader's or a module's flag), which PyTorch never defines."""
    return not (isinstance(node.value, cst.Name) and node.value.value in ("self", "cls"))


class ScriptIdioms(WalkState):
    """The rewrites above; each hands what it does not change to the next concern (super())."""

    def visit_AssignTarget(self, node: cst.AssignTarget):
        if isinstance(node.target, cst.Attribute) and node.target.attr.value in ("is_cuda", "grad"):
            self.skip.add(id(node.target))  # `obj.is_cuda = ...` sets a user's attribute (a tensor's is read-only)
            self.attribute_stores.add(id(node.target))
        return super().visit_AssignTarget(node)

    # -- format strings -----------------------------------------------------------------------------
    def leave_FormattedStringExpression(self, original, updated):
        spec = updated.format_spec
        if spec is None or updated.conversion is not None or _plain(updated.expression) \
                or not all(isinstance(part, cst.FormattedStringText) for part in spec):
            return updated
        kind = _numeric("".join(part.value for part in spec))
        if kind is None:
            return updated
        self.ctx.change(original, rules.API_DIFF, "torch.Tensor.__format__", "",
                        f"{code(updated.expression)} formatted through {kind}(): MindSpore's Tensor takes no format spec")
        return updated.with_changes(expression=_wrap(kind, updated.expression))

    def leave_BinaryOperation(self, original, updated):
        if not (isinstance(updated.operator, cst.Modulo) and isinstance(updated.left, cst.SimpleString)):
            return updated
        text = updated.left.evaluated_value
        if not isinstance(text, str):
            return updated
        found = [m for m in _PERCENT.finditer(text) if m.group(4) != "%"]
        if not found or any(m.group(1) or m.group(2) == "*" or m.group(3) == "*" for m in found):
            return updated
        kinds = ["float" if m.group(4) in FLOAT_TYPES else "int" if m.group(4) in "diu" else None for m in found]
        right = updated.right
        if isinstance(right, cst.Tuple) and len(right.elements) == len(kinds) and not any(
                isinstance(e, cst.StarredElement) for e in right.elements):
            elements = [e.with_changes(value=_wrap(k, e.value)) if k and not _plain(e.value) else e
                        for e, k in zip(right.elements, kinds)]
            if all(a is b for a, b in zip(elements, right.elements)):
                return updated
            new = updated.with_changes(right=right.with_changes(elements=elements))
        elif not isinstance(right, (cst.Tuple, cst.Dict)) and len(kinds) == 1 and kinds[0] and not _plain(right):
            new = updated.with_changes(right=_wrap(kinds[0], right))
        else:
            return updated
        self.ctx.change(original, rules.API_DIFF, "torch.Tensor.__format__", "",
                        "%-formatted numbers go through float()/int(): MindSpore's Tensor does not format itself")
        return new

    def _format_call(self, original: cst.Call, updated: cst.Call) -> cst.Call | None:
        """'...{:.4f}'.format(loss) -> '...'.format(float(loss))."""
        func = updated.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "format"
                and isinstance(func.value, (cst.SimpleString, cst.ConcatenatedString))):
            return None
        text = func.value.evaluated_value
        if not isinstance(text, str):  # bytes, or an f-string in the concatenation
            return None
        try:
            fields = [f for f in string.Formatter().parse(text) if f[1] is not None]
        except ValueError:
            return None
        positional = [i for i, a in enumerate(updated.args) if a.keyword is None]
        if any(a.star for a in updated.args):
            return None
        wanted: dict[int, str] = {}
        auto = 0
        for _, name, spec, conversion in fields:
            key = name
            if key == "":
                key, auto = str(auto), auto + 1
            kind = _numeric(spec or "")
            if kind is None or conversion or not (key.isdigit() or key.isidentifier()):
                continue  # !r / !s, attribute or item access in the field: left as written
            if key.isdigit():
                index = positional[int(key)] if int(key) < len(positional) else None
            else:
                index = next((i for i, a in enumerate(updated.args) if a.keyword is not None and a.keyword.value == key), None)
            if index is not None and not _plain(updated.args[index].value):
                wanted[index] = kind
        if not wanted:
            return None
        args = [a.with_changes(value=_wrap(wanted[i], a.value)) if i in wanted else a for i, a in enumerate(updated.args)]
        self.ctx.change(original, rules.API_DIFF, "torch.Tensor.__format__", "",
                        "numbers formatted with a spec go through float()/int(): MindSpore's Tensor takes no format spec")
        return updated.with_changes(args=args)

    # -- indexing, attributes, methods -------------------------------------------------------------
    def leave_SubscriptElement(self, original, updated):
        index = updated.slice
        if isinstance(index, cst.Index) and isinstance(index.value, cst.Call) and isinstance(index.value.func, cst.Name) \
                and index.value.func.value == "range":
            self.ctx.change(original, rules.API_DIFF, "torch.Tensor.__getitem__", "mindspore.Tensor.__getitem__",
                            "a range as an index -> list(range(...)): MindSpore indexes with lists")
            return updated.with_changes(slice=index.with_changes(value=_wrap("list", index.value)))
        return updated

    def leave_Attribute(self, original, updated):
        qualified = resolve(original, self.ctx.aliases) if id(original) not in self.skip else None
        if qualified in legacy.CONSTRUCTORS:  # a typed tensor class as a value: x.type(torch.FloatTensor)
            dtype = f"mindspore.{legacy.CONSTRUCTORS[qualified]}"
            self.ctx.change(original, rules.API_RENAME, qualified, dtype,
                            f"{qualified} as a value -> {dtype} (Tensor.type(dtype) casts as PyTorch's does)")
            return self.ctx.ms_expr(dtype)
        if original.attr.value == "is_cuda" and id(original) not in self.skip and _tensor_flag(original):
            self.ctx.change(original, rules.DEVICE_CUDA, "torch.Tensor.is_cuda", "",
                            f"{code(original)} -> False: MindSpore tensors have no CUDA flag (the device is set "
                            "once with mindspore.set_device)")
            return cst.Name("False")
        if original.attr.value == "grad" and id(original) not in self.attribute_stores and _tensor_flag(original) \
                and resolve(original, self.ctx.aliases) is None:  # torch.func.grad / torch.autograd.grad are functions
            self.ctx.mark(original, rules.TRAIN_LOOP, "torch.Tensor.grad",
                          f"{code(original)}: MindSpore tensors keep no gradient; read it from the grads that "
                          "mindspore.value_and_grad returns (one per parameter, in the order of optimizer.parameters)")
        return super().leave_Attribute(original, updated)

    def leave_Call(self, original, updated):
        if isinstance(original.func, cst.Name) and original.func.value == "isinstance" and len(original.args) == 2:
            kind = original.args[1].value
            kinds = [e.value for e in kind.elements] if isinstance(kind, cst.Tuple) else [kind]
            typed = [k for k in kinds if resolve(k, self.ctx.aliases) in legacy.CONSTRUCTORS]
            if typed:
                for k in kinds:
                    self.ctx.keep(k)  # the classes stay as written: their torch import too
                self.ctx.mark(typed[0], rules.API_DIFF, resolve(typed[0], self.ctx.aliases),
                              "a typed tensor class in isinstance: MindSpore has one Tensor class; write "
                              "isinstance(x, mindspore.Tensor) and x.dtype == mindspore.<dtype>")
                return updated.with_changes(args=[updated.args[0], original.args[1]])
        if _is_topk(original, self.ctx.aliases):
            return self._topk(original, updated)
        if _is_method_or_function(original, "multinomial", self.ctx.aliases):
            return self._int64_result(original, updated, "torch.multinomial")
        new = self._format_call(original, updated)
        if new is not None:
            return super().leave_Call(original, new)
        func = updated.func
        if isinstance(func, cst.Attribute) and isinstance(original.func, cst.Attribute):
            method = func.attr.value
            if method == "flip":
                new = self._flip(original, updated)
            elif method in CELL_DTYPES and not updated.args:
                new = self._cell_dtype(original, updated)
            if new is not None:
                return new
        return super().leave_Call(original, updated)

    def _topk(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """x.topk(k) / torch.topk(x, k) converted as usual, then its indices made int64 as in PyTorch."""
        marks = len(self.ctx.unconverted)
        new = super().leave_Call(original, updated)
        if len(self.ctx.unconverted) != marks or not isinstance(new, cst.Call):
            return new
        helper = helpers.use(self.ctx, "int64_indices")
        self.ctx.change(original, rules.API_DIFF, "torch.topk", helper,
                        f"top-k indices made int64 ({helper}, {helpers.where(self.ctx, 'a function')}): "
                        "MindSpore's are int32")
        return cst.Call(func=cst.Name(helper), args=[cst.Arg(value=new)])

    def _int64_result(self, original: cst.Call, updated: cst.Call, api: str) -> cst.BaseExpression:
        """A call converted as usual, then its int32 result made int64 as PyTorch's is (multinomial's
        samples: a cat with int64 token ids fails otherwise)."""
        marks = len(self.ctx.unconverted)
        new = super().leave_Call(original, updated)
        if len(self.ctx.unconverted) != marks or not isinstance(new, cst.Call):
            return new
        self.ctx.change(original, rules.API_DIFF, api, "mindspore.Tensor.astype",
                        f"{api.rsplit('.', 1)[1]}'s result made int64: MindSpore's is int32")
        return cst.Call(func=cst.Attribute(value=new, attr=cst.Name("astype")),
                        args=[cst.Arg(value=self.ctx.ms_expr("mindspore.int64"))])

    def _flip(self, original: cst.Call, updated: cst.Call) -> cst.Call | None:
        """x.flip(1) / x.flip(1, 2) -> x.flip((1,)) / x.flip((1, 2))."""
        args = updated.args
        if not args or any(a.keyword is not None or a.star for a in args) or isinstance(args[0].value, (cst.List, cst.Tuple)):
            return None
        if resolve_text(code(original.func.value).split(".")[0], self.ctx.aliases):
            return None  # torch.flip(x, dims): the mapping tables' business
        if not all(isinstance(a.value, (cst.Integer, cst.UnaryOperation)) for a in args):
            return None
        dims = ", ".join(code(a.value) for a in args) + ("," if len(args) == 1 else "")
        self.ctx.change(original, rules.API_ARGS, "torch.Tensor.flip", "mindspore.Tensor.flip",
                        f"flip({dims.rstrip(',')}) -> flip(({dims})): MindSpore takes the dims as one tuple")
        return updated.with_changes(args=[cst.Arg(value=cst.parse_expression(f"({dims})"))])

    def _cell_dtype(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        receiver = original.func.value
        name = _cell_expression(self, receiver)
        if name is None:
            return None
        method = original.func.attr.value
        dtype = CELL_DTYPES[method]
        if dtype == "float64" and (name in trained_names(self) or trained_names(self) & _doubled(self)):
            self.ctx.mark(original, rules.API_DIFF, f"torch.nn.Module.{method}",
                          "a float64 network: MindSpore's optimizers train float16/float32 parameters only; keep it "
                          "float32 or cast inputs and outputs around it")
            return updated
        layer = resolve(receiver.func, self.ctx.aliases) if isinstance(receiver, cst.Call) else self.ctx.bound.get(name)
        sample_checks.layer_cast(self.ctx, original, layer, f"mindspore.{dtype}")
        helper = helpers.use(self.ctx, "cast_cell")
        self.ctx.change(original, rules.CELL_API, f"torch.nn.Module.{method}", helper,
                        f".{method}() on a network -> {helper}(net, mindspore.{dtype}), "
                        f"{helpers.where(self.ctx, 'a function')} "
                        "(casts its floating-point parameters and buffers)")
        return cst.Call(func=cst.Name(helper), args=[
            cst.Arg(value=updated.func.value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            cst.Arg(value=self.ctx.ms_expr(f"mindspore.{dtype}"))])


def _is_topk(call: cst.Call, aliases: dict[str, str]) -> bool:
    return _is_method_or_function(call, "topk", aliases)


def _is_method_or_function(call: cst.Call, name: str, aliases: dict[str, str]) -> bool:
    """torch.<name>(...) or x.<name>(...)."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == name):
        return False
    head = code(func.value).split(".")[0]
    qualified = resolve_text(code(func), aliases) if head in aliases else None
    return qualified in (None, f"torch.{name}", f"torch.Tensor.{name}")


def _cell_expression(walk, node: cst.BaseExpression) -> str | None:
    """The variable (or '' for a constructor call) when node is a network: a name the file binds to a
    network's constructor, or such a constructor call (a cell class of the file or a torch.nn layer)."""
    classes, names = _cells(walk)
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in CHAINED:
        node = node.func.value
    if isinstance(node, cst.Name):
        return node.value if node.value in names else None
    if isinstance(node, cst.Call):
        text = code(node.func)
        qualified = resolve_text(text, walk.ctx.aliases) if "(" not in text else None
        if text in classes or (qualified and qualified.startswith("torch.nn.") and qualified.rsplit(".", 1)[1][:1].isupper()):
            return ""
    return None


def network_names(walk) -> set[str]:
    """Names the file binds to a network (layercalls.forward_call turns their forward() into construct())."""
    return _cells(walk)[1]


def _cells(walk) -> tuple[set[str], set[str]]:
    """(cell classes of the file, names bound to networks), read once from the stdlib tree."""
    cached = walk.__dict__.get("_idiom_cells")
    if cached is None:
        cached = walk.__dict__["_idiom_cells"] = networks(walk.ctx.tree, walk.ctx.aliases)
    return cached


def networks(tree: ast.Module | None, aliases: dict[str, str]) -> tuple[set[str], set[str]]:
    """(the file's torch.nn.Module subclasses, names it binds to a network: a torch.nn layer or an
    instance of such a class, possibly moved or cast: Net().to(device))."""
    classes: set[str] = set()
    names: set[str] = set()
    if tree is not None:
        defs = [n for n in astwalk.nodes(tree) if isinstance(n, ast.ClassDef)]
        changed = True
        while changed:
            changed = False
            for node in defs:
                if node.name in classes:
                    continue
                for base in node.bases:
                    text = dotted_ast(base) or ""
                    qualified = resolve_text(text, aliases) if text else None
                    if text in classes or (qualified or "").startswith("torch.nn."):
                        classes.add(node.name)
                        changed = True
                        break
        for node in astwalk.nodes(tree):
            if isinstance(node, ast.Assign):
                value = node.value
                while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in CHAINED:
                    value = value.func.value
                if not isinstance(value, ast.Call):
                    continue
                text = dotted_ast(value.func) or ""
                qualified = resolve_text(text, aliases) if text else None
                if text in classes or (qualified and qualified.startswith("torch.nn.")
                                       and qualified.rsplit(".", 1)[1][:1].isupper()):
                    names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return classes, names


def trained_names(walk) -> set[str]:
    """Names whose .parameters() some torch.optim optimizer of the file receives."""
    cached = walk.__dict__.get("_idiom_trained")
    if cached is not None:
        return cached
    trained: set[str] = set()
    tree = walk.ctx.tree
    for node in astwalk.nodes(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and (resolve_text(dotted_ast(node.func) or "", walk.ctx.aliases) or "").startswith(
                "torch.optim."):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) \
                        and inner.func.attr in ("parameters", "named_parameters") and isinstance(inner.func.value, ast.Name):
                    trained.add(inner.func.value.id)
    walk.__dict__["_idiom_trained"] = trained
    return trained


def _doubled(walk) -> set[str]:
    """Names bound to a value whose method chain calls .double() (`m = Net().double()`, `m = m.double()`)
    or whose .double() is called on a line of its own."""
    tree = walk.ctx.tree
    found: set[str] = set()
    for node in astwalk.nodes(tree) if tree is not None else ():
        value, targets = None, []
        if isinstance(node, ast.Assign):
            value, targets = node.value, [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.Expr):
            value = node.value
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
            if value.func.attr == "double":
                found.update(targets)
                if isinstance(value.func.value, ast.Name):
                    found.add(value.func.value.id)
            value = value.func.value
    return found
