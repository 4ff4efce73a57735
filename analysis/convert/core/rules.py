"""Rule ids the converter writes into change records, unconverted items and MIGRATE comments.

Every id is one of the analyzer's catalogue (analysis.rules), so the dashboard
can link each record to its catalogue entry and the gate counts by the same
ids; tests/convert/test_rule_ids.py holds the converter to that.
"""
from __future__ import annotations

# -- API accounting -------------------------------------------------------------------------
API_RENAME = "MS-API-MAPPED"  # consistent mapping: a rename
API_ARGS = "MS-API-DIFF"  # arguments renamed, dropped or made explicit
API_UNMAPPED = "MS-API-UNMAPPED"  # no safe counterpart known
API_DIFF = "MS-API-DIFF"  # documented difference the converter cannot rewrite
PARSE_ERROR = "MS-PARSE-ERROR"
IMPORTS = "MS-TORCH-IMPORT"  # torch still imported for code left unconverted (converter-only rule)
TORCH_BOUND = "MS-TORCH-BOUND-IMPORT"  # a third-party package built on torch (knowledge/data/torch_bound.json)

# -- cells ------------------------------------------------------------------------------------
CELL_BASE = "MS-CELL-SUBCLASS"  # nn.Module (or another torch.nn base) -> nn.Cell
CELL_FORWARD = "MS-CELL-FORWARD"  # forward -> construct
CELL_API = "MS-CELL-API"
TRANSFORM_IN_MODEL = "MS-TRANSFORM-IN-MODEL"  # a torchvision transform in a network: marked (scan/model_transforms.py)
DATASET_ATTR = "MS-DATASET-ATTR"  # .train_data/.targets... of a torchvision dataset: marked
PARTIAL_DEVICE = "MS-PARTIAL-DEVICE"  # functools.partial(torch_api, device=...): device= dropped  # nn.Module methods named differently on nn.Cell
TRAIN_MODE = "MS-CELL-TRAIN-EVAL"  # train()/eval() -> set_train
TRAIN_MODE_MISSING = "MS-CELL-TRAIN-MODE"  # set_train(True) added before a training loop
CONTAINERS = "MS-CONTAINERS"
PARAM_NAMES = "MS-BN-PARAM-NAMES"  # parameter names that differ (gamma/beta, embedding_table)

# -- layers -----------------------------------------------------------------------------------
CONV_PADMODE = "MS-CONV-PADMODE"
CONV_BIAS = "MS-CONV-BIAS"
POOL_STRIDE = "MS-POOL-PADDING"  # pooling: stride default and padding
BN_MOMENTUM = "MS-BN-MOMENTUM"
BN_TRACK_STATS = "MS-BN-TRACK-STATS"
DROPOUT_P = "MS-DROPOUT-P"
LINEAR_DENSE = "MS-API-DIFF"  # nn.Linear -> nn.Dense (in/out names, has_bias)
LOSS_LABELS = "MS-LOSS-LABEL-DTYPE"  # classification losses take int32 class indices

# -- tensors ----------------------------------------------------------------------------------
TENSOR_SIZE = "MS-API-DIFF"  # x.size() -> x.shape
TENSOR_VIEW = "MS-API-DIFF"  # view -> reshape
TENSOR_TRANSPOSE = "MS-TRANSPOSE"
TENSOR_NUMPY = "MS-TENSOR-NUMPY"
TENSOR_METHOD = "MS-API-MAPPED"  # a tensor method renamed from the table
TENSOR_DIFF = "MS-API-DIFF"  # a tensor method whose defaults differ (std/var)
DETACH = "MS-REQUIRES-GRAD"  # detach() -> ops.stop_gradient

# -- devices ----------------------------------------------------------------------------------
DEVICE_TO = "MS-DEVICE-TO"  # .to(device)
DEVICE_CUDA = "MS-DEVICE-CUDA"  # .cuda()/.cpu(), torch.cuda queries
DEVICE_OBJECT = "MS-DEVICE-TORCH-DEVICE"  # torch.device

# -- autograd and training --------------------------------------------------------------------
NO_GRAD = "MS-NO-GRAD"
TRAIN_LOOP = "MS-TRAIN-LOOP"
GRAD_CLIP = "MS-GRAD-CLIP"
JIT = "MS-JIT"  # TorchScript decorators with no effect outside TorchScript (torch.jit.ignore ...)
OPTIMIZER = "MS-OPTIM-LR"  # optimizer construction (lr -> learning_rate, betas ...)
OPTIMIZER_PARAMS = "MS-OPTIM-PARAMS"  # parameters() -> trainable_params()
OPTIMIZER_UNSUPPORTED = "MS-OPTIM-UNSUPPORTED"
OPTIMIZER_GROUPS = "MS-OPTIM-RUNTIME-CHANGE"  # param_groups used with an optimizer that stays classic
LR_SCHEDULER = "MS-LR-SCHEDULER"
LR_LAMBDA = "MS-LR-LAMBDA"

# -- mixed precision and distributed ----------------------------------------------------------
AMP_AUTOCAST = "MS-AMP-AUTOCAST"
AMP_SCALER = "MS-AMP-GRADSCALER"
DIST_INIT = "MS-DIST-INIT"
DIST_DDP = "MS-DIST-DDP"

# -- state ------------------------------------------------------------------------------------
SEED = "MS-SEED"
INIT = "MS-INIT-API"
CHECKPOINT = "MS-CHECKPOINT"

# -- data -------------------------------------------------------------------------------------
DATALOADER = "MS-DATALOADER"
DATASET_CLASS = "MS-DATASET-CLASS"
SAMPLER = "MS-SAMPLER"


def emitted() -> set[str]:
    """Every rule id this module names (what the converter can emit)."""
    return {value for name, value in globals().items() if name.isupper() and isinstance(value, str)}
