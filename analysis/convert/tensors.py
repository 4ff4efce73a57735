"""Method calls on tensors and cells: size/view/transpose/numpy, device moves,
train/eval, parameters() (the receiver's type is not known: these go by method
name and shape of the call, which is how PyTorch code reads)."""
from __future__ import annotations

from functools import lru_cache

import libcst as cst

from . import inplace, rules
from .apis import dtype_name
from .context import ConversionContext
from .names import code, resolve
from .signatures import fix_commas, parameter_names, plan_with_signature
from .verdict_hook import known_broken, spelled

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
    receiver = _receiver(updated)
    args = updated.args
    positional = [a for a in args if a.keyword is None and not a.star]
    if name == "size" and len(args) <= 1 and not any(a.keyword for a in args):
        shape = cst.Attribute(value=receiver, attr=cst.Name("shape"))
        ctx.change(original, rules.TENSOR_SIZE, "torch.Tensor.size", "mindspore.Tensor.shape", "x.size() -> x.shape")
        if not args:
            return shape
        return cst.Subscript(value=shape, slice=[cst.SubscriptElement(slice=cst.Index(value=args[0].value))])
    if name == "view" and args:
        if len(args) == 1 and (_dtype(ctx, original.args[0].value) or _dtype(ctx, args[0].value)):
            ctx.mark(original, rules.TENSOR_VIEW, "torch.Tensor.view",
                     "view(dtype) reinterprets bits: use ops.bitcast or astype")
            return updated
        ctx.change(original, rules.TENSOR_VIEW, "torch.Tensor.view", "mindspore.Tensor.reshape", "view -> reshape")
        return _rename(updated, "reshape")
    if name == "transpose" and len(positional) == 2 and len(args) == 2:
        ctx.change(original, rules.TENSOR_TRANSPOSE, "torch.Tensor.transpose", "mindspore.Tensor.swapaxes",
                   "two-axis transpose -> swapaxes (MindSpore's transpose takes a full permutation)")
        return _rename(updated, "swapaxes")
    if name == "numpy" and not args:
        inner = receiver
        while isinstance(inner, cst.Call) and _method(inner) in ("cpu", "detach") and not inner.args:
            inner = _receiver(inner)
        ctx.change(original, rules.TENSOR_NUMPY, "torch.Tensor.numpy", "mindspore.Tensor.asnumpy",
                   "numpy() (and cpu()/detach() before it) -> asnumpy()")
        return cst.Call(func=cst.Attribute(value=inner, attr=cst.Name("asnumpy")))
    if name in ("cpu", "cuda") and (not args or name == "cuda"):
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
    if name == "state_dict" and not args:
        ctx.change(original, rules.CHECKPOINT, "torch.nn.Module.state_dict", "mindspore.nn.Cell.parameters_dict",
                   "state_dict() -> parameters_dict() (parameter names can differ, e.g. BatchNorm gamma/beta)")
        return _rename(updated, "parameters_dict")
    if name == "load_state_dict" and len(positional) == 1:
        loaded = positional[0].value
        if isinstance(loaded, cst.Call) and resolve(loaded.func, ctx.aliases) == "torch.load":
            path_args = [a for a in loaded.args if a.keyword is None][:1] or loaded.args[:1]
            loaded = cst.Call(func=ctx.ms_expr("mindspore.load_checkpoint"), args=[a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in path_args])
        ctx.change(original, rules.CHECKPOINT, "torch.nn.Module.load_state_dict", "mindspore.load_param_into_net",
                   "load_state_dict -> mindspore.load_param_into_net")
        return cst.Call(func=ctx.ms_expr("mindspore.load_param_into_net"),
                        args=[cst.Arg(value=receiver), cst.Arg(value=loaded)])
    if name in ("std", "var") and not args:
        ctx.change(original, rules.TENSOR_DIFF, f"torch.Tensor.{name}", f"mindspore.Tensor.{name}",
                   f"{name}(): PyTorch's unbiased estimate made explicit (ddof=1)")
        return updated.with_changes(args=[cst.Arg(value=cst.Integer("1"), keyword=cst.Name("ddof"),
                                                  equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                                        whitespace_after=cst.SimpleWhitespace("")))])
    if name in ("fill_", "zero_"):
        return _fill(ctx, original, updated, name)
    if name in inplace.names():
        return inplace.convert(ctx, original, updated, name, _mapped_method)
    return _mapped_method(ctx, original, updated, name)


# Method names method_call rewrites itself (besides the table's renames, see relevant_methods).
HANDLED_METHODS = frozenset({"size", "view", "transpose", "numpy", "cpu", "cuda", "to", "detach", "train", "eval",
                             "parameters", "named_parameters", "state_dict", "load_state_dict", "std", "var",
                             "fill_", "zero_"})


def _fill(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str) -> cst.BaseExpression | None:
    """x.fill_(v) / x.zero_() -> x.assign_value(ops.full_like(x, v)) / (ops.zeros_like(x)): MindSpore
    2.10 has both methods but no CPU kernel for them. assign_value returns x, as fill_ does. x.data
    is a copy in MindSpore, so x itself is filled; part of a tensor (x[i]) or a computed one is marked."""
    args = updated.args
    if (name == "zero_" and args) or (name == "fill_" and not (
            len(args) == 1 and not args[0].star and (args[0].keyword is None or args[0].keyword.value == "value"))):
        return None
    target = _receiver(updated)
    if isinstance(target, cst.Attribute) and target.attr.value == "data":
        target = target.value
    if isinstance(target, cst.Attribute) and target.attr.value == "grad":
        return None  # gradients held on parameters: the training loop's business, not a fill
    op = "full_like" if name == "fill_" else "zeros_like"
    if not _plain_path(target):
        ctx.mark(original, rules.TENSOR_METHOD, f"torch.Tensor.{name}",
                 f"{name} has no CPU kernel in MindSpore: for a whole tensor write x.assign_value(ops.{op}(x"
                 f"{', value' if args else ''})), for part of one x[index] = value")
        return updated
    first = cst.Arg(value=target, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if args
                    else cst.MaybeSentinel.DEFAULT)
    filled = cst.Call(func=ctx.ms_expr(f"mindspore.ops.{op}"), args=[first, *(cst.Arg(value=a.value) for a in args)])
    ctx.change(original, rules.TENSOR_METHOD, f"torch.Tensor.{name}", "mindspore.Tensor.assign_value",
               f"{name}() -> assign_value(ops.{op}(...)): MindSpore's {name} has no CPU kernel")
    return cst.Call(func=cst.Attribute(value=target, attr=cst.Name("assign_value")), args=[cst.Arg(value=filled)])


def _plain_path(node: cst.BaseExpression) -> bool:
    """A name or a chain of attributes on one (x, self.fc.bias): safe to write twice, and the tensor
    itself rather than a copy of part of it."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


@lru_cache(maxsize=4)
def relevant_methods(classic) -> frozenset[str]:
    """Every method name method_call may rewrite: a call of any other name is left as it is."""
    mapped = {entry.torch.rsplit(".", 1)[1] for entry in classic
              if entry.torch.startswith("torch.Tensor.") and entry.torch.count(".") == 2}
    return HANDLED_METHODS | inplace.names() | frozenset(mapped)


# Method names too common outside tensors to rename from the table without type information.
_AMBIGUOUS = frozenset({"add", "get", "copy", "index", "count", "sort", "update", "pop", "clear", "split", "join"})


def _mapped_method(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str):
    entry = ctx.classic.get(f"torch.Tensor.{name}")
    if entry is not None and name not in _AMBIGUOUS and entry.primary.startswith("mindspore.Tensor.") \
            and updated.args:
        bound = _bound_method(ctx, original, updated, name, entry)
        if bound is not None:
            return bound
    if entry is None or entry.category != "consistent" or name in _AMBIGUOUS:
        return None
    if entry.primary.startswith("mindspore.ops.") and not name.endswith("_"):
        # without types, a call on self or with more arguments than the tensor method takes is
        # something else (self.relu(x) calls a layer): leave those alone
        receiver_text = code(_receiver(updated))
        if receiver_text in ("self", "cls") or receiver_text.startswith("self.") or not entry.torch_signature \
                or len(updated.args) > len(parameter_names(entry.torch_signature)):
            return None
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
    if new_name == name or name in _AMBIGUOUS:
        return None
    ctx.change(original, rules.TENSOR_METHOD, entry.torch, entry.primary, f".{name}() -> .{new_name}()")
    return _rename(updated, new_name)


def _bound_method(ctx: ConversionContext, original: cst.Call, updated: cst.Call, name: str, entry):
    """x.float_power(exponent=2) -> x.float_power(other=2): the arguments bound to PyTorch's method
    signature and written in MindSpore's; marked where one has no counterpart. None when the call
    fits no PyTorch overload (another object's method of the same name) or nothing changes."""
    plan = plan_with_signature(updated, entry)
    if plan is None:
        return None
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
