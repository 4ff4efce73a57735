"""nn.Embedding.from_pretrained(w, freeze=True): an Embedding over the table w, frozen when freeze,
through a function written into the converted file (helper_training.py). MindSpore's Embedding zeroes
the padding_idx row of the table it is given (PyTorch keeps the row), and has no max_norm or gradient
scaling by frequency: a call passing one of those is marked."""
from __future__ import annotations

import libcst as cst

from ..apis.exact_forms import bind
from ..core import rules
from ..core.names import code
from ..support import helpers

PARAMS = ("embeddings", "freeze", "padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse")
# options with no exact MindSpore form unless at PyTorch's default (sparse only picks a gradient layout)
REFUSED = {"padding_idx": "None", "max_norm": "None", "scale_grad_by_freq": "False"}


def embedding_from_pretrained(ctx, original: cst.Call, updated: cst.Call, qualified: str, entry):
    values = bind(updated.args, PARAMS)
    if values is None or "embeddings" not in values:
        ctx.mark(original, rules.API_UNMAPPED, qualified, "pass the table and freeze= plainly")
        return updated
    refused = [k for k, default in REFUSED.items() if k in values and code(values[k]).strip() != default]
    if refused:
        ctx.mark(original, rules.API_DIFF, qualified,
                 f"{refused[0]}= has no exact MindSpore form here (its Embedding zeroes the padding row of a given "
                 "table and has no max_norm or frequency scaling): build nn.Embedding(..., embedding_table=w) and "
                 "handle it by hand")
        return updated
    name = helpers.use(ctx, "embedding_from_pretrained")
    args = [cst.Arg(values["embeddings"])]
    if "freeze" in values:
        args.append(cst.Arg(values["freeze"], keyword=cst.Name("freeze"),
                            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))))
    ctx.change(original, rules.API_DIFF, qualified, "mindspore.nn.Embedding",
               f"{qualified} -> {name}(...): nn.Embedding(..., embedding_table=embeddings), its table left out of "
               "training when freeze (written into the file)")
    if len(args) > 1:
        args[0] = args[0].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return cst.Call(func=cst.Name(name), args=args)


HANDLERS = {"torch.nn.Embedding.from_pretrained": embedding_from_pretrained}
