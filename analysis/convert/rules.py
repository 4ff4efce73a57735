"""Rule ids the converter writes into MIGRATE comments and change records.

The ids are shared with the analyzer's rule catalogue (analysis.rules); the
short texts here are only the converter's fallback wording.
"""
from __future__ import annotations

API_RENAME = "MS-API-RENAME"  # consistent mapping: a rename
API_ARGS = "MS-API-ARGS"  # argument renamed, dropped or made explicit
API_UNMAPPED = "MS-API-UNMAPPED"  # no safe counterpart known
API_DIFF = "MS-API-DIFF"  # documented difference the converter cannot rewrite
IMPORTS = "MS-IMPORTS"
CELL_BASE = "MS-CELL-BASE"  # nn.Module -> nn.Cell, forward -> construct
TRAIN_MODE = "MS-TRAIN-MODE"  # train()/eval() -> set_train
CONV_PADMODE = "MS-CONV-PADMODE"
CONV_BIAS = "MS-CONV-BIAS"
POOL_STRIDE = "MS-POOL-STRIDE"
BN_MOMENTUM = "MS-BN-MOMENTUM"
DROPOUT_P = "MS-DROPOUT-P"
LINEAR_DENSE = "MS-LINEAR-DENSE"
CONTAINERS = "MS-CELL-CONTAINER"
TENSOR_SIZE = "MS-TENSOR-SIZE"
TENSOR_VIEW = "MS-TENSOR-VIEW"
TENSOR_TRANSPOSE = "MS-TENSOR-TRANSPOSE"
TENSOR_NUMPY = "MS-TENSOR-NUMPY"
TENSOR_METHOD = "MS-TENSOR-METHOD"
DEVICE_MOVE = "MS-DEVICE-MOVE"
DEVICE_OBJECT = "MS-DEVICE-OBJECT"
NO_GRAD = "MS-NO-GRAD"
SEED = "MS-SEED"
INIT = "MS-INIT"
CHECKPOINT = "MS-CHECKPOINT"
LOSS_LABELS = "MS-LOSS-LABEL-DTYPE"  # MindSpore's classification losses take int32 class indices
TRAIN_LOOP = "MS-TRAIN-LOOP"
OPTIMIZER = "MS-OPTIMIZER"
LR_SCHEDULER = "MS-LR-SCHEDULER"
DATALOADER = "MS-DATALOADER"
PARSE_ERROR = "MS-PARSE-ERROR"
