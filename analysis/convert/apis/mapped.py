"""Calls to PyTorch APIs that the knowledge base maps: renames and argument fixes."""
from __future__ import annotations

import re

import libcst as cst

from analysis.knowledge.mapping import ApiEntry

from ..core import rules
from ..core.context import ConversionContext
from ..core.names import code
from .binding import needs_float_dtype, signature_for
from .composed import helper_call
from .overloads import dispatch_call
from .signatures import HARMLESS_DROPS, ArgPlan, fix_commas, parameter_names, plan_args
from .verdict_hook import known_broken, spelled

# torch dtypes and other plain names -> MindSpore names (references, not calls).
DTYPES = {
    "float32": "float32", "float": "float32", "float16": "float16", "half": "float16",
    "float64": "float64", "double": "float64", "bfloat16": "bfloat16",
    "int8": "int8", "int16": "int16", "short": "int16", "int32": "int32", "int": "int32",
    "int64": "int64", "long": "int64", "uint8": "uint8", "bool": "bool_",
    "complex64": "complex64", "complex128": "complex128", "cfloat": "complex64", "cdouble": "complex128",
}


# APIs the mapping tables leave out but whose counterpart is a plain rename.
SUPPLEMENT = {
    "torch.tensor": "mindspore.tensor",
    "torch.as_tensor": "mindspore.tensor",
    "torch.Tensor": "mindspore.Tensor",
    "torch.from_numpy": "mindspore.Tensor.from_numpy",
}
# their keywords MindSpore spells otherwise (mindspore.tensor(input_data=...) refuses data=)
SUPPLEMENT_KEYWORDS = {"torch.tensor": {"data": "input_data"}, "torch.as_tensor": {"data": "input_data"}}


def dtype_name(qualified: str) -> str | None:
    if qualified.startswith("torch.") and qualified.count(".") == 1:
        name = DTYPES.get(qualified[6:])
        if name:
            return f"mindspore.{name}"
    return None


def tensor_constructor(ctx: ConversionContext, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
    """torch.Tensor(data) is always float32; mindspore.Tensor(data) keeps the data's type (int64 for [1, 2]):
    the dtype is written. torch.Tensor(2, 3) (sizes, uninitialised) has no counterpart: marked."""
    args = list(updated.args)
    data = [a for a in args if a.keyword is None]
    if len(args) != 1 or len(data) != 1 or data[0].star or isinstance(data[0].value, cst.Integer):
        ctx.mark(original, rules.API_DIFF, "torch.Tensor",
                 "torch.Tensor(...) with sizes or options: write mindspore.ops.zeros(shape, mindspore.float32) "
                 "or mindspore.Tensor(data, dtype=mindspore.float32)")
        return updated
    dtype = cst.Arg(value=ctx.ms_expr("mindspore.float32"), keyword=cst.Name("dtype"),
                    equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                          whitespace_after=cst.SimpleWhitespace("")))
    ctx.change(original, rules.API_ARGS, "torch.Tensor", "mindspore.Tensor",
               "torch.Tensor(data) -> mindspore.Tensor(data, dtype=float32) (PyTorch's legacy constructor is "
               "always float32)")
    first = data[0].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return updated.with_changes(func=ctx.ms_expr("mindspore.Tensor"), args=[first, dtype])


def choose_target(ctx: ConversionContext, entry: ApiEntry) -> str:
    """The MindSpore name to emit: mint names for --target mint, else the first listed."""
    if ctx.target == "mint":
        for name in entry.mindspore:
            if name.startswith("mindspore.mint"):
                return name
    return entry.primary


def convert_call(
    ctx: ConversionContext,
    original: cst.Call,
    updated: cst.Call,
    qualified: str,
    entry: ApiEntry | None,
    *,
    rule_id: str = "",
    handled: frozenset[str] = frozenset(),
    target: str = "",
    plan: ArgPlan | None = None,
    extra: list[cst.Arg] | None = None,
    note: str = "",
) -> cst.BaseExpression:
    """Rename the callee and fix its arguments, or mark the call when that is not safe."""
    if entry is not None and entry.constant:
        return _constant(ctx, original, updated, qualified, entry)
    if entry is not None and entry.passthrough:
        return _passthrough(ctx, original, updated, qualified, entry)
    if entry is not None and entry.template:
        return _template(ctx, original, updated, qualified, entry)
    if entry is not None and entry.helper:
        return helper_call(ctx, original, updated, qualified, entry)
    if entry is None or not (target or entry.primary):
        action = ctx.classic.manual.get(qualified) \
            or f"{qualified} has no MindSpore counterpart in the mapping tables; rewrite by hand"
        ctx.mark(original, rules.API_UNMAPPED, qualified, action)
        return updated
    # Keywords are renamed through the introspected signatures (plan_args); without them or a table row
    # the MindSpore names are unknown.
    if entry.category == "param_names_differ" and not entry.params and signature_for(entry) is None \
            and any(a.keyword for a in updated.args):
        ctx.mark(original, rules.API_DIFF, qualified,
                 f"{qualified} names its arguments differently in {entry.primary}; rename the keywords")
        return updated
    plan = plan or plan_args(updated, entry, handled=handled)
    if plan.overloads or plan.problems:  # torch.max(x, other=y): a problem to the table's form, an overload here
        dispatched = dispatch_call(ctx, original, qualified, list(updated.args))
        if dispatched is not None:
            return dispatched
    if plan.problems:
        ctx.mark(original, rules.API_DIFF, qualified, f"{'; '.join(plan.problems)} (see {entry.primary})")
        return updated
    broken = known_broken(qualified, spelled(updated, plan.passed))
    if broken:
        ctx.mark(original, rules.API_DIFF, qualified, broken)
        return updated
    target = target or choose_target(ctx, entry)
    args = plan.args + list(extra or [])
    if needs_float_dtype(qualified, plan.passed):
        args.append(cst.Arg(value=ctx.ms_expr("mindspore.float32"), keyword=cst.Name("dtype"),
                            equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                  whitespace_after=cst.SimpleWhitespace(""))))
        plan.notes.append("dtype=float32 written (PyTorch's default; MindSpore needs it for a 0-d shape)")
    if args:
        last = args[-1]
        if isinstance(last.comma, cst.Comma) and not isinstance(last.comma.whitespace_after, cst.ParenthesizedWhitespace):
            args[-1] = last.with_changes(comma=cst.MaybeSentinel.DEFAULT)
    if entry.primitive_inputs and not target.startswith("mindspore.mint"):
        new = _primitive_call(ctx, updated, target, args, entry.primitive_inputs)
    else:
        new = updated.with_changes(func=ctx.ms_expr(target), args=args)
    notes = plan.notes + ([note] if note else []) + ([entry.note] if entry.note else [])
    if not rule_id:
        rule_id = rules.API_ARGS if notes else rules.API_RENAME
    description = f"{qualified} -> {target}" + (f" ({'; '.join(notes)})" if notes else "")
    if entry.category not in ("consistent",) and not notes:
        description += f" [{entry.category.replace('_', ' ')}: review]"
    ctx.change(original, rule_id, qualified, target, description)
    return new


def _primitive_call(ctx: ConversionContext, updated: cst.Call, target: str, args: list[cst.Arg],
                    inputs: tuple[str, ...]) -> cst.Call:
    """F.normalize(x, dim=1) -> ops.L2Normalize(axis=1, ...)(x): options build the primitive, inputs call it."""
    operands = [a.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT) for a in args
                if a.keyword is not None and a.keyword.value in inputs]
    options = [a for a in args if a.keyword is None or a.keyword.value not in inputs]
    build = cst.Call(func=ctx.ms_expr(target), args=fix_commas(options))
    return updated.with_changes(func=build, args=fix_commas(operands))


def _constant(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str,
              entry: ApiEntry) -> cst.BaseExpression:
    """torch.jit.is_scripting() -> False: a query whose answer is fixed under MindSpore."""
    if updated.args:
        ctx.mark(original, rules.API_DIFF, qualified, f"{qualified} with arguments: {entry.note or 'rewrite by hand'}")
        return updated
    value = entry.constant
    new = ctx.ms_expr(value) if value.startswith("mindspore.") else cst.parse_expression(value)
    ctx.change(original, rules.API_RENAME, qualified, value if value.startswith("mindspore.") else "",
               f"{qualified}() -> {value}" + (f" ({entry.note})" if entry.note else ""))
    return new


def _passthrough(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str,
                 entry: ApiEntry) -> cst.BaseExpression:
    """torch.compile(model, mode=...) -> model: a wrapper that changes speed, not values."""
    names = parameter_names(entry.torch_signature)
    kept, dropped = None, []
    for index, arg in enumerate(updated.args):
        if arg.star == "**":  # options only (the wrapped object is named or positional)
            dropped.append(f"**{code(arg.value)}")
            continue
        name = arg.keyword.value if arg.keyword is not None else (names[index] if index < len(names) else None)
        if arg.star or name is None:
            kept = None
            break
        if name == entry.passthrough:
            kept = arg.value
        else:
            dropped.append(f"{name}=")
    if kept is None:
        ctx.mark(original, rules.API_DIFF, qualified,
                 f"{qualified} without its {entry.passthrough} argument: remove it where it wraps code ({entry.note})")
        return updated
    ctx.change(original, rules.API_ARGS, qualified, entry.primary,
               f"{qualified}({entry.passthrough}) -> {entry.passthrough}"
               + (f", dropped {', '.join(dropped)}" if dropped else "")
               + f" ({entry.note}) [review]")
    if isinstance(kept, (cst.Lambda, cst.IfExp, cst.NamedExpr)) and not kept.lpar:
        kept = kept.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return kept


def _template(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str,
              entry: ApiEntry) -> cst.BaseExpression:
    """torch.randperm(n) -> ops.shuffle(ops.arange(n)): the call becomes an expression written in the
    supplement, its {name} slots filled with the arguments of those names. Any other argument that is
    not a placement detail (device=, pin_memory= ...) leaves the call marked."""
    names = parameter_names(entry.torch_signature)
    values: dict[str, cst.BaseExpression] = {}
    dropped, refused = [], []
    for index, arg in enumerate(updated.args):
        name = arg.keyword.value if arg.keyword is not None else (names[index] if index < len(names) else None)
        if arg.star or name is None:
            refused.append(code(arg.value))
        elif f"{{{name}}}" in entry.template:
            values[name] = arg.value
        elif name in HARMLESS_DROPS:
            dropped.append(f"{name}=")
        else:
            refused.append(f"{name}=")
    slots = re.findall(r"\{(\w+)\}", entry.template)
    if refused or any(slot not in values for slot in slots):
        what = f"argument {', '.join(refused)} not handled" if refused else "an argument is missing"
        ctx.mark(original, rules.API_DIFF, qualified, f"{what}: {entry.note or 'rewrite by hand'}")
        return updated
    text = re.sub(r"\{(\w+)\}", lambda m: f"__slot_{m.group(1)}", entry.template)
    new = cst.parse_expression(text).visit(_Fill(ctx, values))
    ctx.change(original, rules.API_ARGS, qualified, entry.primary,
               f"{qualified} -> {re.sub(r'[{}]', '', entry.template).replace('mindspore.', '')}"
               + (f", dropped {', '.join(dropped)}" if dropped else "") + (f" ({entry.note})" if entry.note else ""))
    return new


class _Fill(cst.CSTTransformer):
    """Template slots become the call's arguments; mindspore.* names are spelled as the file imports them."""

    def __init__(self, ctx: ConversionContext, values: dict[str, cst.BaseExpression]) -> None:
        super().__init__()
        self.ctx, self.values = ctx, values

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if updated.value.startswith("__slot_"):  # templates use slots as call arguments: no parentheses needed
            return self.values[updated.value[len("__slot_"):]]
        return updated

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        text = code(original)
        if text.startswith("mindspore.") and text.count(".") >= 1 and all(p.isidentifier() for p in text.split(".")):
            return self.ctx.ms_expr(text)
        return updated
