"""Generic, data-driven call conversion: rename the callee, rename or drop keywords,
move positional arguments to keywords where the two signatures disagree, and spell
out defaults that differ between the frameworks (all from the knowledge base)."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import lru_cache

import libcst as cst

from analysis.knowledge.mapping import ApiEntry, load_signatures, signature_parameters

from ..core.names import code
from . import binding

# Arguments that only tune PyTorch's memory or device handling: dropping them keeps the values.
HARMLESS_DROPS = frozenset(
    {"inplace", "device", "pin_memory", "non_blocking", "memory_format", "layout", "verbose", "requires_grad",
     "foreach", "fused", "capturable", "differentiable"}  # the last four: optimizer implementation switches
)
CHANGED_RELATIONS = ("default_differs", "renamed_default_differs")


@lru_cache(maxsize=4096)
def parameter_names(signature: str) -> tuple[str, ...]:
    """Parameter names of the first parenthesised list in a signature ('*args' kept as '*args')."""
    items = signature_parameters(signature)
    names = []
    for item in items:
        name = item.split("=")[0].split(":")[0].strip()
        if name in ("", "*", "/", "self"):
            continue
        names.append(name)
    return tuple(names)


@dataclass
class ArgPlan:
    args: list[cst.Arg] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    passed: dict[str, cst.BaseExpression] = field(default_factory=dict)  # torch name -> value
    spelled: list[str] = field(default_factory=list)  # MindSpore keywords written only to spell a default
    overloads: int = 0  # the call fits this many overloads that convert differently (its problem then)


def torch_name_of(entry: ApiEntry | None, call: cst.Call, index: int) -> str | None:
    if entry is None or not entry.torch_signature:
        return None
    names = parameter_names(entry.torch_signature)
    if index < len(names) and not names[index].startswith("*"):
        return names[index]
    return None


def _star_index(params: tuple[str, ...]) -> int | None:
    """Position of a `*name` parameter: every positional argument from there on belongs to it."""
    return next((i for i, name in enumerate(params) if name.startswith("*")), None)


def _pack_varargs(args: list[cst.Arg], star: int, ms_params: tuple[str, ...]) -> list[cst.Arg]:
    """torch.ones(2, 3) -> ones((2, 3)) where MindSpore takes one sequence in the star's place; sizes
    unpacked from a sequence go into it too: torch.ones(*shape) -> ones(tuple(shape)),
    x.repeat(1, *dims) -> tile((1, *dims)) (passed on as they are, they would fill MindSpore's later
    parameters, dtype among them)."""
    positional = [i for i, a in enumerate(args) if a.keyword is None and a.star != "**"]
    extra = [i for i in positional if i >= star]
    starred = any(args[i].star == "*" for i in extra)
    if len(extra) < (1 if starred else 2) or star >= len(ms_params) or ms_params[star].startswith("*") \
            or extra != list(range(star, star + len(extra))):
        return args
    if len(extra) == 1:  # *shape alone
        value = cst.Call(func=cst.Name("tuple"), args=[cst.Arg(value=args[star].value)])
    else:
        value = cst.Tuple(elements=[cst.StarredElement(value=args[i].value) if args[i].star
                                    else cst.Element(value=args[i].value) for i in extra])
    packed = cst.Arg(value=value, comma=args[extra[-1]].comma)
    return [*args[:star], packed, *args[extra[-1] + 1:]]


def packed_star_sizes(call: cst.Call, entry: ApiEntry | None) -> list[cst.Arg] | None:
    """The arguments with sizes unpacked into PyTorch's `*sizes` gathered into the one sequence MindSpore
    takes there (x.repeat(*dims) -> x.tile(tuple(dims))); None where the call unpacks nothing there or
    MindSpore takes sizes one by one too. (A call with * fits no introspected overload: this is its way.)"""
    if entry is None or not entry.torch_signature or not entry.mindspore_signature \
            or not any(a.star == "*" for a in call.args):
        return None
    star = _star_index(parameter_names(entry.torch_signature))
    if star is None:
        return None
    args = list(call.args)
    packed = _pack_varargs(args, star, parameter_names(entry.mindspore_signature))
    return None if packed is args else packed


def plan_args(call: cst.Call, entry: ApiEntry | None, *, handled: frozenset[str] = frozenset()) -> ArgPlan:
    """Convert the arguments of a call to `entry` generically.

    `handled` names torch parameters a semantic handler rewrites itself: they pass through
    untouched here and get no explicit default."""
    plan = _plan_args(call, entry, handled)
    for spread in (_spread_keywords(call, entry), _spread_positionals(call, entry, handled)):
        if spread:
            plan.problems.append(spread)
    return plan


def _positional(params) -> list[str]:
    """The names a call may fill by position: up to the first keyword-only or *args parameter."""
    out = []
    for name, kind, *_ in params:
        if kind not in ("p", "o"):
            break
        out.append(name)
    return out


def _spread_positionals(call: cst.Call, entry: ApiEntry | None, handled: frozenset[str]) -> str | None:
    """nn.BatchNorm2d(*args): the tuple's items fill PyTorch's parameters by position when the call runs, and
    the converted call hands them to MindSpore's by position. Every parameter they may reach has to sit at
    the same place on both sides with the same meaning, and be none the converter rewrites or spells a
    default for (momentum 1 - m, padding and pad_mode, bias and weight_init...)."""
    at = next((i for i, a in enumerate(call.args) if a.star == "*"), None)
    sig = load_signatures().get(entry.torch) if entry is not None else None
    if at is None or sig is None or not sig.torch or any(p[1] == "v" for o in (*sig.torch, sig.mindspore) for p in o):
        return None  # sizes one by one (torch.zeros(*shape)): packed into a tuple elsewhere, or taken alike
    keywords = {a.keyword.value for a in call.args if a.keyword is not None}
    ms_positional = _positional(sig.mindspore)
    changed = {row.torch for row in entry.params if row.kind == "param" and row.relation not in ("same", "renamed")}
    reached = []
    for index, name in enumerate(_positional(sig.torch[-1])[at:], at):
        if name in keywords:
            break  # the tuple stops before a parameter the call names (or Python raises)
        ms_name = sig.map.get(name, name)
        if name in handled or name in changed or name in sig.transforms or name in sig.computed \
                or index >= len(ms_positional) or ms_positional[index] != ms_name:
            reached.append(name)
    if not reached:
        return None
    return (f"the items of *{code(call.args[at].value)} fill PyTorch's parameters by position, and "
            f"{entry.primary or 'MindSpore'} takes {', '.join(reached[:4])} at another place or with another "
            f"meaning: pass them by keyword")


def _spread_keywords(call: cst.Call, entry: ApiEntry | None) -> str | None:
    """nn.ConvTranspose2d(*args, **conv_kwargs): the dict's keys are PyTorch's parameter names, read when
    the call runs; where MindSpore names any of them otherwise, or has no such parameter (device=), the call
    would raise or differ."""
    spread = next((a for a in call.args if a.star == "**"), None)
    if spread is None or entry is None:
        return None
    sig = load_signatures().get(entry.torch)
    names = parameter_names(entry.torch_signature) if entry.torch_signature else \
        tuple(p[0] for p in sig.torch[-1]) if sig is not None and sig.torch else ()
    given = {a.keyword.value for a in call.args if a.keyword is not None}
    if not any(a.star == "*" for a in call.args):  # the ones passed by position
        given |= set(names[:sum(1 for a in call.args if not a.keyword and not a.star)])
    changed = {row.torch: (row.mindspore if row.mindspore != row.torch else "") or row.relation.replace("_", " ")
               for row in entry.params if row.kind == "param" and row.torch and row.relation != "same"}
    if sig is not None:
        changed.update({t: m or "no counterpart" for t, m in sig.map.items() if m != t and t not in changed})
    changed = {t: m for t, m in changed.items() if t not in given}
    if not changed:
        return None
    listed = ", ".join(f"{t}= -> {m}=" if m.isidentifier() else f"{t}= ({m})" for t, m in list(changed.items())[:4])
    return (f"the keywords in **{code(spread.value)} keep PyTorch's names, and {entry.primary or 'MindSpore'} takes "
            f"some of them otherwise ({listed}): write them out in the call")


def _plan_args(call: cst.Call, entry: ApiEntry | None, handled: frozenset[str]) -> ArgPlan:
    plan = ArgPlan()
    torch_params = parameter_names(entry.torch_signature) if entry and entry.torch_signature else ()
    ms_params = parameter_names(entry.mindspore_signature) if entry and entry.mindspore_signature else ()
    star = _star_index(torch_params)
    call_args = list(call.args)
    if entry is not None and entry.optional_first and torch_params:
        call_args = _optional_first(call_args, torch_params[0], *entry.optional_first, plan)
    sig = binding.signature_for(entry)
    if sig is not None:
        bound = _plan_bound(call.with_changes(args=call_args), entry, sig, handled, plan.notes)
        if bound is not None:
            return bound
    if star is not None and ms_params:
        packed = _pack_varargs(call_args, star, ms_params)
        if packed is not call_args:
            plan.notes.append(f"{torch_params[star][1:]} given one by one -> one tuple")
            call_args = packed
    emitted: set[str] = set()  # MindSpore parameter names the converted call passes
    positional_ok = True
    for index, arg in enumerate(call_args):
        if arg.star:
            positional_ok = False
            plan.args.append(arg)
            continue
        if arg.keyword is None:
            tname = torch_params[min(index, star) if star is not None else index] \
                if (star is not None or index < len(torch_params)) else None
            both_star = star is not None and star < len(ms_params) and ms_params[star].startswith("*")
            if tname and tname.startswith("*") and index == star and ms_params and not both_star:
                tname = tname[1:]  # the sizes, packed into one argument above (or a single one)
        else:
            tname = arg.keyword.value
        if arg.keyword is not None and (entry is None or not entry.params or entry.param(tname) is None):
            # keywords the table does not list: factory-function extras PyTorch accepts everywhere
            if tname in HARMLESS_DROPS or tname == "generator":
                plan.notes.append(f"dropped {tname}=")
                positional_ok = False
                continue
            if tname == "out":
                plan.problems.append("out= has no MindSpore counterpart: assign the result instead")
                plan.args.append(arg)
                continue
        if tname is None or tname.startswith("*") or entry is None or not entry.params:
            if arg.keyword is None and tname and tname.startswith("*"):
                positional_ok = False
            plan.args.append(arg)
            continue
        plan.passed[tname] = arg.value
        if tname in handled:
            # semantic handlers find these by their PyTorch keyword
            plan.args.append(arg if arg.keyword is not None else _kw(arg, tname))
            positional_ok = False
            continue
        row = entry.param(tname)
        relation = row.relation if row else "same"
        ms_name = row.mindspore if row and row.mindspore else tname
        if relation == "torch_only":
            default = entry.torch_defaults.get(tname)
            if tname in HARMLESS_DROPS or (default is not None and _same_literal(code(arg.value).strip(), default)):
                plan.notes.append(f"dropped {tname}=")
            else:
                plan.problems.append(_refusal(row, f"argument {tname}= has no MindSpore counterpart"))
                plan.args.append(arg)
            positional_ok = False
            continue
        if relation == "differs" and tname in ("input", "x", "other"):
            # the tables flag dtype support of the tensor operand here, not a change of meaning
            plan.notes.append(f"{tname}: supported dtypes differ")
            plan.args.append(arg if arg.keyword is None else _kw(arg, ms_name))
            positional_ok = positional_ok and arg.keyword is None
            emitted.add(ms_name)
            continue
        if relation == "differs" and _default_in_both(entry, tname, ms_name, code(arg.value).strip()):
            relation = "same"  # PyTorch's default, spelled out, is MindSpore's default too: nothing differs
        if relation == "differs":
            plan.problems.append(_refusal(row, f"argument {tname}= means something else in MindSpore"))
            plan.args.append(arg)
            continue
        if row is not None and row.scalar_only and isinstance(arg.value, (cst.Tuple, cst.List)):
            plan.problems.append(_refusal(row, f"argument {tname}= as a sequence means something else in MindSpore"))
            plan.args.append(arg)
            continue
        if row is not None and row.values:
            text = code(arg.value).strip()
            value = row.value_for(text)
            if value is None:
                plan.problems.append(_refusal(row, f"argument {tname}= must be one of {', '.join(dict(row.values))} "
                                                   f"to be written as {ms_name}="))
                plan.args.append(arg)
                continue
            if value != text:
                arg = arg.with_changes(value=cst.parse_expression(value))
                plan.notes.append(f"{tname}={text} -> {ms_name}={value}")
                tname = ms_name  # the note above says it all
        if ms_name in emitted:
            plan.problems.append(f"arguments {tname}= and another one both set {ms_name}=: keep one")
            plan.args.append(arg)
            continue
        emitted.add(ms_name)
        if ms_name != tname:
            plan.notes.append(f"{tname}= -> {ms_name}=")
        keep_positional = (
            arg.keyword is None and positional_ok and index < len(ms_params) and ms_params[index] == ms_name
        )
        if keep_positional:
            plan.args.append(arg)
        else:
            positional_ok = False
            plan.args.append(_kw(arg, ms_name))
    # Defaults that differ: write PyTorch's value out under MindSpore's name.
    if entry is not None:
        for row in entry.params:
            if row.kind != "param" or row.relation not in CHANGED_RELATIONS or not row.torch:
                continue
            if row.torch in plan.passed or row.torch in handled or row.mindspore in emitted:
                continue
            default = entry.torch_defaults.get(row.torch)
            if default is None or default == "None" or not row.mindspore:
                continue
            default = row.value_for(default) or default
            plan.args.append(_kw_text(row.mindspore, default))
            emitted.add(row.mindspore)
            plan.notes.append(f"made PyTorch's default {row.mindspore}={default} explicit")
        for name, value in entry.fixed:
            if name not in emitted:
                plan.args.append(_kw_text(name, value))
                emitted.add(name)
                plan.notes.append(f"{name}={value} written (MindSpore's default reads the other arguments differently)")
    if _positional_after_keyword(plan.args):  # never emit a call that does not parse: keep this one as it was
        return ArgPlan(args=list(call.args), problems=["the arguments could not be mapped in order: convert this "
                                                       "call by hand"])
    return plan


def plan_with_signature(call: cst.Call, entry: ApiEntry | None) -> ArgPlan | None:
    """The plan from the signature layer alone: None when the API has no signature data or the call
    fits none of PyTorch's overloads (method calls on other objects share these names)."""
    sig = binding.signature_for(entry)
    return None if sig is None else _plan_bound(call, entry, sig, frozenset(), [])


def _plan_bound(call: cst.Call, entry: ApiEntry, sig, handled: frozenset[str], notes: list[str]) -> ArgPlan | None:
    """The plan from PyTorch's and MindSpore's introspected signatures (binding.py), or None when the call
    fits no overload as written (a * or ** argument, or a signature the data has wrong): the table rules
    then apply. Where the call fits several overloads, they must convert alike."""
    candidates = binding.bind_all(call, sig, binding.looks_like_dtype)
    if not candidates:
        if not any(a.star for a in call.args) and _required_missing(call, sig):
            # torch.repeat_interleave(repeats): an overload the tables do not map, not a spelling to guess at
            return ArgPlan(args=list(call.args), problems=[
                f"this call leaves out an argument every mapped overload of {entry.torch} requires (another "
                f"PyTorch overload): convert it by hand"])
        return None
    plans, keys = [], []
    for bound in candidates:
        plan = ArgPlan(notes=list(notes))
        binding.plan_bound(entry, sig, bound, handled, plan)
        if not plan.problems and _positional_after_keyword(plan.args):
            plan.problems.append("the arguments could not be mapped in order: convert this call by hand")
        plans.append(plan)
        given = [a for a in plan.args if a.keyword is None or a.keyword.value not in plan.spelled]
        keys.append((tuple(code(a) for a in given), tuple(plan.problems)))
    if len(set(keys)) == 1:
        # the call's own arguments convert alike: PyTorch takes the first overload that fits (defaults included)
        return plans[0]
    if all(p.problems for p in plans):
        return plans[0]
    return ArgPlan(args=list(call.args), overloads=len(plans), problems=[
        f"this call fits {len(plans)} of PyTorch's overloads of {entry.torch}, which convert differently: "
        f"spell the arguments so one is meant (a literal, or a keyword), or convert it by hand"])


def leaves_required_out(call: cst.Call, entry: ApiEntry) -> bool:
    """Whether call (partial()'s bound arguments) gives fewer arguments than every overload requires."""
    sig = binding.signature_for(entry)
    return sig is not None and not any(a.star for a in call.args) and _required_missing(call, sig)


def later_positionals(call: cst.Call, entry: ApiEntry) -> list[str] | None:
    """The required parameters of PyTorch's first overload that call (partial()'s bound arguments) leaves
    to the calls made through it, when they are exactly the positional ones right after those bound
    (`partial(nn.Conv1d, kernel_size=1)` leaves in_channels, out_channels); else None."""
    sig = binding.signature_for(entry)
    if sig is None or not sig.torch or any(a.star for a in call.args):
        return None
    params = [p for p in sig.torch[0] if p[1] in "po"]
    given = sum(1 for a in call.args if a.keyword is None)
    named = {a.keyword.value for a in call.args if a.keyword is not None}
    later = []
    for param in params[given:]:
        if param[0] in named or param[2] is not None:
            break
        later.append(param[0])
    required = {p[0] for p in sig.torch[0] if p[1] in "pok" and p[2] is None}
    return later if later and required <= named | set(later) | {p[0] for p in params[:given]} else None


def _required_missing(call: cst.Call, sig) -> bool:
    """Fewer arguments than any overload's required ones: the call is an overload the data lacks."""
    given = len(call.args)
    return all(given < sum(1 for p in overload if p[1] in "pok" and p[2] is None) for overload in sig.torch)


def _positional_after_keyword(args: list[cst.Arg]) -> bool:
    seen_keyword = False
    for arg in args:
        if arg.keyword is not None or arg.star == "**":
            seen_keyword = True
        elif seen_keyword and arg.star != "*":
            return True
    return False


def _default_in_both(entry: ApiEntry, tname: str, ms_name: str, text: str) -> bool:
    torch_default = entry.torch_defaults.get(tname)
    ms_default = entry.mindspore_defaults.get(ms_name)
    return torch_default is not None and ms_default is not None and _same_literal(text, torch_default) \
        and _same_literal(torch_default, ms_default)


def _refusal(row, text: str) -> str:
    """Why an argument was refused, with the curated advice where the supplement gives one."""
    return f"{text}: {row.note}" if row is not None and row.note else text


def _optional_first(args: list[cst.Arg], first: str, value: str, then: tuple[str, ...], plan: ArgPlan) -> list[cst.Arg]:
    """randint(10, (3,)) is randint(0, 10, (3,)): PyTorch lets the first parameter go unsaid while the later
    ones are given; MindSpore requires it, so its default is written in front."""
    if any(a.star for a in args) or any(a.keyword is not None and a.keyword.value == first for a in args):
        return args
    positional = sum(1 for a in args if a.keyword is None)
    named = sum(1 for a in args if a.keyword is not None and a.keyword.value in then)
    if positional + named != len(then):
        return args
    plan.notes.append(f"{first}={value} written out (PyTorch's call left it out)")
    return [cst.Arg(value=cst.parse_expression(value), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            *args]


def _same_literal(text: str, default: str) -> bool:
    """p=2 passes PyTorch's default p=2.0: compare literals by value, other code by its text."""
    if text == default:
        return True
    try:
        return ast.literal_eval(text) == ast.literal_eval(default)
    except (ValueError, SyntaxError):
        return False


def _kw(arg: cst.Arg, name: str) -> cst.Arg:
    return arg.with_changes(
        keyword=cst.Name(name),
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )


def _kw_text(name: str, value: str) -> cst.Arg:
    return cst.Arg(
        value=cst.parse_expression(value),
        keyword=cst.Name(name),
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )


def kwarg(name: str, value: cst.BaseExpression | str) -> cst.Arg:
    if isinstance(value, str):
        value = cst.parse_expression(value)
    return _kw_text(name, "0").with_changes(value=value)


def fix_commas(args: list[cst.Arg]) -> list[cst.Arg]:
    """Commas between arguments after some were added or removed (the last keeps its own)."""
    out = []
    for i, arg in enumerate(args):
        last = i == len(args) - 1
        if last:
            if isinstance(arg.comma, cst.Comma) and not _comma_has_newline(arg.comma):
                arg = arg.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        elif arg.comma is cst.MaybeSentinel.DEFAULT:
            arg = arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        out.append(arg)
    return out


def _comma_has_newline(comma: cst.Comma) -> bool:
    return isinstance(comma.whitespace_after, cst.ParenthesizedWhitespace)
