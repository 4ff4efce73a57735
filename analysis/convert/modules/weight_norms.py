"""torch.nn.utils.parametrizations.weight_norm and torch.nn.utils.weight_norm, which MindSpore lacks:
calls of the support helpers of support/helper_weight_norm.py, which take PyTorch's parameters
(module, name, dim) and keep PyTorch's parameter names."""
from __future__ import annotations

import libcst as cst

from ..core import rules
from ..core.context import ConversionContext
from ..support import helpers

# PyTorch function -> the helper standing for it
HELPERS = {"torch.nn.utils.parametrizations.weight_norm": "weight_norm",
           "torch.nn.utils.weight_norm": "weight_norm_g_v"}


def weight_norm(ctx: ConversionContext, original: cst.Call, updated: cst.Call, qualified: str, entry):
    return helpers.call(ctx, original, qualified, HELPERS[qualified], list(updated.args), template=updated,
                        rule_id=rules.API_ARGS,
                        why="MindSpore has no weight normalisation: the helper recomputes the weight from g and v "
                            "before each call, under PyTorch's parameter names")


HANDLERS = {name: weight_norm for name in HELPERS}
