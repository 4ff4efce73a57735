"""Bind a call to PyTorch's signature, then write it in MindSpore's names and order.

The signatures and their parameter correspondence are data (knowledge/data/signatures_classic.json,
introspected from both installed frameworks by knowledge/build.py). A call is bound however the
user spelled it (positional, keyword, `input=`, sizes given one by one); among PyTorch's overloads
only those the literal arguments fit are kept, and where several remain they must convert to the
same call (torch.max(a, b) and torch.max(a, 1) are different functions). Each bound argument is
then written under its MindSpore name, positionally while MindSpore's order allows it; a PyTorch
default that MindSpore does not share is spelled out; an argument without a counterpart is
dropped only when its value is a no-op, else the call stays as it was with the argument named.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import libcst as cst

from analysis.knowledge.correspond import same_literal
from analysis.knowledge.mapping import ApiEntry, Signature, load_signatures

from ..core.names import code

# Keywords that only tune PyTorch's memory or device handling: dropping them keeps the values.
NO_OP_KEYWORDS = frozenset(
    {"inplace", "device", "pin_memory", "non_blocking", "memory_format", "layout", "verbose", "requires_grad",
     "foreach", "fused", "capturable", "differentiable", "generator"}
)
# Deprecated loss arguments: None is a no-op, other values become reduction= by PyTorch's legacy rule
LEGACY = ("size_average", "reduce")


# Argument values MindSpore computes differently, found by running torch's docstring examples:
# (api, parameter) -> (which values are refused, why). "not_number": anything but a number literal;
# "tensor": a tensor built in the call; "has_none": a tuple holding None; "only:V": any value but V.
VALUE_LIMITS = {
    ("torch.copysign", "other"): ("not_number", "MindSpore's copysign reads -0.0 in other as +0.0"),
    ("torch.narrow", "start"): ("tensor", "MindSpore's narrow takes start as an int only: pass int(start)"),
    **{("torch.tensor_split", name): (  # PyTorch's three overloads name it so
        "tensor", "MindSpore's tensor_split takes an int or a tuple of ints: pass .tolist() of the tensor")
       for name in ("sections", "indices", "tensor_indices_or_sections")},
    # MindSpore 2.10 keeps an input size for None in AdaptiveAvgPool2d/3d and AdaptiveMaxPool2d (checked against
    # PyTorch, batched and unbatched); only AdaptiveMaxPool3d refuses it (PyTorch's 1d forms take no None)
    ("torch.nn.AdaptiveMaxPool3d", "output_size"): (
        "has_none", "None (keep that input size) is not accepted by MindSpore: write the input's size"),
}
# Parameters the tables call different although both frameworks take the same values ('mean', 'sum',
# 'none'): only the default differs, and PyTorch's is written out (nn.SmoothL1Loss() reduces by the mean,
# MindSpore's returns every element's loss)
SAME_VALUES = frozenset({"reduction"})
# PyTorch factories default to float32; MindSpore's have no CPU kernel for an empty shape without a dtype
FLOAT_FACTORIES = ("torch.ones", "torch.zeros")


def refused_value(api: str, name: str, node: cst.BaseExpression) -> str | None:
    """Why this value of argument `name` cannot be written for MindSpore (see VALUE_LIMITS), or None."""
    limit = VALUE_LIMITS.get((api, name))
    if limit is None:
        return None
    kind, why = limit
    bare = node.expression if isinstance(node, cst.UnaryOperation) else node
    if kind == "not_number" and not isinstance(bare, (cst.Integer, cst.Float)):
        return f"argument {name}= other than a number literal: {why}"
    if kind == "tensor" and isinstance(node, cst.Call) and code(node.func).rsplit(".", 1)[-1] in (
            "tensor", "Tensor", "as_tensor", "arange", "zeros", "ones", "full"):
        return f"argument {name}= given as a tensor: {why}"
    if kind.startswith("only:") and not same_literal(code(node).strip(), kind[5:]):
        return f"argument {name}={code(node).strip()}: {why}"
    if kind == "has_none" and isinstance(node, (cst.Tuple, cst.List)) and any(
            isinstance(e.value, cst.Name) and e.value.value == "None" for e in node.elements):
        return f"argument {name}= holding None: {why}"
    return None


def needs_float_dtype(api: str, passed: dict) -> bool:
    """torch.ones(()) -> MindSpore needs dtype= written (see FLOAT_FACTORIES)."""
    shape = passed.get("size")
    return api in FLOAT_FACTORIES and "dtype" not in passed and isinstance(shape, (cst.Tuple, cst.List)) \
        and not shape.elements


@dataclass
class Bound:
    """One call bound to one PyTorch overload: torch name -> the argument, in call order."""

    overload: tuple
    args: dict[str, cst.Arg] = field(default_factory=dict)
    packed: dict[str, list[cst.Arg]] = field(default_factory=dict)  # sizes given one by one


def signature_for(entry: ApiEntry | None) -> Signature | None:
    if entry is None or not entry.primary:
        return None
    sig = load_signatures().get(entry.torch)
    if entry.primitive_inputs or entry.template or entry.constant or entry.passthrough:
        return None  # curated rewrites with rules of their own
    if sig is None or sig.mindspore_name != entry.primary:
        return None  # a curated target (supplement) or another target's name: its own rules apply
    return sig


def value_kind(node: cst.BaseExpression, dtype_of) -> str:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    if isinstance(node, cst.Integer):
        return "int"
    if isinstance(node, (cst.Float, cst.Imaginary)):
        return "float"
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return "bool"
    if isinstance(node, cst.Name) and node.value == "None":
        return "none"
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return "str"
    if isinstance(node, (cst.Tuple, cst.List)):
        return "seq"
    if dtype_of(node):
        return "dtype"
    return "unknown"


def _fits(param: list, kind: str) -> bool:
    name, _, default, typ = param
    if kind == "unknown" or not typ:
        return True
    if kind == "none":
        return "Optional" in typ or default == "None"
    if kind == "dtype":
        return name == "dtype" or "ScalarType" in typ
    if typ.startswith("Optional["):
        typ = typ[len("Optional["):-1]
    if typ == "Tensor":
        return False  # a literal is no tensor where another overload takes a number
    if typ == "bool":
        return kind == "bool"
    if typ == "int":
        return kind in ("int", "bool") and name != "dtype"
    if typ in ("float", "number", "complex"):
        return kind in ("int", "float", "bool")
    if typ == "str":
        return kind == "str"
    if typ.startswith("List["):
        return kind == "seq" or (kind == "int" and "int" in typ)
    return True


def _sizes_param(overload: tuple) -> int | None:
    """Where sizes given one by one go: a *args parameter, or PyTorch's int[] first size parameter."""
    positional = [i for i, p in enumerate(overload) if p[1] in "pov"]
    for i in positional:
        if overload[i][1] == "v":
            return i
    if len(positional) == 1 and "List[int]" in overload[positional[0]][3]:
        return positional[0]  # torch.ones(2, 3), x.view(2, 3): PyTorch's only positional int[] takes them so
    return None


def bind(call: cst.Call, overload: tuple, dtype_of, *, typed: bool = True) -> Bound | None:
    """The call's arguments by PyTorch parameter name, or None when they do not fit this overload."""
    bound = Bound(overload=overload)
    by_name = {p[0]: p for p in overload}
    slots = [p for p in overload if p[1] in "po"]
    sizes = _sizes_param(overload)
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args):
        return None
    if len(positional) > len(slots):
        if sizes is None:
            return None
        name = overload[sizes][0]
        head = [p for p in overload[:sizes] if p[1] in "po"]
        if len(positional) <= len(head):
            return None
        for param, arg in zip(head, positional):
            bound.args[param[0]] = arg
        bound.packed[name] = positional[len(head):]
        bound.args[name] = positional[len(head)]
    else:
        for param, arg in zip(slots, positional):
            bound.args[param[0]] = arg
    for arg in call.args:
        if arg.keyword is None:
            continue
        name = arg.keyword.value
        param = by_name.get(name)
        if param is None or param[1] in "ovw" or name in bound.args:
            return None
        bound.args[name] = arg
    for param in overload:
        if param[1] in "pok" and param[2] is None and param[0] not in bound.args:
            return None  # a required argument is missing: another overload
    if typed:
        for name, arg in bound.args.items():
            if name not in bound.packed and not _fits(by_name[name], value_kind(arg.value, dtype_of)):
                return None
    return bound


def bind_all(call: cst.Call, sig: Signature, dtype_of) -> list[Bound]:
    """Every overload the call fits (by literal types; by arity alone when no overload fits the types)."""
    found = [b for o in sig.torch if (b := bind(call, o, dtype_of)) is not None]
    if not found:
        found = [b for o in sig.torch if (b := bind(call, o, dtype_of, typed=False)) is not None]
    return found


def is_no_op(name: str, arg: cst.Arg, default: str | None) -> bool:
    """Dropping this argument keeps the values: PyTorch's own default, or a placement/memory switch."""
    text = code(arg.value).strip()
    if name in NO_OP_KEYWORDS:  # inplace=True too: the returned value is the same, only the input's aliasing goes
        return True
    return default is not None and same_literal(text, default)


def legacy_reduction(size_average: str, reduce: str) -> str | None:
    """PyTorch's rule for the deprecated pair (torch.nn._reduction.legacy_get_string)."""
    values = {"None": None, "True": True, "False": False}
    if size_average not in values or reduce not in values:
        return None
    avg = True if values[size_average] is None else values[size_average]
    red = True if values[reduce] is None else values[reduce]
    if not red:
        return "'none'"
    return "'mean'" if avg else "'sum'"


def float32_parameters(torch_api: str, value: cst.BaseExpression) -> bool:
    """A layer built with dtype=float32 (torch.float32 or torch.float, maybe renamed already): the dtype
    MindSpore's layers give their parameters, so a layer without dtype= keeps the values."""
    layer = torch_api.startswith("torch.nn.") and torch_api.rsplit(".", 1)[1][:1].isupper()
    return layer and isinstance(value, cst.Attribute) and value.attr.value in ("float32", "float") \
        and isinstance(value.value, cst.Name) and value.value.value not in ("self", "np", "numpy")


_DTYPE_WORDS = frozenset({"float32", "float", "float16", "half", "float64", "double", "bfloat16", "int8", "int16",
                          "short", "int32", "int", "int64", "long", "uint8", "bool", "bool_", "complex64",
                          "complex128"})


def looks_like_dtype(node: cst.BaseExpression) -> bool:
    """torch.float32 / ms.int64 (the call's own arguments may already be renamed)."""
    return isinstance(node, cst.Attribute) and node.attr.value in _DTYPE_WORDS and isinstance(node.value, cst.Name) \
        and node.value.value not in ("self", "np", "numpy")


def _kw(arg: cst.Arg, name: str) -> cst.Arg:
    return arg.with_changes(keyword=cst.Name(name), star="", equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))


def _positional(arg: cst.Arg) -> cst.Arg:
    return arg.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)


# reductions whose dtype= casts the input before computing (PyTorch's documentation says so), where
# MindSpore's counterpart takes no dtype=: the input is cast with .astype() instead
CASTS_INPUT_FIRST = frozenset({"torch.mean", "torch.prod", "torch.nanmean", "torch.cumsum", "torch.cumprod",
                               "torch.sum", "torch.nansum", "torch.softmax", "torch.log_softmax",
                               "torch.nn.functional.softmax", "torch.nn.functional.log_softmax",
                               "torch.nn.functional.softmin"})


@dataclass
class _Out:
    arg: cst.Arg
    positional: bool  # the user passed it by position
    spread: list[cst.Arg] | None = None  # sizes one by one, kept so where MindSpore takes *sizes too
    handled: bool = False  # left under its PyTorch keyword for the semantic handler that rewrites it
    default: bool = False  # PyTorch's default, spelled out (after the call's own arguments)


def plan_bound(entry: ApiEntry, sig: Signature, bound: Bound, handled: frozenset[str], plan) -> None:
    """Fill plan (signatures.ArgPlan) with the MindSpore arguments for one bound overload."""
    defaults = {p[0]: p[2] for p in bound.overload}
    # an explicit None where PyTorch's default is None is the default (avg_pool3d(divisor_override=None)):
    # left out, so MindSpore's own default (or the spelled-out one) applies instead of a None it may refuse
    nones = [t for t, a in bound.args.items() if defaults.get(t) == "None" and t not in LEGACY and t not in handled
             and isinstance(a.value, cst.Name) and a.value.value == "None"]
    if nones:
        bound = replace(bound, args={t: a for t, a in bound.args.items() if t not in nones})
        plan.notes.append(f"dropped {', '.join(f'{t}=None' for t in nones)} (PyTorch's default)")
    out: dict[str, _Out] = {}
    legacy: dict[str, str] = {}
    cast = None  # the dtype= the input is cast to first (CASTS_INPUT_FIRST)
    for tname, arg in bound.args.items():
        plan.passed[tname] = arg.value
        refused = refused_value(entry.torch, tname, arg.value)
        if refused:
            plan.problems.append(refused)
            handled = handled | {tname}  # already reported: not also "missing" below
            continue
        if tname in handled:
            out[f" {tname}"] = _Out(arg if arg.keyword is not None else _kw(arg, tname), False, handled=True)
            continue
        if tname in LEGACY:
            text = code(arg.value).strip()
            if text != "None":
                legacy[tname] = text
            else:
                plan.notes.append(f"dropped {tname}=None")
            continue
        row = entry.param(tname)
        ms = sig.map.get(tname, "")
        if not ms:
            if is_no_op(tname, arg, defaults.get(tname)):
                plan.notes.append(f"dropped {tname}=")
            elif tname == "dtype" and float32_parameters(entry.torch, arg.value):
                plan.notes.append("dropped dtype=float32 (MindSpore's parameters are float32 already)")
            elif tname == "out":
                plan.problems.append("out= has no MindSpore counterpart: assign the result instead")
            elif tname == "dtype" and entry.torch in CASTS_INPUT_FIRST and "input" in bound.args:
                cast = arg.value
                plan.notes.append("dtype= -> the input cast with .astype() first (PyTorch casts it before reducing)")
            else:
                text = f"argument {tname}= has no counterpart in {sig.mindspore_name}"
                plan.problems.append(f"{text}: {row.note}" if row is not None and row.note else text)
            continue
        text = code(arg.value).strip()
        if text == "None" and defaults.get(tname) in ("True", "False"):
            # a flag PyTorch tests for truth (nn.Linear(2, 2, bias=None) has no bias); MindSpore's wants a bool
            arg, text = arg.with_changes(value=cst.Name("False")), "False"
            plan.notes.append(f"{tname}=None -> {tname}=False (PyTorch reads the flag's truth)")
        # the tables flag the tensor operand's dtype support as "differs", not a change of meaning, however it is passed
        if row is not None and row.relation == "differs" and tname not in ("input", "x", "other") \
                and not same_literal(text, defaults.get(tname)) and not (sig.pad_mode and tname == "padding"):
            note = f": {row.note}" if row.note else ""
            plan.problems.append(f"argument {tname}= means something else in MindSpore{note}")
            continue
        if row is not None and row.scalar_only and isinstance(arg.value, (cst.Tuple, cst.List)):
            note = f": {row.note}" if row.note else ""
            plan.problems.append(f"argument {tname}= as a sequence means something else in MindSpore{note}")
            continue
        values = sig.transforms.get(tname)
        if row is not None and row.values:
            value = row.value_for(text)
        elif values:
            value = values.get(text)
        else:
            value = text
        if value is None:
            plan.problems.append(f"argument {tname}= must be one of {', '.join(values or dict(row.values))} "
                                 f"to be written as {ms}=")
            continue
        if value != text:
            arg = arg.with_changes(value=cst.parse_expression(value))
            plan.notes.append(f"{tname}={text} -> {ms}={value}")
        elif ms != tname:
            plan.notes.append(f"{tname}= -> {ms}=")
        if ms in out:
            plan.problems.append(f"arguments {tname}= and another one both set {ms}=: keep one")
            continue
        if sig.pad_mode and tname == "padding" and "pad_mode" not in out:
            if isinstance(arg.value, cst.SimpleString):  # padding='same' is MindSpore's pad_mode='same'
                out["pad_mode"] = _Out(_kw(arg, "pad_mode"), False)
                plan.notes.append(f"padding={text} -> pad_mode={text}")
                continue
            if "pad_mode" not in dict(entry.fixed):  # else written with the curated fixed keywords
                out["pad_mode"] = _Out(cst.Arg(value=cst.SimpleString("'pad'")), False, default=True)
                plan.notes.append("pad_mode='pad' written (MindSpore reads padding= only in that mode)")
        packed = bound.packed.get(tname)
        if packed:
            plan.notes.append(f"{tname} given one by one -> one tuple")
            tuple_arg = cst.Arg(value=cst.Tuple(elements=[cst.Element(value=a.value) for a in packed]))
            out[ms] = _Out(tuple_arg, True, spread=packed)
        else:
            out[ms] = _Out(arg, arg.keyword is None)
    source = out.get(sig.map.get("input", ""))
    if cast is not None and source is not None:
        value = source.arg.value
        if not isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        source.arg = source.arg.with_changes(value=cst.Call(func=cst.Attribute(value=value, attr=cst.Name("astype")),
                                                            args=[cst.Arg(value=cast)]))
    elif cast is not None:
        plan.problems.append(f"argument dtype= has no counterpart in {sig.mindspore_name}")
    if legacy:
        target = sig.map.get("reduction", "")
        value = legacy_reduction(legacy.get("size_average", "None"), legacy.get("reduce", "None"))
        if not target or value is None or target in handled:
            plan.problems.append(f"deprecated argument {', '.join(f'{k}=' for k in legacy)} has no MindSpore "
                                 f"counterpart: write reduction= instead")
        else:
            out.pop(target, None)  # PyTorch ignores reduction= when either legacy argument is given
            out[target] = _Out(cst.Arg(value=cst.parse_expression(value)), False)
            plan.notes.append(f"{', '.join(f'{k}={v}' for k, v in legacy.items())} -> {target}={value}")
    _spell_defaults(entry, sig, bound, handled, out, plan)
    if sig.pad_mode and sig.pad_mode not in ("'valid'", "'pad'") and "pad_mode" not in out and "padding" not in handled \
            and "pad_mode" not in dict(entry.fixed):
        out["pad_mode"] = _Out(cst.Arg(value=cst.SimpleString("'pad'")), False, default=True)
        plan.notes.append(f"pad_mode='pad' written (MindSpore's default is {sig.pad_mode}, PyTorch pads by padding=)")
    for name, value in entry.fixed:
        if name not in out:
            out[name] = _Out(cst.Arg(value=cst.parse_expression(value)), False, default=True)
            plan.notes.append(f"{name}={value} written (MindSpore's default reads the other arguments differently)")
    covered = {sig.map.get(t, "") for t in handled if t in bound.args}
    _layout(sig, out, plan, covered)


def _spell_defaults(entry: ApiEntry, sig: Signature, bound: Bound, handled: frozenset[str], out: dict[str, _Out], plan) -> None:
    for param in bound.overload:
        tname, _, default = param[0], param[1], param[2]
        ms = sig.map.get(tname, "")
        if tname in bound.args or tname in handled or not ms or ms in out:
            continue
        ms_param = sig.mindspore_param(ms)
        row = entry.param(tname)
        if ms_param is None or (row is not None and row.relation == "differs" and tname not in SAME_VALUES):
            continue  # a parameter whose meaning differs: its default is not written in the other's terms
        if tname in sig.computed and default == "None":
            source = sig.computed[tname]
            if source in bound.args and source not in handled and source not in bound.packed:
                out[ms] = _Out(cst.Arg(value=bound.args[source].value.deep_clone()), False, default=True)
                plan.notes.append(f"{ms}= written: PyTorch's default is the {source}")
            continue
        if default is None or default in ("None", "<object>") or ms_param[2] == "<object>":
            continue
        if ms_param[2] is not None and same_literal(default, ms_param[2]):
            continue
        values = sig.transforms.get(tname)
        value = values.get(default, default) if values else default
        try:
            node = cst.parse_expression(value)
        except cst.ParserSyntaxError:
            continue
        if not isinstance(node, (cst.Integer, cst.Float, cst.Name, cst.SimpleString, cst.UnaryOperation,
                                 cst.Tuple, cst.List)):
            continue
        out[ms] = _Out(cst.Arg(value=node), False, default=True)
        plan.notes.append(f"made PyTorch's default {ms}={value} explicit")


def _layout(sig: Signature, out: dict[str, _Out], plan, covered: set[str]) -> None:
    """MindSpore's order: positional while its parameters line up with what the user passed by position."""
    args: list[cst.Arg] = []
    placed: set[str] = set()
    for param in sig.mindspore:
        name, kind = param[0], param[1]
        item = out.get(name)
        if item is None or kind not in "pov" or not (item.positional or kind in "ov"):
            break
        if kind == "v" and item.spread:
            args.extend(_positional(a) for a in item.spread)
        else:
            args.append(_positional(item.arg))
        placed.add(name)
    kinds = {p[0]: p[1] for p in sig.mindspore}
    for name, item in sorted(out.items(), key=lambda kv: kv[1].default):  # the call's own, then defaults
        if name in placed:
            continue
        if item.handled:
            args.append(item.arg)
            continue
        if item.default:
            plan.spelled.append(name)
        if kinds.get(name) in ("o", "v"):
            plan.problems.append(f"{name} must be passed by position in {sig.mindspore_name}: convert this call "
                                 f"by hand")
            continue
        args.append(_kw(item.arg, name))
    for param in sig.mindspore:
        if param[1] in "po" and param[2] is None and param[0] not in out and param[0] not in covered:
            plan.problems.append(f"{sig.mindspore_name} requires {param[0]}=, which this call does not give")
    plan.args = args
