"""Example blocks written by others (doctest `>>>` lines) made runnable and comparable.

prepare() turns a block into a module whose top-level statements are numbered chunks, each
followed by `_record(i, name=value, ...)` for what it assigned (an expression statement's value
becomes `_outI`), and whose random constructors (torch.randn, torch.rand...) are replaced by `_rnd`
helpers that give the same deterministic values in both frameworks. run_chunks() executes such a
module chunk by chunk in one framework, continuing after a chunk fails, and returns each chunk's
recorded values or error."""
from __future__ import annotations

import ast
import re

HEADER = "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n"
# torch.<name>(...) -> _rnd.<name>(...): same arguments, deterministic values
RANDOM_CONSTRUCTORS = ("randn", "rand", "randint", "randn_like", "rand_like", "randint_like", "randperm", "empty",
                       "empty_like", "normal")
# x.uniform_(low, high) / x.normal_(mean, std) -> torch.tensor(_rnd.fill_uniform(x, low, high)): the stand-in's
# name is no Tensor method, so the converter leaves the call alone as it does the constructors' stand-ins
RANDOM_FILLS = {"uniform_": "fill_uniform", "normal_": "fill_normal", "random_": "fill_random"}
_RANDOM = re.compile(r"\btorch\.(" + "|".join(sorted(RANDOM_CONSTRUCTORS, key=len, reverse=True)) + r")\(")


def extract(doc: str) -> str | None:
    """The `>>>` / `...` lines of a docstring, prompts stripped (None when there are none)."""
    lines, seen = [], False
    for raw in doc.splitlines():
        stripped = raw.strip()
        if stripped.startswith(">>>"):
            seen = True
            lines.append(stripped[4:] if stripped.startswith(">>> ") else stripped[3:])
        elif stripped.startswith("...") and seen and lines:
            lines.append(stripped[4:] if stripped.startswith("... ") else stripped[3:])
    if not seen:
        return None
    text = "\n".join(lines)
    text = re.sub(r"\s+# doctest:.*$", "", text, flags=re.MULTILINE)
    return text + "\n"


class _Randoms(ast.NodeTransformer):
    """torch.randn(2, 3, requires_grad=True) -> torch.tensor(_rnd.randn(2, 3), requires_grad=True):
    fixed values, while the code still reads as a tensor to the analyzer and the converter."""

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in RANDOM_FILLS and not node.keywords:
            # a.uniform_(1, 2): in-place random fill -> fixed values of a's shape and dtype
            inner = ast.Call(ast.Attribute(ast.Name("_rnd", ast.Load()), RANDOM_FILLS[func.attr], ast.Load()),
                             [func.value, *node.args], [])
            return ast.Call(ast.Attribute(ast.Name("torch", ast.Load()), "tensor", ast.Load()), [inner], [])
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "torch" \
                and func.attr in RANDOM_CONSTRUCTORS:
            keep = [k for k in node.keywords if k.arg in ("dtype", "size", "low", "high", "mean", "std")]
            grad = [k for k in node.keywords if k.arg == "requires_grad"]
            inner = ast.Call(ast.Attribute(ast.Name("_rnd", ast.Load()), func.attr, ast.Load()), node.args, keep)
            return ast.Call(ast.Attribute(ast.Name("torch", ast.Load()), "tensor", ast.Load()), [inner], grad)
        return node


def prepare(block: str, keep_randoms: bool = False) -> str | None:
    """The instrumented module (see the module's docstring), or None when the block does not parse.
    keep_randoms: leave the random constructors as written (the call being measured is one of them)."""
    try:
        tree = ast.parse(block)
        if not keep_randoms:
            tree = _Randoms().visit(tree)
    except (SyntaxError, ValueError, RecursionError):
        return None
    out = [HEADER.rstrip("\n")]
    for i, node in enumerate(tree.body):
        names: list[str] = []
        if isinstance(node, ast.Expr):
            value = node.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "print" \
                    and len(value.args) == 1 and not value.keywords:
                value = value.args[0]
            node = ast.Assign([ast.Name(f"_out{i}", ast.Store())], value, lineno=0)
            names = [f"_out{i}"]
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name) and leaf.id not in names:
                        names.append(leaf.id)
        try:
            out.append(ast.unparse(ast.fix_missing_locations(node)))
        except Exception:
            return None
        out.append(f"_record({i}" + "".join(f", {n}={n}" for n in names) + ")")
    return "\n".join(out) + "\n"


def synthetic_calls(source: str) -> set[tuple[int, int, int, int]]:
    """Spans (line, column, end line, end column) of the torch.tensor(_rnd...) wrappers prepare() wrote:
    not the author's calls (a method called on one, `.softmax(dim=1)`, starts at the same place but is)."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Call) and \
                isinstance(node.args[0].func, ast.Attribute) and isinstance(node.args[0].func.value, ast.Name) \
                and node.args[0].func.value.id == "_rnd":
            out.add((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset))
    return out


def chunk_of_line(source: str) -> dict[int, int]:
    """Line of the prepared module -> the chunk it belongs to."""
    tree = ast.parse(source)
    out, pending = {}, []
    for node in tree.body:
        # a decorated definition starts at its first decorator, not at `def`
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        lines = range(first, node.end_lineno + 1)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and \
                isinstance(node.value.func, ast.Name) and node.value.func.id == "_record":
            index = node.value.args[0].value
            for line in pending + list(lines):
                out[line] = index
            pending = []
        else:
            pending += list(lines)
    return out


def chunks(source: str) -> list[tuple[int, str]]:
    """A prepared (and maybe converted) module cut at its `_record(i, ...)` lines: (i, code)."""
    tree = ast.parse(source)
    lines = source.splitlines()
    out, start = [], 0
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and \
                isinstance(node.value.func, ast.Name) and node.value.func.id == "_record":
            index = node.value.args[0].value if node.value.args else -1
            out.append((index, "\n".join(lines[start:node.end_lineno])))
            start = node.end_lineno
    if start < len(lines):
        out.append((-1, "\n".join(lines[start:])))
    return out


class Deterministic:
    """Stand-ins for PyTorch's random constructors with fixed values, built in either framework."""

    def __init__(self, framework: str):
        import numpy as np

        self.np = np
        self.framework = framework
        self.count = 0

    def _tensor(self, values, dtype_name: str):
        # numpy values: the torch.tensor(...) around the helper (converted: mindspore.tensor) makes the tensor
        name = {"bool": "bool_"}.get(dtype_name, dtype_name)
        return values.astype(getattr(self.np, name, self.np.float32))

    @staticmethod
    def _dtype(dtype, default: str) -> str:
        if dtype is None:
            return default
        name = str(dtype).lower().replace("torch.", "").replace("mindspore.", "")
        aliases = {"float": "float32", "double": "float64", "long": "int64", "int": "int32", "half": "float16"}
        return aliases.get(name, name)

    def _shape(self, size) -> tuple[int, ...]:
        if len(size) == 1 and isinstance(size[0], (tuple, list)) or (len(size) == 1 and hasattr(size[0], "__len__")):
            return tuple(int(s) for s in size[0])
        return tuple(int(s) for s in size)

    def _values(self, shape, low=-1.0, high=1.0):
        np = self.np
        self.count += 1
        n = int(np.prod(shape)) if shape else 1
        # a hash-like sequence, not sin(linear): matrices of it have full rank (linalg examples need that)
        unit = np.modf(np.abs(np.sin(np.arange(n, dtype=np.float64) * 12.9898 + self.count * 78.233)) * 43758.5453)[0]
        return (low + (high - low) * unit).reshape(shape)

    def randn(self, *size, dtype=None, **_):
        return self._tensor(self._values(self._shape(size), -1.5, 1.5), self._dtype(dtype, "float32"))

    def rand(self, *size, dtype=None, **_):
        return self._tensor(self._values(self._shape(size), 0.02, 0.98), self._dtype(dtype, "float32"))

    empty = rand

    def randint(self, *args, size=None, dtype=None, **_):
        if size is None:
            size = args[-1]
            args = args[:-1]
        low, high = (0, args[0]) if len(args) == 1 else (args[0], args[1]) if len(args) >= 2 else (0, 2)
        values = self.np.floor(self._values(tuple(size), 0, 1) * (int(high) - int(low)) * 0.999) + int(low)
        return self._tensor(values.astype("int64"), self._dtype(dtype, "int64"))

    def randperm(self, n, dtype=None, **_):
        order = self.np.argsort(self._values((int(n),)), kind="stable")
        return self._tensor(order.astype("int64"), self._dtype(dtype, "int64"))

    def _like(self, x, maker, dtype=None, **kw):
        name = str(getattr(x, "dtype", "float32")).lower().split(".")[-1]
        return maker(tuple(x.shape), dtype=dtype if dtype is not None else name, **kw)

    def randn_like(self, x, dtype=None, **_):
        return self._like(x, self.randn, dtype)

    def rand_like(self, x, dtype=None, **_):
        return self._like(x, self.rand, dtype)

    empty_like = rand_like

    def randint_like(self, x, *args, dtype=None, **_):
        return self.randint(*args, size=tuple(x.shape), dtype=dtype or "int64")

    def fill_uniform(self, x, low=0.0, high=1.0):
        return self._tensor(self._values(tuple(x.shape), float(low), float(high)), self._dtype(x.dtype, "float32"))

    def fill_normal(self, x, mean=0.0, std=1.0):
        values = self._values(tuple(x.shape), -1.5, 1.5) * float(std) + float(mean)
        return self._tensor(values, self._dtype(x.dtype, "float32"))

    def fill_random(self, x, low=2, high=None):
        low, high = (0, low) if high is None else (low, high)
        values = self.np.floor(self._values(tuple(x.shape), 0, 1) * (int(high) - int(low)) * 0.999) + int(low)
        return self._tensor(values, self._dtype(x.dtype, "float32"))

    def normal(self, mean=0.0, std=1.0, size=None, **_):
        shape = tuple(size) if size is not None else tuple(getattr(mean, "shape", ()) or getattr(std, "shape", ()))
        return self.randn(shape)


def run_chunks(framework: str, source: str) -> dict:
    """{chunk: ("ok", {name: plain value}) | ("error", text) | ("unrecorded", text)} for one prepared module."""
    from .compare import plain, short_error

    results: dict = {}
    if framework == "torch":  # an earlier block in this worker may have changed it (set_default_dtype examples)
        import torch

        torch.set_default_dtype(torch.float32)
    ns = _example_module(framework, source).__dict__
    ns["_rnd"] = Deterministic(framework)

    def record(i, **values):
        try:
            results[i] = ("ok", {k: plain(v) for k, v in values.items()})
        except Exception as exc:  # the statement ran, but its value cannot be read back (a nested tensor)
            results[i] = ("unrecorded", short_error(exc))

    ns["_record"] = record
    try:
        pieces = chunks(source)
    except SyntaxError as exc:
        return {-1: ("error", short_error(exc))}
    line = 0
    for index, code in pieces:
        try:  # at its own lines of the module's file, so that its functions' source can be read back
            exec(compile("\n" * line + code, ns["__file__"], "exec"), ns)
        except BaseException as exc:  # the example's own failure
            results[index] = ("error", short_error(exc))
        line += code.count("\n") + 1
    return results


def _example_module(framework: str, source: str):
    """A module for the block to run in, registered with its source as a real file's would be:
    MindSpore's graph mode (mindspore.vmap, ops.jacrev, jit) imports a function's module and reads
    its source, which code exec'd from a string does not have."""
    import linecache
    import sys
    import types

    module = types.ModuleType("__example__")
    module.__file__ = f"<example {framework}>"
    linecache.cache[module.__file__] = (len(source), None, source.splitlines(keepends=True), module.__file__)
    sys.modules[module.__name__] = module
    return module
