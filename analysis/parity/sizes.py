"""Sizes the checker chooses for constructor parameters a call site names but
gives no value (`TCN(num_inputs, num_channels, causal=True)`, a README's
signature with placeholder names). Only a parameter whose name (and
annotation, when it has one) says it is a width, a channel count, a kernel
size or a list of channel counts gets one: any such size builds the same
layers in both frameworks, so the verdict is still a true comparison, at the
sizes the entry's `arguments_from` lists."""
from __future__ import annotations

import ast

WIDTH = 8
KERNEL = 3
LIST = [WIDTH, WIDTH]  # two levels: a stack of blocks, each with its own channel count

INT_NAMES = {
    **dict.fromkeys(("in_channels", "out_channels", "n_channels", "num_channels_in", "in_features",
                     "out_features", "num_inputs", "num_outputs", "n_inputs", "n_outputs", "input_size",
                     "output_size", "hidden_size", "input_dim", "output_dim", "hidden_dim", "in_dim", "out_dim",
                     "dim", "dim_in", "dim_out", "d_model", "embed_dim", "n_embd", "width", "features",
                     "num_features", "c_in", "c_out", "cin", "cout"), WIDTH),
    **dict.fromkeys(("kernel_size", "ksize"), KERNEL),
}
LIST_NAMES = {"num_channels", "hidden_channels", "channel_sizes", "hidden_sizes", "hidden_dims", "layer_sizes",
              "layers_sizes", "widths"}  # (`channels`, `filters`: an int as often as a list, never chosen)
INT_ANNOTATIONS = {"int"}
LIST_ANNOTATIONS = {"list", "List", "tuple", "Tuple", "Sequence", "Iterable", "ArrayLike"}


def _annotation(node: ast.AST | None) -> set[str]:
    """Every name an annotation mentions (`Optional[List[int]]` -> Optional, List, int)."""
    if node is None:
        return set()
    return {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(node) if isinstance(n, (ast.Name, ast.Attribute))}


def choose(name: str, annotation: ast.AST | None):
    """The size for parameter `name`, or None when neither its name nor its annotation says what it is."""
    said = _annotation(annotation)
    if name in LIST_NAMES and (not said or said & LIST_ANNOTATIONS):
        return list(LIST)
    if name in INT_NAMES and (not said or said <= INT_ANNOTATIONS | {"Optional"}):
        return INT_NAMES[name]
    return None


def parameters(init: ast.FunctionDef) -> dict[str, ast.AST | None]:
    """name -> annotation of an __init__'s parameters."""
    args = init.args
    return {a.arg: a.annotation for a in args.posonlyargs + args.args + args.kwonlyargs}


# Other sizes tried, in turn, when the original constructor rejects the chosen ones with its own check
# (`assert kernel_size == 2 * stride`, `raise ValueError(...)`): any of them is as good a size for a check.
OTHERS = {WIDTH: (16, 4), KERNEL: (2, 4, 5, 1)}
OTHER_LISTS = ([16, 16], [WIDTH])
MAX_RETRIES = 8  # constructors built in all, after the first (each one is a PyTorch model built and dropped)


def alternatives(chosen: dict) -> list[dict]:
    """Other chosen sizes to try: one parameter changed at a time (each parameter's first other size, then
    each one's second...), then every parameter moved together; at most MAX_RETRIES."""
    def others(value):
        return list(OTHER_LISTS) if isinstance(value, list) else list(OTHERS.get(value, ()))

    steps = range(max((len(others(v)) for v in chosen.values()), default=0))
    out = [{**chosen, name: others(value)[step]} for step in steps for name, value in chosen.items()
           if step < len(others(value))]
    for step in steps:
        together = {name: others(value)[step] if step < len(others(value)) else value for name, value in chosen.items()}
        if sum(together[name] != chosen[name] for name in chosen) > 1 and together not in out:
            out.append(together)
    return out[:MAX_RETRIES]
