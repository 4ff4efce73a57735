"""The data pipeline: DataLoader -> GeneratorDataset(...).batch(...).

Dataset subclasses stay as they are (GeneratorDataset reads any object with
__getitem__ and __len__); only their torch base class goes. TensorDataset
becomes NumpySlicesDataset (it slices its arrays along the first axis, as
TensorDataset indexes its tensors) and random_split becomes its split(); a
DataLoader over such a MindSpore dataset batches it directly. A MindSpore
dataset object feeds one pipeline only, so a second loader over the same one,
or a loader a loop builds again at every pass, is marked.
"""
from __future__ import annotations

import libcst as cst

from analysis.knowledge.mapping import ApiEntry

from ..apis.signatures import kwarg
from ..core import rules
from ..core.bound import INSTANCE
from ..core.context import ConversionContext
from ..core.names import code, dotted

LOADER_PARAMS = ("dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers", "collate_fn",
                 "pin_memory", "drop_last", "timeout", "worker_init_fn")
IGNORED = {"pin_memory", "timeout", "persistent_workers", "prefetch_factor", "generator", "multiprocessing_context"}
DEFAULT_COLUMNS = ("data", "label")
# dataset arguments that are no dataset object (DataLoader(...) in an example, a bare list)
LITERALS = (cst.Ellipsis, cst.List, cst.Tuple, cst.Dict, cst.Integer, cst.Float, cst.SimpleString)


SPLIT_PARAMS = ("dataset", "lengths", "generator")
ONE_PIPELINE_PER_LOOP = ("a MindSpore dataset object feeds one pipeline, and this loop builds one on it at every pass: "
                         "build it once before the loop (iterating a batched dataset again starts a new epoch)")
ONE_PIPELINE = ("a MindSpore dataset object feeds one pipeline: build another NumpySlicesDataset (or split) "
                "for this use")


def dataloader(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    values: dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(updated.args):
        if arg.star:
            ctx.mark(original, rules.DATALOADER, qualified, "unpacked arguments: build GeneratorDataset by hand")
            return updated
        key = arg.keyword.value if arg.keyword else (LOADER_PARAMS[index] if index < len(LOADER_PARAMS) else "?")
        values[key] = arg.value
    if "dataset" in values and _is_ms_dataset(ctx, values["dataset"]):
        return _batch_ms_dataset(ctx, original, updated, qualified, values)
    unsupported = sorted(k for k in values if k in ("batch_sampler", "collate_fn", "worker_init_fn", "?"))
    if unsupported or "dataset" not in values:
        ctx.mark(original, rules.DATALOADER, qualified,
                 f"{', '.join(unsupported) or 'dataset'}: express it with GeneratorDataset/.map/.batch by hand")
        return updated
    dataset = values["dataset"]
    if isinstance(dataset, LITERALS):
        ctx.mark(original, rules.DATALOADER, qualified,
                 f"dataset {code(dataset)}: GeneratorDataset needs an object with __getitem__/__len__ whose items "
                 "are tuples of arrays; wrap the data in such a class (or NumpySlicesDataset) first")
        return updated
    columns = ctx.dataset_columns.get(_class_of(ctx, dataset))
    if columns == []:
        ctx.mark(original, rules.DATALOADER, qualified,
                 f"{code(dataset)} is an iterable-style dataset (__iter__, no __getitem__): GeneratorDataset needs "
                 "the column names of what it yields, and it does not split the stream between workers as "
                 "get_worker_info() does; build GeneratorDataset(..., column_names=[...]) by hand")
        return updated
    columns = columns or list(DEFAULT_COLUMNS)
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


def loader_source(call: cst.Call) -> str | None:
    """The dataset variable a DataLoader call reads (`DataLoader(train_set, ...)` -> train_set,
    `self.data`), kept reachable as `loader.dataset` (a batched MindSpore dataset has no such attribute)."""
    for index, arg in enumerate(call.args):
        if (arg.keyword is None and index == 0 and not arg.star) or (arg.keyword is not None and arg.keyword.value == "dataset"):
            return dotted(arg.value)
    return None


def dataset_attribute(ctx: ConversionContext, original: cst.Attribute) -> cst.BaseExpression | None:
    """`loader.dataset` of a converted loader -> the dataset variable it was built over."""
    if original.attr.value != "dataset" or not isinstance(original.value, cst.Name):
        return None
    source = ctx.loader_sources.get(original.value.value)
    if source is None:
        return None
    ctx.change(original, rules.DATALOADER, "torch.utils.data.DataLoader.dataset", "",
               f"{original.value.value}.dataset -> {source} (the dataset the loader was built over; a batched "
               "MindSpore dataset does not keep it)")
    return cst.parse_expression(source)


def _batch_ms_dataset(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str,
                      values: dict[str, cst.BaseExpression]) -> cst.BaseExpression:
    """DataLoader over a converted TensorDataset or split part: that dataset's own shuffle and batch."""
    dataset = values["dataset"]
    unsupported = sorted(k for k in values if k in ("sampler", "batch_sampler", "collate_fn", "worker_init_fn", "?"))
    shuffle = values.get("shuffle")
    shuffled = shuffle is not None and not (isinstance(shuffle, cst.Name) and shuffle.value == "False")
    inline = isinstance(dataset, cst.Call) and id(dataset) in ctx.slice_calls
    if unsupported or (shuffled and not inline and not (isinstance(shuffle, cst.Name) and shuffle.value == "True")):
        ctx.mark(original, rules.DATALOADER, qualified,
                 f"{', '.join(unsupported) or 'shuffle from a variable'}: apply it to the MindSpore dataset by hand "
                 "(.shuffle(buffer_size), sampler= on NumpySlicesDataset, .map) before .batch()")
        return updated
    if not inline and not _first_use(ctx, original, qualified, dataset):
        return updated
    note = ""
    if inline and shuffle is not None:
        # NumpySlicesDataset(..., shuffle=False) from the TensorDataset rewrite: the loader's choice instead
        dataset = dataset.with_changes(args=[a.with_changes(value=shuffle) if a.keyword and a.keyword.value == "shuffle"
                                             else a for a in dataset.args])
    elif shuffled:
        # a buffer as large as the dataset: a full shuffle, drawn again each epoch as DataLoader does
        dataset = cst.parse_expression(f"{code(dataset)}.shuffle({code(dataset)}.get_dataset_size())")
        note = "; shuffle=True -> .shuffle(dataset size)"
    batch_args = [cst.Arg(value=values.get("batch_size", cst.Integer("1")))]
    if "drop_last" in values:
        batch_args.append(kwarg("drop_remainder", values["drop_last"]))
    new = cst.Call(func=cst.Attribute(value=dataset, attr=cst.Name("batch")), args=batch_args)
    ctx.change(original, rules.DATALOADER, qualified, "mindspore.dataset.Dataset.batch",
               f"DataLoader over a MindSpore dataset -> .batch(...){note}; iterate with create_tuple_iterator()")
    return new


def tensor_dataset(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str,
                   entry: ApiEntry | None):
    """TensorDataset(a, b) -> NumpySlicesDataset((a.asnumpy(), b.asnumpy()), column_names=[...], shuffle=False)."""
    if not updated.args or any(a.star or a.keyword for a in updated.args):
        ctx.mark(original, rules.DATASET_CLASS, qualified,
                 "build mindspore.dataset.NumpySlicesDataset((array, ...), column_names=[...], shuffle=False) "
                 "from the tensors' numpy arrays")
        return updated
    last = len(updated.args) - 1
    arrays = [cst.Element(value=cst.Call(func=cst.Attribute(value=_atom(a.value), attr=cst.Name("asnumpy"))),
                          comma=a.comma if i < last else cst.MaybeSentinel.DEFAULT)  # line breaks kept
              for i, a in enumerate(updated.args)]
    columns = columns_for(len(arrays))
    new = cst.Call(func=ctx.ms_expr("mindspore.dataset.NumpySlicesDataset"), args=[
        cst.Arg(value=cst.Tuple(arrays)), kwarg("column_names", repr(columns)), kwarg("shuffle", "False")])
    ctx.slice_calls.add(id(new))
    ctx.change(original, rules.DATASET_CLASS, qualified, "mindspore.dataset.NumpySlicesDataset",
               f"TensorDataset -> NumpySlicesDataset over the numpy arrays (columns {columns}, in order); "
               "one pipeline per dataset object")
    return new


def random_split(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str,
                 entry: ApiEntry | None):
    """random_split(ds, lengths) -> ds.split(lengths, randomize=True) for a converted MindSpore dataset."""
    values: dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(updated.args):
        key = "*" if arg.star else arg.keyword.value if arg.keyword else \
            (SPLIT_PARAMS[index] if index < len(SPLIT_PARAMS) else "*")
        values[key] = arg.value
    dataset, lengths = values.get("dataset"), values.get("lengths")
    if dataset is None or lengths is None or "*" in values or not _is_ms_dataset(ctx, dataset):
        ctx.mark(original, rules.DATASET_CLASS, qualified,
                 "random_split needs a MindSpore dataset: wrap the data in GeneratorDataset(dataset, column_names=[...], "
                 "shuffle=False) (or NumpySlicesDataset) and call .split(lengths, randomize=True); the parts are "
                 "MindSpore datasets, batched with .batch()")
        return updated
    if not (isinstance(dataset, cst.Call) and id(dataset) in ctx.slice_calls) \
            and not _first_use(ctx, original, qualified, dataset):
        return updated
    new = cst.Call(func=cst.Attribute(value=_atom(dataset), attr=cst.Name("split")),
                   args=[cst.Arg(value=lengths), kwarg("randomize", "True")])
    ctx.slice_calls.add(id(new))
    note = "; generator= dropped" if "generator" in values else ""
    ctx.change(original, rules.DATASET_CLASS, qualified, "mindspore.dataset.Dataset.split",
               f"random_split(dataset, lengths) -> dataset.split(lengths, randomize=True) (same sizes, another "
               f"random draw{note}) [review]")
    return new


def _is_ms_dataset(ctx: ConversionContext, node: cst.BaseExpression) -> bool:
    """Whether node is a MindSpore dataset object: a converted TensorDataset or a name bound to one/to a split part."""
    if isinstance(node, cst.Call):
        return id(node) in ctx.slice_calls
    return isinstance(node, cst.Name) and node.value in ctx.ms_datasets


def _first_use(ctx: ConversionContext, original: cst.Call, qualified: str, dataset: cst.BaseExpression) -> bool:
    """Count a pipeline built on a named MindSpore dataset; the second one is marked (it would fail to run)."""
    if not isinstance(dataset, cst.Name):
        return True
    uses = ctx.ms_dataset_uses.get(dataset.value, 0) + 1
    ctx.ms_dataset_uses[dataset.value] = uses
    if uses > 1:
        ctx.mark(original, rules.DATASET_CLASS, qualified, f"{dataset.value}: {ONE_PIPELINE}")
        return False
    if ctx.loop_depth > ctx.ms_datasets.get(dataset.value, ctx.loop_depth):
        ctx.mark(original, rules.DATASET_CLASS, qualified, f"{dataset.value}: {ONE_PIPELINE_PER_LOOP}")
        return False
    return True


def _atom(node: cst.BaseExpression) -> cst.BaseExpression:
    """node, parenthesised when a method call on it would bind to a part of it (a + b, -x, lambda ...)."""
    if isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def columns_for(count: int) -> list[str]:
    """Column names for items of count values, as GeneratorDataset gets them for Dataset classes."""
    return list(DEFAULT_COLUMNS) if count == 2 else ["data"] if count == 1 else [f"column_{i}" for i in range(count)]


def _class_of(ctx: ConversionContext, node: cst.BaseExpression) -> str:
    """The class a dataset argument is an instance of: called right there, or held by a variable
    that every assignment binds to an instance of that class (bound.py)."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
        return node.func.value
    name = dotted(node)
    kind = ctx.bound.get(name or "", "")
    return kind[len(INSTANCE):] if kind.startswith(INSTANCE) else ""


def defines(node: cst.ClassDef, method: str) -> bool:
    return any(isinstance(stmt, cst.FunctionDef) and stmt.name.value == method for stmt in node.body.body)


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
                    return columns_for(len(ret.value.elements))
                if ret.value is not None:
                    return ["data"]
    return None


HANDLERS = {
    "torch.utils.data.DataLoader": dataloader,
    "torch.utils.data.TensorDataset": tensor_dataset,
    "torch.utils.data.dataset.TensorDataset": tensor_dataset,
    "torch.utils.data.random_split": random_split,
    "torch.utils.data.dataset.random_split": random_split,
}


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
