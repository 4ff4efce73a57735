"""Data the parity checks run on: which cell a module becomes, how parameters
are renamed, which hyperparameters must agree, and the tolerances per op kind.

Kept as plain literals so a new layer type is one entry, not new code.
"""
from __future__ import annotations

# torch class name -> MindSpore classic cell class names it may become.
CELL_FOR_MODULE: dict[str, tuple[str, ...]] = {
    "Linear": ("Dense",),
    "Conv1d": ("Conv1d",),
    "Conv2d": ("Conv2d",),
    "Conv3d": ("Conv3d",),
    "ConvTranspose2d": ("Conv2dTranspose",),
    "BatchNorm1d": ("BatchNorm1d",),
    "BatchNorm2d": ("BatchNorm2d",),
    "BatchNorm3d": ("BatchNorm3d",),
    "LayerNorm": ("LayerNorm",),
    "GroupNorm": ("GroupNorm",),
    "Embedding": ("Embedding",),
    "LSTM": ("LSTM",),
    "GRU": ("GRU",),
    "RNN": ("RNN",),
    "Dropout": ("Dropout",),
    "Dropout1d": ("Dropout1d",),
    "Dropout2d": ("Dropout2d",),
    "ReLU": ("ReLU",),
    "GELU": ("GELU",),
    "Tanh": ("Tanh",),
    "Sigmoid": ("Sigmoid",),
    "Softmax": ("Softmax",),
    "LogSoftmax": ("LogSoftmax",),
    "MaxPool1d": ("MaxPool1d",),
    "MaxPool2d": ("MaxPool2d",),
    "AvgPool2d": ("AvgPool2d",),
    "AdaptiveAvgPool2d": ("AdaptiveAvgPool2d",),
    "Flatten": ("Flatten",),
    "Identity": ("Identity",),
    "Sequential": ("SequentialCell",),
    "ModuleList": ("CellList",),
    "ModuleDict": ("CellDict", "ModuleDict"),  # the converter's ModuleDict cell where entries are containers
}

# Parameter / buffer renames per torch class: torch name -> MindSpore name.
PARAM_RENAMES: dict[str, dict[str, str]] = {
    "BatchNorm1d": {"weight": "gamma", "bias": "beta", "running_mean": "moving_mean", "running_var": "moving_variance"},
    "BatchNorm2d": {"weight": "gamma", "bias": "beta", "running_mean": "moving_mean", "running_var": "moving_variance"},
    "BatchNorm3d": {"weight": "gamma", "bias": "beta", "running_mean": "moving_mean", "running_var": "moving_variance"},
    "LayerNorm": {"weight": "gamma", "bias": "beta"},
    "GroupNorm": {"weight": "gamma", "bias": "beta"},
    "Embedding": {"weight": "embedding_table"},
    # the converter's instance-norm cells keep weight and bias and name the running statistics as MindSpore does
    **{f"InstanceNorm{d}d": {"running_mean": "moving_mean", "running_var": "moving_variance"} for d in (1, 2, 3)},
}

# Buffers that exist only on the PyTorch side, on purpose.
NO_COUNTERPART: dict[str, str] = {
    "num_batches_tracked": "counts BatchNorm updates; MindSpore keeps no such counter "
    "(it only matters when momentum=None)",
}

# Hyperparameters compared per aligned pair, before any number runs. Each
# entry: (label, torch getter, MindSpore getter). A getter is an attribute
# name, a tuple of fallbacks, or the name of a normalizer in config.py
# prefixed with "@".
CONFIG_FIELDS: dict[str, list[tuple[str, object, object]]] = {
    "Linear": [
        ("in_features", "in_features", "in_channels"),
        ("out_features", "out_features", "out_channels"),
        ("bias", "@has_bias", "has_bias"),
    ],
    "Conv": [
        ("in_channels", "in_channels", "in_channels"),
        ("out_channels", "out_channels", "out_channels"),
        ("kernel_size", "@kernel", "@kernel"),
        ("stride", "@stride", "@stride"),
        ("padding", "@torch_padding", "@ms_padding"),
        ("dilation", "@dilation", "@dilation"),
        ("groups", "groups", ("group", "groups")),
        ("bias", "@has_bias", "has_bias"),
    ],
    "BatchNorm": [
        ("num_features", "num_features", "num_features"),
        ("eps", "eps", "eps"),
        # MindSpore stores 1 - momentum (its argument) in .momentum, which is
        # PyTorch's convention: equal attributes mean a correct conversion.
        ("momentum", "momentum", "momentum"),
        ("affine", "affine", "@ms_bn_affine"),
    ],
    "LayerNorm": [
        ("normalized_shape", "@normalized_shape", "@normalized_shape"),
        ("eps", "eps", "epsilon"),
    ],
    "Dropout": [("p", "p", "@ms_dropout_p")],
    "Embedding": [
        ("num_embeddings", "num_embeddings", "vocab_size"),
        ("embedding_dim", "embedding_dim", "embedding_size"),
        ("padding_idx", "padding_idx", "padding_idx"),
    ],
    "RNN": [
        ("input_size", "input_size", "input_size"),
        ("hidden_size", "hidden_size", "hidden_size"),
        ("num_layers", "num_layers", "num_layers"),
        ("bidirectional", "bidirectional", "bidirectional"),
        ("batch_first", "batch_first", "batch_first"),
        ("bias", "bias", ("has_bias", "bias")),
    ],
    "GELU": [("approximate", "@gelu_approximate", "@gelu_approximate")],
    "Pool": [
        ("kernel_size", "@kernel", "@kernel"),
        ("stride", "@stride", "@stride"),
    ],
}

# torch class name -> CONFIG_FIELDS key.
CONFIG_KIND: dict[str, str] = {
    "Linear": "Linear",
    "Conv1d": "Conv",
    "Conv2d": "Conv",
    "Conv3d": "Conv",
    "BatchNorm1d": "BatchNorm",
    "BatchNorm2d": "BatchNorm",
    "BatchNorm3d": "BatchNorm",
    "LayerNorm": "LayerNorm",
    "Dropout": "Dropout",
    "Dropout1d": "Dropout",
    "Dropout2d": "Dropout",
    "Embedding": "Embedding",
    "LSTM": "RNN",
    "GRU": "RNN",
    "RNN": "RNN",
    "GELU": "GELU",
    "MaxPool1d": "Pool",
    "MaxPool2d": "Pool",
    "AvgPool2d": "Pool",
}

# The analyzer's rule behind each config field, so a mismatch links to the
# finding on the same line; anything else falls back to the generic rule.
FIELD_RULES: dict[tuple[str, str], str] = {
    ("BatchNorm", "momentum"): "MS-BN-MOMENTUM",
    ("Dropout", "p"): "MS-DROPOUT-P",
    ("Conv", "bias"): "MS-CONV-BIAS",
    ("Conv", "padding"): "MS-CONV-PADMODE",
    ("Pool", "kernel_size"): "MS-POOL-PADDING",
    ("Pool", "stride"): "MS-POOL-PADDING",
}
DEFAULT_FIELD_RULE = "MS-API-DIFF"

# Tolerances (atol, rtol) per dtype, and looser ones for op kinds whose
# kernels reduce in a different order (norms, softmax, recurrences).
TOLERANCE_BY_DTYPE: dict[str, tuple[float, float]] = {
    "float32": (1e-5, 1e-4),
    "float64": (1e-10, 1e-8),
    "float16": (1e-2, 1e-2),
    "bfloat16": (5e-2, 5e-2),
}
LOOSE_KINDS = frozenset(
    {
        "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm", "Softmax", "LogSoftmax",
        "LSTM", "GRU", "RNN", "MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder",
        "TransformerDecoderLayer", "AdaptiveAvgPool2d", "AvgPool2d",
    }
)
LOOSE_FACTOR = 10.0
# Gradients and post-step state sum over the batch: a little more slack.
GRADIENT_FACTOR = 10.0
LOSS_CURVE_RTOL = 1e-3
RANDOM_BATCHES = 4  # random loss-curve batches (no dataset), cycled
# Noise band: MindSpore may be this many times as far from PyTorch float32 as
# PyTorch float32 is from the same computation in float64 (two float32
# kernels summing in different orders each carry about that round-off).
NOISE_FACTOR = 4.0
# A point more than this many bands away fails even within its op's floor
# tolerance (a LayerNorm whose eps went from 1e-5 to 1e-3 sits ~250 bands off
# under the norms' 10x floor). Calibrated on the fixtures and the realworld
# repositories' passing layers: see tests/parity/test_noise_band.py.
NOISE_BAND_LIMIT = 50.0

# Layers whose first argument tells the input shape of a whole network.
ATTENTION_LAYERS = ("MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer")
INPUT_LAYERS = ("Conv1d", "Conv2d", "Conv3d", "Linear", "Embedding", "LSTM", "GRU", "RNN") + ATTENTION_LAYERS
SPATIAL_CANDIDATES = {1: (64, 32, 128, 16, 256), 2: (32, 28, 64, 224, 16, 96), 3: (16, 32, 8)}
DEFAULT_BATCH = 4
DEFAULT_SEQ_LEN = 8
