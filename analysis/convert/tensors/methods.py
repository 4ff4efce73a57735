"""Method calls on tensors and cells: size/view/transpose/numpy, device moves,
train/eval, parameters() (the receiver's type is not known: these go by method
name and shape of the call, which is how PyTorch code reads)."""
from __future__ import annotations

from functools import lru_cache

import libcst as cst

from analysis.scan.receivers import is_torch_bound

from ..apis import composed, compositions, edge_forms, exact_forms
from ..apis.overloads import dispatch_call
from ..apis.mapped import dtype_name
from ..apis.signatures import ArgPlan, fix_commas, packed_star_sizes, parameter_names, plan_with_signature
from ..apis.verdict_hook import known_broken, spelled
from ..core import rules
from ..core.bound import tensor_receiver
from ..core.context import ConversionContext
from ..core.layout import keyword_index
from ..core.names import code, dotted, resolve, without_calls
from ..data import checkpoints
from ..support import helpers
from . import absent_methods, inplace, scatter
from . import tensor_forms  # call forms of Tensor methods MindSpore's namesakes do not take

DEVICE_WORDS = ("device", "cuda", "cpu", "gpu", "rank")


def _receiver(call: cst.Call) -> cst.BaseExpression:
    return call.func.value  # type: ignore[union-attr]


def _method(call: cst.Call) -> str | None:
    if isinstance(call.func, cst.Attribute):
        return call.func.attr.value
    return None


def _rename(call: cst.Call, name: str) -> cst.Call:
    return call.with_changes(func=call.func.with_changes(attr=cst.Name(name)))


def _looks_like_device(ctx: ConversionContext, node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value.split(":")[0] in ("cpu", "cuda", "mps", "xpu")
    if isinstance(node, cst.Call):
        return resolve(node.func, ctx.aliases) == "torch.device"
    if isinstance(node, cst.Name) and node.value in ctx.device_names:
        return True
    text = code(node).lower()
    return any(word in text for word in DEVICE_WORDS)


def _dtype(ctx: ConversionContext, node: cst.BaseExpression) -> str | None:
    qualified = resolve(node, ctx.aliases)
    return dtype_name(qualified) if qualified else None


def method_call(ctx: ConversionContext, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
    """The rewritten call, or None when this is no method call we know."""
    name = _method(updated)
    if name is None or resolve(original.func, ctx.aliases) is not None:
        return None
    for exact in (scatter.method, exact_forms.method, _split_axis, tensor_forms.method):  # forms MindSpore lacks on CPU
        new = exact(ctx, original, updated, name)
        if new is not None:
            return new
    return inplace.method(ctx, original, updated, name, _out_of_place,
                          lambda finish: _known_method(ctx, original, updated, name, finish))


def _out_of_place(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str):
    """The new value of an in-place call (original: x.round_(decimals=2); updated: x.round(decimals=2), its
    out-of-place form): the exact forms the method itself would take (round_decimals(x, 2), copysign(x, y)),
    else the tables' mapping; None where the call stays as it is."""
    new = exact_forms.method(ctx, original, updated, name, in_place=True) \
        or compositions.method_call(ctx, original, updated, name) or edge_forms.method_call(ctx, original, updated, name)
    return new if new is not None else _mapped_method(ctx, original, updated, name, ambiguous=frozenset())


def _split_axis(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str) -> cst.Call | None:
    """x.split(size, dim=d) -> x.split(size, axis=d). MindSpore 2.10 reads dim= as its other overload, whose
    SplitTensor kernel CPU lacks in a compiled graph (a compiled training step over nanoGPT's attention,
    `qkv.split(n_embd, dim=2)`, failed to build); axis= is the classic Split, the same pieces. A str's
    split has no dim=, so the keyword says it is a tensor's."""
    index = keyword_index(list(updated.args), "dim") if name == "split" else None
    if index is None:
        return None
    args = list(updated.args)
    args[index] = args[index].with_changes(keyword=cst.Name("axis"))
    ctx.change(original, rules.TENSOR_METHOD, "torch.Tensor.split", "mindspore.Tensor.split",
               "split(..., dim=) -> split(..., axis=): CPU has no kernel for the dim= overload in a compiled graph")
    return updated.with_changes(args=args)


def _known_method(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str, finish):
    """A method the tables (or this module) know; finish() takes the mapped result (inplace.method)."""
    receiver = _receiver(updated)
    args = updated.args
    positional = [a for a in args if a.keyword is None and not a.star]
    refused = ctx.classic.manual.get(f"torch.Tensor.{name}")
    if refused and ctx.classic.get(f"torch.Tensor.{name}") is None and code(receiver) not in ("self", "cls") \
            and not code(receiver).startswith("self.") \
            and (name not in TENSOR_RECEIVER_ONLY or tensor_receiver(ctx, original.func.value)):
        ctx.mark(original, rules.API_UNMAPPED, f"torch.Tensor.{name}", refused)  # its MindSpore method misbehaves
        return updated
    if name == "size" and len(args) <= 1 and not any(a.keyword and a.keyword.value != "dim" for a in args) \
            and not any(a.star for a in args):
        shape = cst.Attribute(value=receiver, attr=cst.Name("shape"))
        ctx.change(original, rules.TENSOR_SIZE, "torch.Tensor.size", "mindspore.Tensor.shape", "x.size() -> x.shape")
        if not args:
            return shape
        return cst.Subscript(value=shape, slice=[cst.SubscriptElement(slice=cst.Index(value=args[0].value))])
    if name == "view" and args:
        if len(args) == 1 and (_dtype(ctx, original.args[0].value) or _dtype(ctx, args[0].value)):
            # MindSpore 2.10's Tensor.view(dtype) reinterprets the bits as PyTorch's does (the last axis
            # scaled by the size ratio, writes shared): checked for every pair of 10 dtypes
            ctx.change(original, rules.TENSOR_VIEW, "torch.Tensor.view", "mindspore.Tensor.view",
                       "view(dtype) -> view(MindSpore dtype) (the same bits reinterpreted)")
            return updated
        ctx.change(original, rules.TENSOR_VIEW, "torch.Tensor.view", "mindspore.Tensor.reshape", "view -> reshape")
        return _rename(updated, "reshape")
    if name == "transpose" and len(positional) == 2 and len(args) == 2:
        ctx.change(original, rules.TENSOR_TRANSPOSE, "torch.Tensor.transpose", "mindspore.Tensor.swapaxes",
                   "two-axis transpose -> swapaxes (MindSpore's transpose takes a full permutation)")
        return _rename(updated, "swapaxes")
    if name == "numpy" and all(a.keyword is not None and a.keyword.value == "force" for a in args):
        # force=True: a copy even off the CPU or with a gradient attached; asnumpy() always copies to the host
        inner = receiver
        while isinstance(inner, cst.Call) and _method(inner) in ("cpu", "detach") and not inner.args:
            inner = _receiver(inner)
        ctx.change(original, rules.TENSOR_NUMPY, "torch.Tensor.numpy", "mindspore.Tensor.asnumpy",
                   "numpy() (and cpu()/detach() before it) -> asnumpy()")
        return cst.Call(func=cst.Attribute(value=inner, attr=cst.Name("asnumpy")))
    if name in ("cpu", "cuda", "pin_memory") and (not args or name == "cuda"):
        ctx.change(original, rules.DEVICE_CUDA, f"torch.Tensor.{name}", "",
                   f".{name}() removed: MindSpore places data by context, not per tensor")
        return receiver
    if name == "to" and args:
        # judge the original arguments: torch dtypes among the updated ones are already renamed
        dtypes = [a for a in original.args if (a.keyword is None or a.keyword.value == "dtype") and _dtype(ctx, a.value)]
        rest = [a for a in original.args
                if a not in dtypes and not (a.keyword and a.keyword.value in ("non_blocking", "copy"))]
        if all(_looks_like_device(ctx, a.value) for a in rest) and len(dtypes) <= 1:
            if dtypes:
                target = ctx.ms(_dtype(ctx, dtypes[0].value) or "")
                ctx.change(original, rules.DEVICE_TO, "torch.Tensor.to", "mindspore.Tensor.astype",
                           ".to(dtype) -> .astype(dtype); device part dropped")
                return cst.Call(func=cst.Attribute(value=receiver, attr=cst.Name("astype")),
                                args=[cst.Arg(value=cst.parse_expression(target))])
            ctx.change(original, rules.DEVICE_TO, "torch.Tensor.to", "",
                       ".to(device) removed: MindSpore places data by context")
            return receiver
        return None
    if name == "detach" and not args:
        ctx.change(original, rules.DETACH, "torch.Tensor.detach", "mindspore.ops.stop_gradient",
                   "detach() -> ops.stop_gradient()")
        return cst.Call(func=ctx.ms_expr("mindspore.ops.stop_gradient"), args=[cst.Arg(value=receiver)])
    if name == "train" and len(args) <= 1 and not any(a.keyword for a in args):
        ctx.change(original, rules.TRAIN_MODE, "torch.nn.Module.train", "mindspore.nn.Cell.set_train",
                   "train() -> set_train()")
        return _rename(updated, "set_train").with_changes(args=args or [cst.Arg(value=cst.Name("True"))])
    if name == "eval" and not args:
        ctx.change(original, rules.TRAIN_MODE, "torch.nn.Module.eval", "mindspore.nn.Cell.set_train",
                   "eval() -> set_train(False)")
        return _rename(updated, "set_train").with_changes(args=[cst.Arg(value=cst.Name("False"))])
    if name == "parameters" and not args:
        ctx.change(original, rules.OPTIMIZER_PARAMS, "torch.nn.Module.parameters", "mindspore.nn.Cell.trainable_params",
                   "parameters() -> trainable_params()")
        return _rename(updated, "trainable_params")
    if name == "named_parameters" and not args:
        ctx.change(original, rules.CELL_API, "torch.nn.Module.named_parameters",
                   "mindspore.nn.Cell.parameters_and_names", "named_parameters() -> parameters_and_names()")
        return _rename(updated, "parameters_and_names")
    if name in ("state_dict", "load_state_dict") and is_torch_bound(_receiver(original), ctx.foreign):
        ctx.mark(original, rules.CHECKPOINT, f"torch.nn.Module.{name}",
                 f"{code(receiver)} is a model of a torch-bound package (its import's MIGRATE note says which): it "
                 f"stays a torch module, not a Cell, so its {name} is torch's; port that model first (for Hugging "
                 "Face models, MindNLP's class of the same name loads the same checkpoint), then read its parameters")
        return updated
    if name == "state_dict" and not args:
        return checkpoints.state_dict(ctx, original, receiver)
    if name == "load_state_dict":
        return checkpoints.load_state_dict(ctx, original, updated, receiver)
    if name == "equal" and len(positional) == 1 and len(args) == 1:
        other = positional[0].value
        if not (without_calls(receiver) and without_calls(other)):  # each is written twice below: the helper
            return helpers.call(ctx, original, "torch.Tensor.equal", "equal",
                                [cst.Arg(value=receiver, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                                 cst.Arg(value=other)],
                                why="MindSpore's equal() compares elements, PyTorch's gives one bool", shown="equal")
        ctx.change(original, rules.TENSOR_METHOD, "torch.Tensor.equal", "mindspore.Tensor.all",
                   "x.equal(y) -> same shape and every element equal (MindSpore's equal() compares elements)")
        x, y = code(receiver), code(other)
        x, y = (f"({t})" if not (dotted(n) or isinstance(n, (cst.Integer, cst.Float))) else t
                for t, n in ((x, receiver), (y, other)))
        return cst.parse_expression(f"({x}.shape == {y}.shape and bool(({x} == {y}).all()))")
    if name == "new_tensor" and len(positional) == 1 and all(
            a.keyword is None or a.keyword.value in ("dtype", "device") for a in args):
        dtype = next((a.value for a in args if a.keyword and a.keyword.value == "dtype"), None)
        ctx.change(original, rules.TENSOR_METHOD, "torch.Tensor.new_tensor", "mindspore.tensor",
                   "x.new_tensor(data) -> mindspore.tensor(data, dtype=x.dtype)")
        return cst.Call(func=ctx.ms_expr("mindspore.tensor"), args=[
            positional[0].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            cst.Arg(value=dtype or cst.Attribute(value=receiver, attr=cst.Name("dtype")), keyword=cst.Name("dtype"),
                    equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                          whitespace_after=cst.SimpleWhitespace("")))])
    if name in ("softmax", "log_softmax") and len(args) == 1 and not args[0].star \
            and (args[0].keyword is None or args[0].keyword.value == "dim"):
        axis = cst.Arg(value=args[0].value, keyword=cst.Name("axis"),
                       equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                             whitespace_after=cst.SimpleWhitespace("")))
        if name == "softmax":
            ctx.change(original, rules.TENSOR_METHOD, "torch.Tensor.softmax", "mindspore.Tensor.softmax",
                       "softmax(dim) -> softmax(axis=...)")
            return updated.with_changes(args=[axis])
        ctx.change(original, rules.TENSOR_METHOD, "torch.Tensor.log_softmax", "mindspore.ops.log_softmax",
                   "x.log_softmax(dim) -> ops.log_softmax(x, axis=...) (MindSpore tensors have no log_softmax)")
        return cst.Call(func=ctx.ms_expr("mindspore.ops.log_softmax"),
                        args=[cst.Arg(value=receiver, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                              axis])
    if name in ("std", "var"):
        spread = _spread(updated)
        if spread is not None:
            ctx.change(original, rules.TENSOR_DIFF, f"torch.Tensor.{name}", f"mindspore.Tensor.{name}",
                       f"{name}(): written with MindSpore's axis/ddof/keepdims (PyTorch's unbiased default made "
                       "explicit; the dim/correction form has no CPU kernel)")
            return updated.with_changes(args=spread)
    if name in NO_COUNTERPART:
        ctx.mark(original, rules.API_UNMAPPED, f"torch.Tensor.{name}", NO_COUNTERPART[name])
        return updated
    new = compositions.method_call(ctx, original, updated, name) or edge_forms.method_call(ctx, original, updated, name)
    if new is not None:
        return new
    refused = _refused_value(original, name)
    if refused:
        ctx.mark(original, rules.TENSOR_METHOD, f"torch.Tensor.{name}", refused)
        return updated
    updated = _float_arguments(updated, name)
    new = _mapped_method(ctx, original, updated, name)
    if new is None and ctx.classic.get(f"torch.Tensor.{name}") is None:
        marked = absent_methods.mark(ctx, original, updated)  # a torch tensor's method MindSpore's Tensor lacks
        if marked is not None:
            return marked
    if new is None and updated is not original and code(updated) != code(original):
        new = updated
    return finish(new)


# Tensor methods MindSpore tensors lack, with what to write instead
NO_COUNTERPART = {
    "dim_order": "MindSpore tensors have no dim_order(): the axes from outermost to innermost in memory are "
                 "sorted(range(x.ndim), key=lambda d: -x.stride()[d]) (PyTorch also breaks ties and checks "
                 "ambiguity, which this does not)",
}

# Arguments MindSpore's method refuses for some values: method -> (keyword, value it accepts, what to do)
REFUSED_VALUES = {
    "round": ("decimals", "0", "MindSpore's Tensor.round rounds to integers only (decimals=0): for a tensor "
                               "x write (x * 10 ** d).round() / 10 ** d, for d < 0 (x / 10 ** -d).round() * 10 ** -d "
                               "(PyTorch's steps; float16 in float32)"),
}
# Arguments MindSpore's method takes as a Python float only: method -> (keyword, position)
# (keyword, position) pairs; MindSpore's Cauchy refuses median=0 / sigma=1 as ints (a TypeError)
FLOAT_ARGUMENTS = {"fill_diagonal_": (("fill_value", 0),), "cauchy_": (("median", 0), ("sigma", 1))}


def _refused_value(call: cst.Call, name: str) -> str | None:
    spec = REFUSED_VALUES.get(name)
    if spec is None:
        return None
    keyword, accepted, action = spec
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword and code(arg.value) != accepted:
            return f"{keyword}={code(arg.value)}: {action}"
    return None


def _float_arguments(call: cst.Call, name: str) -> cst.Call:
    """x.fill_diagonal_(5) -> x.fill_diagonal_(5.0): MindSpore checks the Python type of the value."""
    spec = FLOAT_ARGUMENTS.get(name)
    if spec is None:
        return call
    positional = [a for a in call.args if a.keyword is None and not a.star]
    floats = {keyword for keyword, _ in spec}
    picked = {id(positional[position]) for _, position in spec if len(positional) > position}
    args = []
    for arg in call.args:
        if (arg.keyword is not None and arg.keyword.value in floats) or (arg.keyword is None and id(arg) in picked):
            value = arg.value
            if isinstance(value, cst.Integer):
                value = cst.Float(f"{value.evaluated_value}.0")
            elif not isinstance(value, cst.Float):
                value = cst.Call(func=cst.Name("float"), args=[cst.Arg(value=value)])
            arg = arg.with_changes(value=value)
        args.append(arg)
    return call.with_changes(args=args)


def _spread(call: cst.Call) -> list[cst.Arg] | None:
    """x.std(dim, unbiased, keepdim) / x.std(unbiased) / x.std(dim, correction=c, keepdim=k) bound and
    written as MindSpore's std(axis=, ddof=, keepdims=); None for a call that fits none of them."""
    values: dict[str, cst.BaseExpression] = {}
    positional = [a.value for a in call.args if a.keyword is None]
    if any(a.star for a in call.args) or len(positional) > 3:
        return None
    if len(positional) == 1 and isinstance(positional[0], cst.Name) and positional[0].value in ("True", "False"):
        values["unbiased"] = positional[0]
    else:
        values.update(zip(("dim", "unbiased", "keepdim"), positional))
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value not in ("dim", "unbiased", "correction", "keepdim") or arg.keyword.value in values:
                return None
            values[arg.keyword.value] = arg.value
    if "unbiased" in values and "correction" in values:
        return None
    unbiased = values.get("unbiased")
    if unbiased is None:
        ddof = values.get("correction", cst.Integer("1"))
    elif isinstance(unbiased, cst.Name) and unbiased.value in ("True", "False"):
        ddof = cst.Integer("1" if unbiased.value == "True" else "0")
    else:
        ddof = cst.Call(func=cst.Name("int"), args=[cst.Arg(value=unbiased)])
    if isinstance(ddof, cst.Name) and ddof.value == "None":
        ddof = cst.Integer("1")
    out = [("axis", values["dim"])] if "dim" in values else []
    out.append(("ddof", ddof))
    if "keepdim" in values:
        out.append(("keepdims", values["keepdim"]))
    equal = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    args = [cst.Arg(value=v, keyword=cst.Name(k), equal=equal,
                    comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for k, v in out]
    args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return args


# Method names method_call rewrites itself (besides the table's renames, see relevant_methods).
HANDLED_METHODS = frozenset({"size", "view", "transpose", "numpy", "cpu", "cuda", "pin_memory", "to", "detach", "train", "eval",
                             "parameters", "named_parameters", "state_dict", "load_state_dict", "std", "var",
                             "equal", "new_tensor", "softmax", "log_softmax", "unfold", "dim_order"})


@lru_cache(maxsize=4)
def relevant_methods(classic) -> frozenset[str]:
    """Every method name method_call may rewrite: a call of any other name is left as it is."""
    mapped = {entry.torch.rsplit(".", 1)[1] for entry in classic
              if entry.torch.startswith("torch.Tensor.") and entry.torch.count(".") == 2}
    refused = {name.rsplit(".", 1)[1] for name in classic.manual if name.startswith("torch.Tensor.")}
    return HANDLED_METHODS | frozenset(mapped) | inplace.names(classic) | frozenset(refused) | frozenset(scatter.METHODS) \
        | exact_forms.METHODS | absent_methods.names() | tensor_forms.METHODS


# Methods numpy arrays have too, which the table sends to a MindSpore function: on a receiver not known
# to be a tensor they go to a local helper that decides when it runs (numpy's a.dot(b) must stay).
NUMPY_METHODS = {"dot": "dot"}

# Tensor methods whose names other objects' methods share with other meanings (a dict's values(), a
# slice's indices()): their table entry or manual mark applies only to a receiver the file binds to a
# torch tensor. (put's helper decides when it runs: a queue's or an array's put is called as it was.)
TENSOR_RECEIVER_ONLY = frozenset({"values", "indices", "apply_", "map_", "coalesce"})

# Method names too common outside tensors to rename from the table without type information.
_AMBIGUOUS = frozenset({"add", "get", "copy", "index", "count", "sort", "update", "pop", "clear", "split", "join"})


def _mapped_method(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str,
                   ambiguous: frozenset[str] = _AMBIGUOUS):
    entry = ctx.classic.get(f"torch.Tensor.{name}")
    if entry is not None and entry.helper and name not in ambiguous \
            and (name not in TENSOR_RECEIVER_ONLY or tensor_receiver(ctx, original.func.value)):
        return composed.method_call(ctx, original, updated, entry)
    if entry is not None and name not in ambiguous and entry.primary.startswith("mindspore.Tensor.") \
            and updated.args:
        bound = _bound_method(ctx, original, updated, name, entry)
        if bound is not None:
            return bound
    if entry is None or entry.category != "consistent" or name in ambiguous:
        return None
    if entry.primary.startswith("mindspore.ops.") and not name.endswith("_"):
        # without types, a call on self or with more arguments than the tensor method takes is
        # something else (self.relu(x) calls a layer): leave those alone
        receiver_text = code(_receiver(updated))
        if receiver_text in ("self", "cls") or receiver_text.startswith("self.") or not entry.torch_signature \
                or len(updated.args) > len(parameter_names(entry.torch_signature)):
            return None
        if name in NUMPY_METHODS and not tensor_receiver(ctx, _receiver(original)):
            return exact_forms.helper_call(ctx, original, NUMPY_METHODS[name], [_receiver(updated), *(a.value for a in updated.args)],
                                           api=entry.torch, why="a tensor's or a numpy array's, decided when it runs",
                                           rule_id=rules.TENSOR_METHOD)
        # MindSpore tensors lack this method: x.relu() -> ops.relu(x) (in-place methods stay marked elsewhere)
        ctx.change(original, rules.TENSOR_METHOD, entry.torch, entry.primary,
                   f"x.{name}(...) -> {entry.primary}(x, ...)")
        value = _receiver(updated)
        if getattr(value, "lpar", None):
            value = value.with_changes(lpar=[], rpar=[])  # now an argument: its parentheses are redundant
        receiver = cst.Arg(value=value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args = [receiver, *updated.args] if updated.args else [receiver.with_changes(comma=cst.MaybeSentinel.DEFAULT)]
        return cst.Call(func=ctx.ms_expr(entry.primary), args=args)
    if not entry.primary.startswith("mindspore.Tensor."):
        return None
    new_name = entry.primary.rsplit(".", 1)[1]
    if new_name == name or name in ambiguous:
        return None
    ctx.change(original, rules.TENSOR_METHOD, entry.torch, entry.primary, f".{name}() -> .{new_name}()")
    return _rename(updated, new_name)


def _bound_method(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str, entry):
    """x.float_power(exponent=2) -> x.float_power(other=2): the arguments bound to PyTorch's method
    signature and written in MindSpore's; marked where one has no counterpart. None when the call
    fits no PyTorch overload (another object's method of the same name) or nothing changes."""
    plan = plan_with_signature(updated, entry)
    if plan is None:
        packed = packed_star_sizes(updated, entry)
        if packed is None:
            return None
        plan = ArgPlan(args=packed, notes=["sizes unpacked from a sequence -> one tuple"])
    if plan.overloads:
        dispatched = dispatch_call(ctx, original, entry.torch, [cst.Arg(value=_receiver(updated)), *updated.args])
        if dispatched is not None:
            return dispatched
    problems = plan.problems or [p for p in [known_broken(entry.torch, spelled(updated, plan.passed))] if p]
    if problems:
        ctx.mark(original, rules.TENSOR_METHOD, entry.torch, f"{'; '.join(problems)} (see {entry.primary})")
        return updated
    new_name = entry.primary.rsplit(".", 1)[1]
    args = fix_commas(plan.args)
    if new_name == name and [code(a) for a in args] == [code(a) for a in fix_commas(list(updated.args))]:
        return None
    ctx.change(original, rules.TENSOR_METHOD, entry.torch, entry.primary,
               f".{name}(...) -> .{new_name}(...)" + (f" ({'; '.join(plan.notes)})" if plan.notes else ""))
    return _rename(updated, new_name).with_changes(args=args)
