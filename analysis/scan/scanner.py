"""One pass over a libcst module: resolve every PyTorch use through imports and aliases.

The scanner keeps its own import/alias table (a stack of scopes, so imports
inside functions work) and a small flow-insensitive table of what each name
holds (tensor, module, optimizer...). It records ``Use`` objects; the rules in
``analysis.rules`` turn them into findings. It never evaluates the code.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from analysis.knowledge.canonical import canonical
from analysis.scan.index import ProjectIndex, is_torch_name, resolve_relative, torch_base_kind
from analysis.scan.model_transforms import LAYER_CONTAINERS, is_transform
from analysis.scan.receivers import ForeignTable, foreign_table, is_foreign
from analysis.scan.shadows import local_names
from analysis.scan.thirdparty import torch_bound
from analysis.scan.types import (
    DATASET,
    DEVICE,
    GENERATOR,
    LOADER,
    MODULE,
    NONLIT,
    OPTIMIZER,
    RECEIVER_API,
    SCHEDULER,
    TENSOR,
    UNKNOWN,
    Key,
    Use,
)
from analysis.scan.walk import child_fields

# Methods whose result is not a tensor even when called on one.
NON_TENSOR_RESULT = frozenset(
    "item tolist size dim numel numpy backward ndimension nelement is_contiguous is_floating_point "
    "is_complex element_size data_ptr get_device type __len__ stride storage_offset".split()
)
# Module methods that return the module itself.
MODULE_RETURNING = frozenset("to cuda cpu train eval half float double bfloat16 requires_grad_ apply type".split())
# Method names that plain Python objects also have: on a value of unknown type
# they say nothing about PyTorch, so they are not reported.
PY_COMMON = frozenset(
    "append extend insert remove pop clear index count sort reverse copy keys values items get update "
    "setdefault popitem add discard union intersection difference split join strip lstrip rstrip replace "
    "format startswith endswith lower upper find encode decode read write close open format_map "
    "all any sum max min mean round abs where repeat take fill flip trace real imag shape ndim size "
    "float int bool long short resize type astype T".split()
)
# Tensor methods not (or not only) in the mapping tables that the rules know.
EXTRA_TENSOR_METHODS = frozenset(
    "cuda cpu numpy item to detach backward requires_grad_ random_ uniform_ normal_ bernoulli_ "
    "exponential_ geometric_ cauchy_ log_normal_ zero_ fill_ copy_ add_ sub_ mul_ div_ clamp_ "
    "data_ptr pin_memory share_memory_ half float double long int bool contiguous permute view "
    "transpose size numel tolist".split()
)
NUMPY_ROOTS = ("numpy", "scipy")
THREAD_ROOTS = ("threading", "multiprocessing", "concurrent")


def literal(node: cst.BaseExpression):
    """Python value of a literal argument, or NONLIT."""
    t = type(node)
    if t is cst.Integer or t is cst.Float:
        try:
            return node.evaluated_value
        except Exception:  # noqa: BLE001 - odd literal: treat as an expression
            return NONLIT
    if t is cst.SimpleString:
        try:
            return node.evaluated_value
        except Exception:  # noqa: BLE001
            return NONLIT
    if t is cst.Name and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if t is cst.UnaryOperation and type(node.operator) is cst.Minus:
        inner = literal(node.expression)
        return -inner if isinstance(inner, (int, float)) and not isinstance(inner, bool) else NONLIT
    if t is cst.Tuple or t is cst.List:
        values = [literal(e.value) for e in node.elements]
        return NONLIT if any(v is NONLIT for v in values) else tuple(values)
    return NONLIT


def callee_key(func: cst.BaseExpression) -> str:
    t = type(func)
    if t is cst.Attribute:
        return func.attr.value
    if t is cst.Name:
        return func.value
    return ""


@dataclass
class _Class:
    name: str
    qualified: str
    kind: str | None  # "module" | "dataset" | "function" | None
    attrs: dict = field(default_factory=dict)  # self.<attr> -> (kind, confidence)


@dataclass
class _Func:
    name: str
    in_forward: bool
    env: dict = field(default_factory=dict)
    imports: dict = field(default_factory=dict)
    local: set = field(default_factory=set)  # names it binds itself: they hide an outer import (shadows.py)


class Scanner:
    def __init__(self, *, module_name: str, is_package: bool, index: ProjectIndex | None, tensor_methods: frozenset):
        self.module_name = module_name
        self.is_package = is_package
        self.index = index
        self.tensor_methods = tensor_methods | EXTRA_TENSOR_METHODS
        self.imports: dict[str, str] = {}
        self.env: dict[str, tuple[str, float]] = {}
        self.local_classes: dict[str, list[str]] = {}
        self.star_modules: list[str] = []
        self.classes: list[_Class] = []
        self.funcs: list[_Func] = []
        self.counts: dict[Key, int] = {}
        self.uses: list[Use] = []
        self.facts: set[str] = set()  # file-level facts rules look at (e.g. "train_mode_set")
        self.imports_torch = False
        self.tuple_bound: set[str] = set()  # names bound by unpacking a call's result
        self.in_layers = 0  # open nn.Sequential/ModuleList/ModuleDict calls whose arguments are being read
        self._context = ""
        self.foreign: ForeignTable | None = None  # receivers that are certainly not torch (receivers.py)
        self._handlers = {
            cst.Import: self._import,
            cst.ImportFrom: self._import_from,
            cst.ClassDef: self._class_def,
            cst.FunctionDef: self._function_def,
            cst.Param: self._param,
            cst.Attribute: self._attribute,
            cst.Name: self._name,
            cst.Call: self._call,
            cst.Arg: self._arg,
            cst.Assign: self._assign,
            cst.AnnAssign: self._ann_assign,
            cst.For: self._for,
            cst.With: self._with,
            cst.SimpleString: self._string,
            cst.Global: _skip,
            cst.Nonlocal: _skip,
            cst.ExceptHandler: self._except_handler,
            cst.Decorator: self._decorator,
        }

    # ---- traversal -----------------------------------------------------------
    def run(self, module: cst.Module) -> None:
        self.foreign = foreign_table(module)
        for stmt in module.body:  # repo-local classes defined anywhere at top level
            if type(stmt) is cst.ClassDef:
                self.local_classes[stmt.name.value] = []
        for stmt in module.body:
            self.visit(stmt)

    def visit(self, node: cst.CSTNode) -> None:
        handler = self._handlers.get(type(node))
        if handler is not None:
            handler(node)
        else:
            self.generic(node)

    def generic(self, node: cst.CSTNode) -> None:
        for name in child_fields(type(node)):
            value = getattr(node, name, None)
            if value is None:
                continue
            if type(value) is tuple or type(value) is list:
                for item in value:
                    if isinstance(item, cst.CSTNode):
                        self.visit(item)
            elif isinstance(value, cst.CSTNode):
                self.visit(value)

    def count(self, key: Key) -> tuple[Key, int]:
        n = self.counts.get(key, 0)
        self.counts[key] = n + 1
        return (key, n)

    # ---- scopes --------------------------------------------------------------
    def lookup_import(self, name: str) -> str | None:
        for func in reversed(self.funcs):
            if name in func.imports:
                return func.imports[name]
            if name in func.local:
                return None  # def collate_fn(data): data is the argument, not torch.utils.data
        return self.imports.get(name)

    def lookup_value(self, name: str) -> tuple[str, float] | None:
        for func in reversed(self.funcs):
            if name in func.env:
                return func.env[name]
        return self.env.get(name)

    def bind(self, name: str, value: tuple[str, float] | None) -> None:
        env = self.funcs[-1].env if self.funcs else self.env
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value

    def bind_import(self, name: str, qualified: str) -> None:
        table = self.funcs[-1].imports if self.funcs else self.imports
        table[name] = qualified
        if is_torch_name(qualified):
            self.imports_torch = True

    @property
    def in_forward(self) -> bool:
        return any(f.in_forward for f in self.funcs)

    # ---- name resolution -----------------------------------------------------
    def qualify(self, node: cst.BaseExpression) -> str | None:
        """Fully qualified name of a Name/Attribute chain rooted at an import."""
        t = type(node)
        if t is cst.Name:
            q = self.lookup_import(node.value)
            if q is None and self.star_modules and not self.funcs_bind(node.value):
                for mod in self.star_modules:
                    if self._star_has(mod, node.value):
                        return f"{mod}.{node.value}"
            return canonical(q) if q else q
        if t is cst.Attribute:
            head = self.qualify(node.value)
            return canonical(f"{head}.{node.attr.value}") if head else None
        return None

    def funcs_bind(self, name: str) -> bool:
        return self.lookup_value(name) is not None or name in self.local_classes

    def _star_has(self, module: str, name: str) -> bool:
        from analysis.scan.names import star_exports

        return name in star_exports(module)

    def repo_class_kind(self, qualified: str, _depth: int = 0) -> str | None:
        prefix = f"{self.module_name}." if self.module_name else ""
        local = qualified[len(prefix):] if qualified.startswith(prefix) else None
        if local is not None and local in self.local_classes and _depth < 16:
            for base in self.local_classes[local]:
                kind = torch_base_kind(base) if is_torch_name(base) else self.repo_class_kind(base, _depth + 1)
                if kind:
                    return kind
        if self.index is not None:
            kind = self.index.base_kind(qualified)
            if kind:
                return kind
        return None

    def class_kind_of_call(self, func: cst.BaseExpression) -> str | None:
        """'module'/'dataset'/... when ``func`` names a repo class deriving from a torch class."""
        if type(func) is cst.Name and func.value in self.local_classes:
            qualified = f"{self.module_name}.{func.value}" if self.module_name else func.value
        else:
            qualified = self.qualify(func)
            if qualified is None:
                return None
        return self.repo_class_kind(qualified)

    # ---- value-kind inference (pure: never counts nodes) ---------------------
    def infer(self, node: cst.BaseExpression) -> tuple[str, float] | None:
        t = type(node)
        if t is cst.Name:
            return self.lookup_value(node.value)
        if t is cst.Attribute:
            if type(node.value) is cst.Name and node.value.value == "self" and self.classes:
                return self.classes[-1].attrs.get(node.attr.value)
            base = self.infer(node.value)
            if base and base[0] == TENSOR and node.attr.value in ("T", "mT", "H", "data", "grad", "real", "imag"):
                return base
            return None
        if t is cst.Call:
            return self.infer_call(node)
        if t is cst.BinaryOperation:
            for side in (node.left, node.right):
                kind = self.infer(side)
                if kind and kind[0] == TENSOR:
                    return (TENSOR, round(kind[1] * 0.95, 2))
            return None
        if t is cst.UnaryOperation:
            return self.infer(node.expression)
        if t is cst.Subscript:
            kind = self.infer(node.value)
            return kind if kind and kind[0] == TENSOR else None
        return None

    def infer_call(self, node: cst.Call) -> tuple[str, float] | None:
        func = node.func
        q = self.qualify(func)
        if q is not None and q.startswith("torchvision.datasets.") and q.rsplit(".", 1)[-1][:1].isupper():
            return (DATASET, 0.95)
        if q is not None and is_torch_name(q):
            return kind_of_torch_call(q)
        repo_kind = self.class_kind_of_call(func)
        if repo_kind == "module":
            return (MODULE, 0.95)
        if repo_kind is not None:
            return None
        callee = self.infer(func)
        if callee and callee[0] == MODULE:
            return (TENSOR, 0.85)  # calling a module runs its forward
        if type(func) is cst.Attribute:
            recv = self.infer(func.value)
            method = func.attr.value
            if recv:
                if recv[0] == TENSOR and method not in NON_TENSOR_RESULT:
                    return (TENSOR, round(recv[1] * 0.95, 2))
                if recv[0] == MODULE and method in MODULE_RETURNING:
                    return recv
        return None

    # ---- recording -----------------------------------------------------------
    def add(self, kind: str, name: str, anchor, node, **kw) -> Use:
        use = Use(kind=kind, name=name, anchor=anchor, node=node, in_forward=self.in_forward, **kw)
        self.uses.append(use)
        return use

    def event(self, name: str, anchor, node, **kw) -> Use:
        return self.add("event", name, anchor, node, **kw)

    def _count_chain(self, node: cst.BaseExpression) -> tuple[Key, int]:
        """Number every node of a resolved dotted chain; return the outermost one's anchor."""
        t = type(node)
        if t is cst.Attribute:
            anchor = self.count(("A", node.attr.value))
            self._count_chain(node.value)
            return anchor
        if t is cst.Name:
            return self.count(("N", node.value))
        self.visit(node)
        return (("", ""), 0)

    # ---- handlers: imports ---------------------------------------------------
    def _torch_bound(self, node, modules: list[str]) -> None:
        """Imports of packages built on torch (knowledge/data/torch_bound.json): one event per module."""
        anchor = self.count(("I", ""))
        for module in modules:
            row = torch_bound(module)
            if row is not None:
                self.event("import:torch_bound", anchor, node,
                           detail={"api": module, "what": row["what"], "todo": row["todo"]})

    def _import(self, node: cst.Import) -> None:
        self._torch_bound(node, [_dotted(alias.name) for alias in node.names])
        for alias in node.names:
            dotted = _dotted(alias.name)
            if alias.asname is not None and type(alias.asname.name) is cst.Name:
                self.bind_import(alias.asname.name.value, dotted)
            else:
                head = dotted.split(".", 1)[0]
                self.bind_import(head, head)
                if is_torch_name(dotted):
                    self.imports_torch = True

    def _import_from(self, node: cst.ImportFrom) -> None:
        level = len(node.relative)
        target = _dotted(node.module) if node.module is not None else None
        base = resolve_relative(self.module_name, self.is_package, level, target) if level else (target or "")
        self._torch_bound(node, [] if level else [base])
        if isinstance(node.names, cst.ImportStar):
            if is_torch_name(base):
                self.star_modules.append(base)
                self.imports_torch = True
            return
        for alias in node.names:
            name = _dotted(alias.name)
            local = alias.asname.name.value if alias.asname is not None and type(alias.asname.name) is cst.Name else name
            self.bind_import(local, f"{base}.{name}" if base else name)

    # ---- handlers: definitions -----------------------------------------------
    def _decorator(self, node: cst.Decorator) -> None:
        prev, self._context = self._context, "decorator"
        self.visit(node.decorator)
        self._context = prev

    def _class_def(self, node: cst.ClassDef) -> None:
        anchor = self.count(("D", node.name.value))
        for dec in node.decorators:
            self.visit(dec)
        bases = []
        prev, self._context = self._context, "base"
        for arg in node.bases:
            q = self.qualify(arg.value)
            if q is None and type(arg.value) is cst.Name and arg.value.value in self.local_classes:
                q = f"{self.module_name}.{arg.value.value}" if self.module_name else arg.value.value
            if q:
                bases.append(q)
            self.visit(arg)
        for arg in node.keywords:
            self.visit(arg)
        self._context = prev
        kind = None
        for base in bases:
            kind = torch_base_kind(base) if is_torch_name(base) else self.repo_class_kind(base)
            if kind:
                break
        qualified = f"{self.module_name}.{node.name.value}" if self.module_name else node.name.value
        if node.name.value in self.local_classes:
            self.local_classes[node.name.value] = bases
        if kind:
            self.event(f"class:{kind}", anchor, node, detail={"class": node.name.value, "bases": bases})
            if kind == "module":
                self.facts.add("network")
        self.classes.append(_Class(node.name.value, qualified, kind))
        self.visit(node.body)
        self.classes.pop()

    def _function_def(self, node: cst.FunctionDef) -> None:
        anchor = self.count(("D", node.name.value))
        for dec in node.decorators:
            self.visit(dec)
        cls = self.classes[-1] if self.classes and not self.funcs else None
        is_forward = cls is not None and cls.kind == "module" and node.name.value == "forward"
        if cls is not None and cls.kind == "function" and node.name.value in ("forward", "backward"):
            self.event("autograd_function_method", anchor, node, detail={"method": node.name.value})
        if is_forward:
            self.event("def:forward", anchor, node, detail={"class": cls.name})
        self.visit(node.params)
        if node.returns is not None:
            self.visit(node.returns)
        func = _Func(node.name.value, is_forward, local=local_names(node))
        # What the parameters hold: annotated tensors, forward inputs, self attributes.
        params = node.params
        for i, param in enumerate((*params.posonly_params, *params.params, *params.kwonly_params)):
            pname = param.name.value
            if param.annotation is not None:
                q = self.qualify(param.annotation.annotation)
                if q in ("torch.Tensor", "torch.FloatTensor", "torch.LongTensor"):
                    func.env[pname] = (TENSOR, 0.95)
                    continue
                if q is not None and is_torch_name(q) and torch_base_kind(q) == "module":
                    func.env[pname] = (MODULE, 0.9)
                    continue
            if is_forward and i > 0:
                func.env[pname] = (TENSOR, 0.8)
        self.funcs.append(func)
        self.visit(node.body)
        self.funcs.pop()

    def _param(self, node: cst.Param) -> None:
        if node.annotation is not None:
            self.visit(node.annotation)
        if node.default is not None:
            self.visit(node.default)

    def _except_handler(self, node: cst.ExceptHandler) -> None:
        if node.type is not None:
            self.visit(node.type)
        self.visit(node.body)

    # ---- handlers: expressions -----------------------------------------------
    def _name(self, node: cst.Name) -> None:
        anchor = self.count(("N", node.value))
        q = self.qualify(node)
        if q is not None and is_torch_name(q):
            self.add("api", q, anchor, node, context=self._context)

    def _attribute(self, node: cst.Attribute) -> None:
        q = self.qualify(node)
        if q is not None and is_torch_name(q):
            anchor = self._count_chain(node)
            self.add("api", q, anchor, node, context=self._context)
            return
        attr = node.attr.value
        anchor = self.count(("A", attr))
        self.visit(node.value)
        if attr in DATASET_ATTRS and (self.infer(node.value) or ("",))[0] == DATASET:
            self.event("dataset:attr", anchor, node, detail={"attr": attr, "api": f"torchvision.datasets.Dataset.{attr}"})
        if attr in ATTRIBUTE_EVENTS:
            recv = self.infer(node.value)
            self.event(f"attr:{attr}", anchor, node, receiver=recv[0] if recv else UNKNOWN,
                       confidence=recv[1] if recv else 0.5)

    def _arg(self, node: cst.Arg) -> None:
        self.visit(node.value)

    def _string(self, node: cst.SimpleString) -> None:
        value = node.value
        for marker in ENV_MARKERS:
            if marker in value:
                anchor = self.count(("S", marker))
                self.event(f"env:{marker}", anchor, node)

    def _call(self, node: cst.Call) -> None:
        anchor = self.count(("C", callee_key(node.func)))
        func = node.func
        args, kwargs = [], {}
        for arg in node.args:
            if arg.keyword is not None:
                kwargs[arg.keyword.value] = literal(arg.value)
            elif arg.star:
                args.append(NONLIT)
            else:
                args.append(literal(arg.value))
        q = self.qualify(func)
        if q == "functools.partial" and "device" in kwargs and node.args and node.args[0].keyword is None:
            bound = self.qualify(node.args[0].value)
            if bound is not None and is_torch_name(bound):
                self.event("partial:device", anchor, node, detail={"api": bound})
        if q in SAFE_GLOBALS_LISTS:
            # the classes listed are allowed to the unpickler, not used: the call itself is the only use
            self._count_chain(func)
            self.add("api", q, anchor, node, call=True, args=args, kwargs=kwargs, context=self._context)
            return
        if q is not None and is_torch_name(q):
            self._count_chain(func)
            self.add("api", q, anchor, node, call=True, args=args, kwargs=kwargs, context=self._context,
                     detail=_call_detail(node))
            if is_transform(q) and (self.in_layers or (self.classes and self.classes[-1].kind == "module")):
                self.event("transform:model", anchor, node, detail={"api": q})  # model_transforms.py
            built = (kind_of_torch_call(q) or ("",))[0]
            if built == MODULE:
                self.facts.add("network")
            elif built == OPTIMIZER:
                self.facts.add(f"optimizer:{q}")  # which optimizer classes the file builds (classic_optimizer_groups)
        elif q is not None and q.split(".", 1)[0] in NUMPY_ROOTS + THREAD_ROOTS:
            self.visit(func)
            constant = all(v is not NONLIT for v in (*args, *kwargs.values()))  # np.sqrt(2.0): folded, compiles
            if self.in_forward and not constant:
                root = q.split(".", 1)[0]
                self.event("forward:" + ("numpy" if root in NUMPY_ROOTS else "thread"), anchor, node,
                           detail={"api": q})
        elif type(func) is cst.Attribute:
            method = func.attr.value
            self.count(("A", method))
            self.visit(func.value)
            self._method_call(node, func, method, anchor, args, kwargs)
        else:
            self.visit(func)
            if self.class_kind_of_call(func) == "module":
                self.facts.add("network")
            if self.in_forward and type(func) is cst.Name and func.value in self.local_classes:
                kind = self.class_kind_of_call(func)
                if kind is None:
                    self.event("forward:custom_class", anchor, node, detail={"class": func.value})
        prev, self._context = self._context, ""
        layers = q in LAYER_CONTAINERS
        self.in_layers += layers
        for arg in node.args:
            self.visit(arg)
        self.in_layers -= layers
        self._context = prev

    def _method_call(self, node, func, method, anchor, args, kwargs) -> None:
        recv = self.infer(func.value)
        if (recv is None or recv[0] == UNKNOWN) and is_foreign(func.value, self.foreign):
            return  # plt.scatter, re.sub, an array's ravel(), accelerator.backward: no torch object
        on_module_self = bool(self.classes) and self.classes[-1].kind == "module" \
            and type(func.value) is cst.Name and func.value.value == "self"
        if recv is None and on_module_self and method in ALWAYS_REPORTED_METHODS:
            recv = (MODULE, 0.95)  # self.state_dict() in an nn.Module subclass is the module's
        if method in ("train", "set_train") and self.imports_torch and (recv is None or recv[0] == MODULE):
            # model.train() on a parameter of a helper function: its type is unknown here, the switch is real
            self.facts.add("train_mode_set")
        receiver_method = ""
        if type(func.value) is cst.Call and type(func.value.func) is cst.Attribute:
            receiver_method = func.value.func.attr.value
        if recv is None:
            on_self = self.classes and type(func.value) is cst.Name and func.value.value == "self"
            if on_self and method not in ALWAYS_REPORTED_METHODS:
                return  # self.relu(x) calls the object's own layer or method, not a tensor's
            if not self.imports_torch or method not in self.tensor_methods or method in PY_COMMON:
                if not (self.imports_torch and method in ALWAYS_REPORTED_METHODS):
                    return
            kind, conf = UNKNOWN, 0.3
        else:
            kind, conf = recv
        if kind in (DEVICE, DATASET):
            return  # a device object's or a torchvision dataset's own methods are no tensor API
        owner = RECEIVER_API.get(kind, "torch.Tensor")
        if kind == UNKNOWN and method not in self.tensor_methods:
            # optimizer.state_dict() / model.load_state_dict(): no tensor has these; name their real owner
            optimizer_like = "optim" in _dotted(func.value).lower() or "scaler" in _dotted(func.value).lower()
            owner = "torch.optim.Optimizer" if optimizer_like else "torch.nn.Module"
        api = f"{owner}.{method}"
        detail = _call_detail(node)
        if type(func.value) is cst.Name and func.value.value in self.tuple_bound:
            detail["receiver_from_tuple"] = True
        self.add("method", api, anchor, node, call=True, args=args, kwargs=kwargs, receiver=kind,
                 receiver_method=receiver_method, confidence=conf, detail=detail)
        if method in ("train", "set_train") or (method == "eval" and kind == MODULE):
            self.facts.add("train_mode_set" if method != "eval" else "eval_mode_set")
        if method == "backward":
            self.facts.add("backward")

    # ---- handlers: statements that bind names --------------------------------
    def _assign(self, node: cst.Assign) -> None:
        value = self.infer(node.value)
        if value is not None and value[0] == MODULE:
            self.facts.add("network")
        for target in node.targets:
            t = target.target
            if type(t) is cst.Attribute and t.attr.value == "requires_grad":
                key = ("A", "requires_grad")
                self.event("assign:requires_grad", (key, self.counts.get(key, 0)), t)
            elif type(t) in (cst.Tuple, cst.List) and type(node.value) is cst.Call:
                for el in t.elements:
                    if type(el.value) is cst.Name:
                        self.tuple_bound.add(el.value.value)
            self.visit(target.target)
        self.visit(node.value)
        for target in node.targets:
            self._bind_target(target.target, value, node.value)

    def _ann_assign(self, node: cst.AnnAssign) -> None:
        value = self.infer(node.value) if node.value is not None else None
        q = self.qualify(node.annotation.annotation)
        if q == "torch.Tensor":
            value = (TENSOR, 0.95)
        self.visit(node.target)
        self.visit(node.annotation)
        if node.value is not None:
            self.visit(node.value)
        self._bind_target(node.target, value, node.value)

    def _bind_target(self, target, value, value_node) -> None:
        t = type(target)
        if t is cst.Name:
            self.bind(target.value, value)
        elif t is cst.Attribute and type(target.value) is cst.Name and target.value.value == "self" and self.classes:
            attrs = self.classes[-1].attrs
            if value is None:
                attrs.pop(target.attr.value, None)
            else:
                attrs[target.attr.value] = value
        elif t is cst.Attribute and target.attr.value == "requires_grad":
            self.facts.add("requires_grad_assigned")
        elif t in (cst.Tuple, cst.List):
            if value_node is not None and type(value_node) in (cst.Tuple, cst.List) and len(value_node.elements) == len(target.elements):
                for el, val in zip(target.elements, value_node.elements):
                    self._bind_target(el.value, self.infer(val.value), val.value)
            else:
                for el in target.elements:
                    self._bind_target(el.value, None, None)

    def _for(self, node: cst.For) -> None:
        source = self.infer(node.iter)
        target_kind = None
        it = node.iter
        target = node.target
        if source is None and type(it) is cst.Call and type(it.func) is cst.Name and it.func.value == "enumerate" and it.args:
            source = self.infer(it.args[0].value)
            if source and source[0] == LOADER and type(target) is cst.Tuple and len(target.elements) == 2:
                target = target.elements[1].value
        if source and source[0] == LOADER:
            target_kind = (TENSOR, 0.7)
        elif source and source[0] == TENSOR:
            target_kind = (TENSOR, round(source[1] * 0.9, 2))
        self.visit(node.target)
        self.visit(node.iter)
        if target_kind:
            self._bind_all(target, target_kind)
        self.visit(node.body)
        if node.orelse is not None:
            self.visit(node.orelse)

    def _bind_all(self, target, kind) -> None:
        if type(target) is cst.Name:
            self.bind(target.value, kind)
        elif type(target) in (cst.Tuple, cst.List):
            for el in target.elements:
                self._bind_all(el.value, kind)

    def _with(self, node: cst.With) -> None:
        prev, self._context = self._context, "with"
        for item in node.items:
            self.visit(item.item)
            if item.asname is not None:
                self.visit(item.asname.name)
        self._context = prev
        self.visit(node.body)


def _skip(node) -> None:
    return None


def _dotted(node) -> str:
    if type(node) is cst.Name:
        return node.value
    if type(node) is cst.Attribute:
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _call_detail(node: cst.Call) -> dict:
    """Shapes of arguments some rules look at (dict literals in optimizer groups)."""
    detail: dict = {}
    if node.args and type(node.args[0].value) is cst.List:
        keys = []
        for el in node.args[0].value.elements:
            if type(el.value) is cst.Dict:
                for d in el.value.elements:
                    if type(d) is cst.DictElement:
                        k = literal(d.key)
                        if isinstance(k, str):
                            keys.append(k)
        if keys:
            detail["group_keys"] = keys
    if node.args and node.args[0].keyword is None and type(node.args[0].value) is cst.Call:
        inner = node.args[0].value.func
        if type(inner) is cst.Attribute:
            detail["first_arg_method"] = inner.attr.value
    return detail


# torch functions of lowercase name whose result is no tensor: a network (a wrapped or traced module) or
# another value (a number, a dtype, a flag, a PackedSequence); every other lowercase torch function gives tensors
NETWORK_RESULTS = frozenset({
    "torch.compile", "torch.hub.load", "torch.fx.symbolic_trace", "torch.nn.utils.weight_norm",
    "torch.nn.utils.spectral_norm", "torch.nn.utils.remove_weight_norm", "torch.nn.utils.remove_spectral_norm",
    "torch.nn.utils.parametrizations.weight_norm", "torch.nn.utils.parametrizations.spectral_norm",
    "torch.nn.utils.parametrizations.orthogonal", "torch.nn.utils.fusion.fuse_conv_bn_eval",
    "torch.nn.utils.fusion.fuse_linear_bn_eval", "torch.quantization.quantize_dynamic",
    "torch.ao.quantization.quantize_dynamic"})
OTHER_RESULTS = frozenset({
    "torch.finfo", "torch.iinfo", "torch.get_default_dtype", "torch.promote_types", "torch.result_type",
    "torch.can_cast", "torch.is_tensor", "torch.is_storage", "torch.is_floating_point", "torch.is_complex",
    "torch.is_nonzero", "torch.numel", "torch.typename", "torch.is_grad_enabled", "torch.is_inference_mode_enabled",
    "torch.get_num_threads", "torch.initial_seed", "torch.seed", "torch.nn.utils.rnn.pack_padded_sequence",
    "torch.nn.utils.rnn.pack_sequence", "torch.nn.utils.parametrize.register_parametrization"})


def kind_of_torch_call(q: str) -> tuple[str, float] | None:
    """What calling the torch API ``q`` returns."""
    last = q.rsplit(".", 1)[-1]
    if q in NETWORK_RESULTS:
        return (MODULE, 0.9)
    if q in OTHER_RESULTS:
        return None
    if q.startswith("torch.optim.lr_scheduler."):
        return (SCHEDULER, 0.95)
    if q.startswith("torch.optim.") and last[:1].isupper():
        return (OPTIMIZER, 0.95)
    if q in ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"):
        return (LOADER, 0.95)
    if q == "torch.device":
        return (DEVICE, 1.0)
    if q == "torch.Generator":
        return (GENERATOR, 1.0)
    if q in ("torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.Tensor", "torch.autograd.Variable"):
        return (TENSOR, 0.95)
    if torch_base_kind(q) == "module" or (q.startswith(("torchvision.models.", "torchaudio.models.")) and last[:1].islower() is False):
        return (MODULE, 0.95)
    if q.startswith("torchvision.models."):
        return (MODULE, 0.8)  # model builder functions (resnet18(), ...)
    if q.startswith(("torch.cuda.", "torch.distributed.", "torch.backends.", "torch.utils.", "torch.jit.", "torch.multiprocessing.")):
        return None
    if q in ("torch.no_grad", "torch.enable_grad", "torch.manual_seed", "torch.save", "torch.load", "torch.set_grad_enabled"):
        return None
    if q.startswith("torch.") and last[:1].islower():
        return (TENSOR, 0.95)
    return None


# Calls whose arguments name classes for torch.load's unpickler (not uses of those classes).
SAFE_GLOBALS_LISTS = frozenset({"torch.serialization.safe_globals", "torch.serialization.add_safe_globals"})

# Attribute reads the rules care about.
# Attributes of a torchvision dataset object that MindSpore's datasets lack.
DATASET_ATTRS = frozenset("train_data train_labels test_data test_labels data targets".split())
ATTRIBUTE_EVENTS = frozenset(
    "param_groups running_mean running_var num_batches_tracked grad is_cuda device".split()
)
# Method names reported even on values of unknown type, when the file uses torch.
ALWAYS_REPORTED_METHODS = frozenset(
    "cuda backward zero_grad state_dict load_state_dict named_parameters named_children named_modules "
    "register_buffer add_module requires_grad_ half get_last_lr random_".split()
)
ENV_MARKERS = ("CUDA_VISIBLE_DEVICES", "MASTER_ADDR", "MASTER_PORT")
