"""torchvision data -> mindspore.dataset.

torchvision's dataset classes apply `transform=` to each item; a MindSpore dataset applies operations
with .map() on a column. So `datasets.MNIST(root, train=True, transform=t, download=True)` becomes
`MnistDataset(<root>/MNIST/raw, usage='train', shuffle=False).map(t, 'image').map(TypeCast(int32), 'label')`
where the files on disk are the same (torchvision keeps MNIST's idx files in root/<Class>/raw, which
MnistDataset reads; ImageFolder's folders are ImageFolderDataset's). The loader's shuffle= decides the
order (DataLoader over a MindSpore dataset: loaders.py), labels come as int32 (PyTorch's are int64, and
MindSpore's losses take int32). Datasets whose files differ (CIFAR's python pickles vs the binary files
Cifar10Dataset reads) and download= of files that are not there are marked. In a Compose, a Normalize
after ToTensor works on CHW tensors: MindSpore's Normalize is told so (is_hwc=False).
"""
from __future__ import annotations

import libcst as cst

from analysis.knowledge.mapping import ApiEntry

from ..apis.signatures import kwarg
from ..core import rules
from ..core.context import ConversionContext
from ..core.names import code
from ..support import helpers

# torchvision class -> (MindSpore class, folder under root holding the files MindSpore reads)
SAME_FILES = {
    "torchvision.datasets.MNIST": ("mindspore.dataset.MnistDataset", "MNIST/raw"),
    "torchvision.datasets.FashionMNIST": ("mindspore.dataset.FashionMnistDataset", "FashionMNIST/raw"),
    "torchvision.datasets.KMNIST": ("mindspore.dataset.KMnistDataset", "KMNIST/raw"),
    "torchvision.datasets.ImageFolder": ("mindspore.dataset.ImageFolderDataset", ""),
}
DIFFERENT_FILES = {
    "torchvision.datasets.CIFAR10": ("mindspore.dataset.Cifar10Dataset", "cifar-10-batches-bin"),
    "torchvision.datasets.CIFAR100": ("mindspore.dataset.Cifar100Dataset", "cifar-100-binary"),
}
PARAMS = {"MNIST": ("root", "train", "transform", "target_transform", "download"),
          "ImageFolder": ("root", "transform", "target_transform", "loader", "is_valid_file")}


def dataset(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    name = qualified.rsplit(".", 1)[1]
    if qualified in DIFFERENT_FILES:
        target, folder = DIFFERENT_FILES[qualified]
        ctx.mark(original, rules.DATASET_CLASS, qualified,
                 f"torchvision reads the python (pickle) release of {name}; {target} reads the binary release "
                 f"({folder}): download that, pass its folder and usage='train'/'test', shuffle=False, then apply "
                 "the transforms with .map(operations=[...], input_columns='image')")
        return updated
    target, folder = SAME_FILES[qualified]
    params = PARAMS["ImageFolder" if name == "ImageFolder" else "MNIST"]
    values: dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(updated.args):
        key = "*" if arg.star else arg.keyword.value if arg.keyword else params[index] if index < len(params) else "*"
        values[key] = arg.value
    unknown = sorted(k for k in values if k not in params or k in ("loader", "is_valid_file"))
    if unknown or "root" not in values:
        ctx.mark(original, rules.DATASET_CLASS, qualified,
                 f"{', '.join(unknown) or 'root'}: build {target} by hand (shuffle=False; transforms with .map)")
        return updated
    args = [cst.Arg(value=_under(values["root"], folder))]
    notes = []
    if "train" in values:
        train = values["train"]
        usage = "'train'" if code(train) == "True" else "'test'" if code(train) == "False" \
            else f"'train' if {code(train)} else 'test'"
        args.append(kwarg("usage", usage))
    args.append(kwarg("shuffle", "False"))  # the loader's shuffle= decides, as in PyTorch
    if name == "ImageFolder":
        args.append(kwarg("decode", "True"))
    new: cst.BaseExpression = cst.Call(func=ctx.ms_expr(target), args=args)
    if "transform" in values and code(values["transform"]) != "None":
        new = _map(new, values["transform"], "image")
    if "target_transform" in values and code(values["target_transform"]) != "None":
        new = _map(new, values["target_transform"], "label")
    cast = cst.parse_expression(f"{ctx.ms('mindspore.dataset.transforms')}.TypeCast({ctx.ms('mindspore')}.int32)")
    new = _map(new, cast, "label")
    if "download" in values and code(values["download"]) != "False":
        notes.append("download= dropped: MindSpore reads the files that are there")
    ctx.slice_calls.add(id(new))
    where = f"{folder} under root, " if folder else ""
    ctx.change(original, rules.DATASET_CLASS, qualified, target,
               f"{name} -> {target} ({where}the same files; transforms with .map on 'image', int32 labels"
               f"{''.join('; ' + n for n in notes)})")
    return new


def _under(root: cst.BaseExpression, folder: str) -> cst.BaseExpression:
    """root/folder: a literal when root is one, else an f-string."""
    if not folder:
        return root
    if isinstance(root, cst.SimpleString):
        value = root.evaluated_value.rstrip("/")
        return cst.SimpleString(repr(f"{value}/{folder}"))
    return cst.parse_expression(f"f\"{{{code(root)}}}/{folder}\"")


def _map(dataset: cst.BaseExpression, operations: cst.BaseExpression, column: str) -> cst.Call:
    return cst.Call(func=cst.Attribute(value=dataset, attr=cst.Name("map")),
                    args=[kwarg("operations", operations), kwarg("input_columns", repr(column))])


def compose(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    """Compose([...]) -> mindspore.dataset.transforms.Compose([...]); a Normalize after ToTensor gets
    is_hwc=False (ToTensor gives CHW; MindSpore's Normalize expects HWC unless told)."""
    new = updated.with_changes(func=ctx.ms_expr("mindspore.dataset.transforms.Compose"))
    if updated.args and isinstance(updated.args[0].value, (cst.List, cst.Tuple)):
        elements, chw, fixed = [], False, False
        for element in updated.args[0].value.elements:
            value = element.value
            if isinstance(value, cst.Call):
                called = code(value.func)
                if called.endswith("ToTensor"):
                    chw = True
                elif chw and called.endswith("vision.Normalize") \
                        and not any(a.keyword is not None and a.keyword.value == "is_hwc" for a in value.args):
                    value = value.with_changes(args=[*_with_comma(value.args), kwarg("is_hwc", "False")])
                    fixed = True
            elements.append(element.with_changes(value=value))
        container = updated.args[0].value.with_changes(elements=elements)
        new = new.with_changes(args=[updated.args[0].with_changes(value=container), *updated.args[1:]])
        if fixed:
            ctx.change(original, rules.DATASET_CLASS, "torchvision.transforms.Normalize",
                       "mindspore.dataset.vision.Normalize", "Normalize after ToTensor: is_hwc=False (CHW input)")
    ctx.change(original, rules.DATASET_CLASS, qualified, "mindspore.dataset.transforms.Compose",
               f"{qualified} -> mindspore.dataset.transforms.Compose (applied with .map on the dataset)")
    return new


def _with_comma(args) -> list[cst.Arg]:
    args = list(args)
    if args and args[-1].comma is cst.MaybeSentinel.DEFAULT:
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return args


# torchvision API -> the helper standing in for it (helper_source.py)
GRID_HELPERS = {
    "torchvision.utils.make_grid": "make_grid",
    "torchvision.utils.save_image": "save_image",
}
# keywords torchvision's make_grid/save_image take (range= is the old spelling of value_range=)
GRID_KEYWORDS = ("nrow", "padding", "normalize", "value_range", "scale_each", "pad_value")
RENAMED = {"range": "value_range"}


def grid_helper(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry: ApiEntry | None):
    """make_grid/save_image -> a helper written into the file (helpers.py) doing the same with numpy and PIL."""
    is_save = qualified.endswith("save_image")
    allowed = {"tensor", *GRID_KEYWORDS, *RENAMED, *(("fp", "format") if is_save else ())}
    positional = [a for a in updated.args if a.keyword is None]
    keywords = [a.keyword.value for a in updated.args if a.keyword is not None]
    # save_image's third positional argument is format= today and was nrow= in older torchvision
    limit = 2 if is_save else 1 + len(GRID_KEYWORDS)
    if any(a.star for a in updated.args) or len(positional) > limit or any(k not in allowed for k in keywords):
        ctx.mark(original, rules.API_UNMAPPED, qualified,
                 f"{qualified} with these arguments: pass the tensor{', the file' if is_save else ''} and keyword "
                 f"options ({', '.join(GRID_KEYWORDS)}) to the helper the conversion writes for it, or rewrite")
        return updated
    name = helpers.use(ctx, GRID_HELPERS[qualified])
    args = [a.with_changes(keyword=cst.Name(RENAMED[a.keyword.value]))
            if a.keyword is not None and a.keyword.value in RENAMED else a for a in updated.args]
    ctx.change(original, rules.API_RENAME, qualified, name,
               f"{qualified} -> {name}, a function the conversion writes into this file (numpy and PIL: the same "
               "grid layout and pixel values)")
    return updated.with_changes(func=cst.Name(name), args=args)


HANDLERS = {
    **{name: grid_helper for name in GRID_HELPERS},
    **{name: dataset for name in (*SAME_FILES, *DIFFERENT_FILES)},
    "torchvision.transforms.Compose": compose,
    "torchvision.transforms.transforms.Compose": compose,
}
