"""F.l1_loss / F.mse_loss / F.huber_loss given weight= (PyTorch 2.6 on): MindSpore's namesakes take no
weight, so such a call goes to a helper of support/helper_torch_forms.py that weighs the unreduced loss
and reduces it by PyTorch's rule (l1 and mse: the weighted sum over the weights' sum for 'mean'; huber:
the plain mean). Without weight= (or weight=None) the call converts as the tables say."""
from __future__ import annotations

import libcst as cst

from ..core.context import ConversionContext
from ..support import helpers
from .mapped import convert_call

HELPERS = {"torch.nn.functional.l1_loss": "l1_loss_weighted", "torch.nn.functional.mse_loss": "mse_loss_weighted",
           "torch.nn.functional.huber_loss": "huber_loss_weighted"}


def _weighted(call: cst.Call) -> bool:
    weight = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "weight"), None)
    return weight is not None and not (isinstance(weight, cst.Name) and weight.value == "None")


def rewrite(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str,
            entry) -> cst.BaseExpression:
    if not _weighted(updated) or any(a.star for a in updated.args):
        return convert_call(ctx, original, updated, qualified, entry)
    # the helper takes PyTorch's parameters in PyTorch's order: the arguments stay as written
    return helpers.call(ctx, original, qualified, HELPERS[qualified], list(updated.args), template=updated,
                        why="MindSpore's loss takes no weight=: the unreduced loss weighed and reduced")


HANDLERS = {name: rewrite for name in HELPERS}
