"""One small function per rule that needs more than its trigger.

Each takes the scanner's Use and the file context and returns a dict of
message fields/extra data when the rule fires, or None when it does not.
"""
from __future__ import annotations

from analysis.scan.types import NONLIT, Use


class Context:
    def __init__(self, facts: set[str], ms_version: tuple[int, ...]):
        self.facts = facts
        self.ms_version = ms_version


def _arg(use: Use, name: str, position: int):
    """Value of an argument given by keyword or position; KeyError when absent."""
    if name in use.kwargs:
        return use.kwargs[name]
    if position is not None and position < len(use.args):
        return use.args[position]
    raise KeyError(name)


def _fmt(value) -> str:
    return "<expr>" if value is NONLIT else repr(value)


def is_device_move(use: Use, ctx: Context):
    if not use.args and "device" not in use.kwargs:
        return None
    value = use.kwargs.get("device", use.args[0] if use.args else NONLIT)
    if isinstance(value, str):
        return {} if value.split(":")[0] in ("cuda", "cpu", "mps", "xpu") else None
    if isinstance(value, int) and not isinstance(value, bool):
        return {}
    node = use.node
    text = ""
    try:
        first = node.args[0].value if node.args else None
        text = _expr_text(first) if first is not None else ""
    except AttributeError:
        pass
    if "dtype" in use.kwargs or "float" in text or "int" in text.rsplit(".", 1)[-1] or text.endswith(("half", "double", "bool")):
        return None
    return {} if ("device" in text.lower() or "rank" in text.lower() or "cuda" in text or "gpu" in text.lower()) else None


def is_dtype_cast(use: Use, ctx: Context):
    method = use.name.rsplit(".", 1)[-1]
    if method in ("half", "bfloat16"):
        return {}
    node = use.node
    first = node.args[0].value if getattr(node, "args", None) else None
    text = _expr_text(first) if first is not None else ""
    return {} if any(t in text for t in ("float16", "half", "bfloat16")) or "dtype" in use.kwargs else None


def _expr_text(node) -> str:
    import libcst as cst

    if type(node) is cst.Name:
        return node.value
    if type(node) is cst.Attribute:
        return f"{_expr_text(node.value)}.{node.attr.value}"
    if type(node) is cst.SimpleString:
        return node.value
    if type(node) is cst.Call:
        return _expr_text(node.func) + "()"
    return ""


def not_cpu_before_numpy(use: Use, ctx: Context):
    return {"api": use.name}


def cell_method_counterpart(use: Use, ctx: Context):
    method = use.name.rsplit(".", 1)[-1]
    table = {
        "named_children": "cells_and_names",
        "named_modules": "cells_and_names",
        "children": "cells",
        "modules": "cells",
        "add_module": "insert_child_to_cell",
        "parameters": "get_parameters",
        "named_parameters": "parameters_and_names",
        "apply": "apply",
    }
    if method not in table:
        return None
    if use.receiver == "unknown" and method in ("parameters", "children", "modules", "apply"):
        return None  # too common a name to claim without knowing the receiver
    return {"method": method, "counterpart": table[method]}


def train_eval_mode(use: Use, ctx: Context):
    method = use.name.rsplit(".", 1)[-1]
    if method == "eval":
        return {"method": method, "mode": "False"}
    value = use.kwargs.get("mode", use.args[0] if use.args else True)
    return {"method": method, "mode": "True" if value is NONLIT or value else "False"}


def training_without_train_mode(use: Use, ctx: Context):
    # a file that builds or defines no network has no Cell whose mode could be wrong
    if "train_mode_set" in ctx.facts or "network" not in ctx.facts or use.args or use.kwargs:
        return None
    return {}


def plain_backward(use: Use, ctx: Context):
    return {}


def uses_retain_graph(use: Use, ctx: Context):
    return {} if use.kwargs.get("retain_graph") not in (None, False) else None


def uses_create_graph(use: Use, ctx: Context):
    return {} if use.kwargs.get("create_graph") not in (None, False) else None


def backward_with_gradient(use: Use, ctx: Context):
    return {} if use.args or "gradient" in use.kwargs else None


def backward_on_tuple_member(use: Use, ctx: Context):
    import libcst as cst

    receiver = use.node.func.value if hasattr(use.node, "func") else None
    if type(receiver) is cst.Subscript:
        return {}
    if type(receiver) is cst.Name and receiver.value in use.detail.get("tuple_bound", ()):
        return {}
    return {} if use.detail.get("receiver_from_tuple") else None


def dropout_fix(use: Use, ctx: Context):
    functional = ".functional." in use.name
    try:
        value = _arg(use, "p", 1 if functional else 0)
    except KeyError:
        value = 0.5  # the default: same in both frameworks
        if not functional:
            return None  # Dropout() with the default keeps 0.5 either way
    if "p" in use.kwargs and ctx.ms_version >= (2, 0) and not functional:
        return None  # p= keyword has PyTorch's meaning from 2.0 on
    if ctx.ms_version >= (2, 0):
        fix = f"p={_fmt(value)}"
    else:
        fix = f"keep_prob={_fmt(1 - value) if isinstance(value, (int, float)) else '1 - <p>'}"
    return {"fix": fix, "value": _fmt(value)}


def bn_momentum(use: Use, ctx: Context):
    try:
        value = _arg(use, "momentum", 2)
    except KeyError:
        return None
    fixed = round(1 - value, 10) if isinstance(value, (int, float)) and not isinstance(value, bool) else "1 - <m>"
    if value is None:
        fixed = "<no counterpart for a cumulative average>"
    return {"value": _fmt(value), "fixed": fixed}


def bn_track_stats(use: Use, ctx: Context):
    try:
        value = _arg(use, "track_running_stats", 4)
    except KeyError:
        return None
    return {} if value is not True else None


def conv_pad_mode(use: Use, ctx: Context):
    layer = use.name.rsplit(".", 1)[-1]
    try:
        padding = _arg(use, "padding", 4)
    except KeyError:
        padding = 0
    if padding == 0 or padding == (0, 0) or padding == "valid":
        fix = "pad_mode='valid'"
    elif padding == "same":
        fix = "pad_mode='same'"
    else:
        fix = f"pad_mode='pad', padding={_fmt(padding)}"
    if use.kwargs.get("padding_mode", "zeros") != "zeros":
        fix += " and an explicit ops.pad for padding_mode"
    return {"layer": layer, "fix": fix, "padding": _fmt(padding)}


def conv_bias_default(use: Use, ctx: Context):
    layer = use.name.rsplit(".", 1)[-1]
    try:
        bias = _arg(use, "bias", 7)
    except KeyError:
        return {"layer": layer}
    return {"layer": layer} if bias is not False else None


def pool_padding(use: Use, ctx: Context):
    try:
        padding = _arg(use, "padding", 2)
    except KeyError:
        return None
    return {"value": _fmt(padding)} if padding not in (0, (0, 0)) else None


def same_padding_odd(use: Use, ctx: Context):
    if use.kwargs.get("padding") != "same":
        return None
    kernel = use.kwargs.get("kernel_size", use.args[2] if len(use.args) > 2 else NONLIT)
    sizes = kernel if isinstance(kernel, tuple) else (kernel,)
    if all(isinstance(k, int) and k % 2 == 1 for k in sizes) and use.kwargs.get("dilation", 1) in (1, (1, 1)):
        return None  # odd kernels with dilation 1 pad symmetrically
    return {}


def not_calculate_gain(use: Use, ctx: Context):
    return None if use.name.endswith("calculate_gain") else {"api": use.name}


def optimizer_lr(use: Use, ctx: Context):
    if "lr" not in use.kwargs:
        return None
    return None if goes_experimental(use.name, ctx) else {}


def goes_experimental(optimizer: str, ctx: Context) -> bool:
    """Whether the converter builds this optimizer from mindspore.experimental.optim because of the file
    (its LR schedulers or param_groups: convert/engine.py reads the same words), where it keeps lr=."""
    if not ctx.facts & {"names:lr_scheduler", "names:param_groups"}:
        return False
    from analysis.knowledge.mapping import load_mapping

    entry = load_mapping("classic").get(optimizer)
    return entry is not None and f"mindspore.experimental.optim.{optimizer.rsplit('.', 1)[1]}" in entry.mindspore


def optimizer_params_iterator(use: Use, ctx: Context):
    return {} if use.detail.get("first_arg_method") in ("parameters", "named_parameters") else None


ALLOWED_GROUP_KEYS = {"params", "lr", "weight_decay", "grad_centralization", "order_params"}


def optimizer_group_keys(use: Use, ctx: Context):
    extra = sorted(set(use.detail.get("group_keys", ())) - ALLOWED_GROUP_KEYS)
    return {"keys": ", ".join(extra)} if extra else None


def receiver_not_tensor(use: Use, ctx: Context):
    return None if use.receiver == "tensor" else {}


def classic_optimizer_groups(use: Use, ctx: Context):
    """param_groups edited: a problem only for an optimizer the converter maps to a classic MindSpore class;
    mindspore.experimental.optim's keep PyTorch's param_groups, whose lr takes effect at the next step, and
    a file using param_groups gets them wherever MindSpore has one. An optimizer built elsewhere is not judged."""
    if use.receiver == "tensor":
        return None
    from analysis.knowledge.mapping import load_mapping

    mapping = load_mapping("classic")
    built = [fact.split(":", 1)[1] for fact in ctx.facts if fact.startswith("optimizer:")]
    # the file uses param_groups (this use): the converter builds every optimizer that has an experimental
    # class from it (convert/training/optimizers.py); only one without stays classic
    classic = [q for q in built if (entry := mapping.get(q)) is not None
               and f"mindspore.experimental.optim.{q.rsplit('.', 1)[1]}" not in entry.mindspore]
    return {} if classic else None


def not_lambda_lr(use: Use, ctx: Context):
    last = use.name.rsplit(".", 1)[-1]
    if last in ("LambdaLR", "MultiplicativeLR") or not last[:1].isupper() or not use.call:
        return None
    return {}


def in_forward(use: Use, ctx: Context):
    return {"method": use.name.rsplit(".", 1)[-1]} if use.in_forward else None


def container_counterpart(use: Use, ctx: Context):
    table = {"Sequential": "nn.SequentialCell", "ModuleList": "nn.CellList", "ModuleDict": "nn.CellDict"}
    return {"counterpart": table[use.name.rsplit(".", 1)[-1]]}
