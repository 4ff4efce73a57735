"""The data pipeline: DataLoader -> GeneratorDataset(...).batch(...).

Dataset subclasses stay as they are (GeneratorDataset reads any object with
__getitem__ and __len__); only their torch base class goes.
"""
from __future__ import annotations

import libcst as cst

from analysis.knowledge.mapping import ApiEntry

from . import rules
from .context import ConversionContext
from .names import code
from .signatures import kwarg

LOADER_PARAMS = ("dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers", "collate_fn",
                 "pin_memory", "drop_last", "timeout", "worker_init_fn")
IGNORED = {"pin_memory", "timeout", "persistent_workers", "prefetch_factor", "generator", "multiprocessing_context"}
DEFAULT_COLUMNS = ("data", "label")


def dataloader(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    values: dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(updated.args):
        if arg.star:
            ctx.mark(original, rules.DATALOADER, qualified, "unpacked arguments: build GeneratorDataset by hand")
            return updated
        key = arg.keyword.value if arg.keyword else (LOADER_PARAMS[index] if index < len(LOADER_PARAMS) else "?")
        values[key] = arg.value
    unsupported = sorted(k for k in values if k in ("batch_sampler", "collate_fn", "worker_init_fn", "?"))
    if unsupported or "dataset" not in values:
        ctx.mark(original, rules.DATALOADER, qualified,
                 f"{', '.join(unsupported) or 'dataset'}: express it with GeneratorDataset/.map/.batch by hand")
        return updated
    columns = ctx.dataset_columns.get(_class_of(values["dataset"]), None) or list(DEFAULT_COLUMNS)
    gen_args = [cst.Arg(value=values["dataset"]), kwarg("column_names", repr(list(columns)))]
    if "shuffle" in values:
        gen_args.append(kwarg("shuffle", values["shuffle"]))
    if "sampler" in values:
        gen_args.append(kwarg("sampler", values["sampler"]))
    workers = values.get("num_workers")
    if workers is not None and not (isinstance(workers, cst.Integer) and workers.value == "0"):
        gen_args.append(kwarg("num_parallel_workers", f"max(1, {code(workers)})"))
    batch_args = [cst.Arg(value=values.get("batch_size", cst.Integer("1")))]
    if "drop_last" in values:
        batch_args.append(kwarg("drop_remainder", values["drop_last"]))
    generator = cst.Call(func=ctx.ms_expr("mindspore.dataset.GeneratorDataset"), args=gen_args)
    new = cst.Call(func=cst.Attribute(value=generator, attr=cst.Name("batch")), args=batch_args)
    ctx.change(original, rules.DATALOADER, qualified, "mindspore.dataset.GeneratorDataset",
               f"DataLoader -> GeneratorDataset(columns {list(columns)}).batch(...); iterate with create_tuple_iterator()")
    return new


def _class_of(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
        return node.func.value
    return ""


def getitem_columns(node: cst.ClassDef) -> list[str] | None:
    """Column names for a Dataset subclass: one per element __getitem__ returns."""
    for stmt in node.body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__getitem__":
            returns: list[cst.Return] = []

            class _Returns(cst.CSTVisitor):
                def visit_Return(self, ret: cst.Return) -> None:
                    returns.append(ret)

            stmt.visit(_Returns())
            for ret in returns:
                if isinstance(ret.value, cst.Tuple):
                    n = len(ret.value.elements)
                    return list(DEFAULT_COLUMNS) if n == 2 else [f"column_{i}" for i in range(n)]
                if ret.value is not None:
                    return ["data"]
    return None


HANDLERS = {"torch.utils.data.DataLoader": dataloader}


def coerce_index(ctx: ConversionContext, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
    """GeneratorDataset calls __getitem__ with numpy integers, which MindSpore tensors do not
    accept as indices: turn the index into a Python int first."""
    params = updated.params.params
    if len(params) < 2 or not isinstance(updated.body, cst.IndentedBlock):
        return updated
    name = params[1].name.value
    line = cst.parse_statement(f"{name} = int({name})  # GeneratorDataset passes numpy integers")
    body = list(updated.body.body)
    at = 1 if body and _is_docstring(body[0]) else 0
    body.insert(at, line)
    ctx.change(original, rules.DATASET_CLASS, "torch.utils.data.Dataset.__getitem__", "mindspore.dataset.GeneratorDataset",
               "__getitem__ index converted to int (GeneratorDataset passes numpy integers)")
    return updated.with_changes(body=updated.body.with_changes(body=body))


def _is_docstring(stmt: cst.BaseStatement) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))
