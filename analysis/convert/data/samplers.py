"""PyTorch's samplers are iterables of indices (`for i in sampler`, `list(sampler)`); MindSpore's
(mindspore.dataset.WeightedRandomSampler...) only configure a dataset and cannot be iterated. A sampler
the file iterates is left as it was, marked with what to write; one only handed to a DataLoader converts
as the tables say."""
from __future__ import annotations

import ast

import libcst as cst

from ..core import rules
from ..apis.mapped import convert_call
from ..core.context import ConversionContext

SAMPLERS = ("torch.utils.data.WeightedRandomSampler", "torch.utils.data.RandomSampler",
            "torch.utils.data.SequentialSampler", "torch.utils.data.SubsetRandomSampler")
ITERATING = frozenset({"iter", "list", "tuple", "enumerate", "sorted", "set"})
INSTEAD = {
    "torch.utils.data.WeightedRandomSampler": "numpy.random.choice(len(weights), num_samples, "
                                              "replace=replacement, p=weights / weights.sum())",
    "torch.utils.data.RandomSampler": "numpy.random.permutation(len(data_source))",
    "torch.utils.data.SequentialSampler": "range(len(data_source))",
    "torch.utils.data.SubsetRandomSampler": "numpy.random.permutation(indices)",
}


def iterated_names(tree) -> set[str]:
    """Names the file iterates: `for x in name`, `iter(name)`, `list(name)`, `[... for x in name]`."""
    out: set[str] = set()
    if tree is None:
        return out
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and isinstance(node.iter, ast.Name):
            out.add(node.iter.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ITERATING \
                and node.args and isinstance(node.args[0], ast.Name):
            out.add(node.args[0].id)
    return out


def _assigned_name(ctx: ConversionContext, call: cst.Call) -> str | None:
    statement = ctx.statements[-1][0] if ctx.statements else None
    if not isinstance(statement, cst.SimpleStatementLine):
        return None
    for small in statement.body:
        if isinstance(small, cst.Assign) and small.value is call and len(small.targets) == 1 \
                and isinstance(small.targets[0].target, cst.Name):
            return small.targets[0].target.value
    return None


def sampler(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry) -> cst.BaseExpression:
    name = _assigned_name(ctx, original)
    if name and name in iterated_names(ctx.tree):
        ctx.mark(original, rules.API_DIFF, qualified,
                 f"{name} is iterated, and a MindSpore sampler cannot be: draw the indices yourself "
                 f"({INSTEAD[qualified]})")
        return updated
    return convert_call(ctx, original, updated, qualified, entry)


HANDLERS = {api: sampler for api in SAMPLERS}
