"""The inputs every generated call draws from: named arrays, built the same way in both
frameworks' workers, and the candidate argument values by parameter name.

Tensors are referenced by name in the generated source (`torch.add(x, y)`); each worker binds the
names to fresh tensors of its own framework for every call, so in-place methods cannot leak into
the next call. A dtype variant renames the float tensors: x -> x_f64 (float64) / x_i64 (int64)."""
from __future__ import annotations

import numpy as np

DTYPES = ("float32", "float64", "int64")
SUFFIX = {"float32": "", "float64": "_f64", "int64": "_i64"}


def _wave(shape: tuple[int, ...], phase: float, low: float = -0.9, high: float = 0.9) -> np.ndarray:
    n = int(np.prod(shape)) if shape else 1
    unit = (np.sin(np.arange(n, dtype=np.float64) * 0.73 + phase) + 1) / 2  # in [0, 1], no repeats nearby
    return (low + (high - low) * unit).reshape(shape)


def _square(n: int) -> np.ndarray:
    return np.eye(n) * 2.0 + _wave((n, n), 5.0, -0.3, 0.3)  # well conditioned: inverses and solves agree


# name -> float64 values; float tensors get the three dtype variants
FLOATS: dict[str, np.ndarray] = {
    "x": _wave((3, 4), 0.0),            # mixed signs
    "y": _wave((3, 4), 1.3),
    "p": _wave((3, 4), 2.1, 0.1, 0.9),  # inside (0, 1): logs, roots, probabilities, acos
    "v": _wave((4,), 0.7),              # broadcasts against x from the right
    "c": _wave((3, 1), 2.9),            # broadcasts against x on the other axis
    "m": _wave((4, 5), 3.7),            # x @ m
    "s": _square(4),
    "x3": _wave((3,), 4.4),
    "img": _wave((2, 3, 8, 8), 0.3),
    "seq": _wave((2, 3, 8), 1.1),
    "vol": _wave((2, 3, 4, 4, 4), 1.9),
    "z": np.array(0.6),                 # 0-d
    "big": _wave((64, 64), 0.2),        # a receiver for random fills: enough draws to compare distributions
    # weights for the functional layers (conv, linear, embedding, norms)
    "w1": _wave((4, 3, 3), 0.4), "w2": _wave((4, 3, 3, 3), 0.5), "w3": _wave((4, 3, 2, 2, 2), 0.6),
    "wt1": _wave((3, 4, 3), 0.4), "wt2": _wave((3, 4, 3, 3), 0.5), "wt3": _wave((3, 4, 2, 2, 2), 0.6),
    "b4": _wave((4,), 0.8), "wl": _wave((5, 4), 0.9), "b5": _wave((5,), 1.0), "emb": _wave((10, 3), 1.2),
    "g3": _wave((3,), 1.4, 0.5, 1.5), "r3": _wave((3,), 1.6, 0.5, 1.5),
    # +1/-1 targets (hinge embedding loss: PyTorch defines it for those only)
    "pm": np.where(_wave((3, 4), 2.3) > 0, 1.0, -1.0),
}
# fixed-dtype tensors: indices, labels, masks
OTHERS: dict[str, np.ndarray] = {
    "idx": (np.arange(12).reshape(3, 4) * 7 % 3).astype(np.int64),
    "lab": np.array([1, 0], dtype=np.int64),
    "lab3": np.array([2, 0, 1], dtype=np.int64),
    "ids": np.array([[1, 2, 4], [3, 0, 9]], dtype=np.int64),
    "mask": (np.arange(12).reshape(3, 4) % 3 == 0),
}


def arrays() -> dict[str, np.ndarray]:
    """Every tensor name a generated call may use, with its values."""
    out: dict[str, np.ndarray] = {}
    for name, values in FLOATS.items():
        out[name] = values.astype(np.float32)
        out[name + "_f64"] = values.astype(np.float64)
        out[name + "_i64"] = np.round(values * 5).astype(np.int64)
    out.update(OTHERS)
    return out


FLOAT_NAMES = frozenset(FLOATS)

# Candidate values by parameter name, most typical first (source text).
TENSOR = ["x", "p", "img", "seq", "v", "s", "vol", "x3", "z"]
POOLS: dict[str, list[str]] = {
    "other": ["y", "v", "c", "2.0"], "exponent": ["2.0", "y", "p"], "end": ["y"], "weight": ["p", "0.3"],
    "mat2": ["m"], "mat": ["m"], "mat1": ["x"], "vec": ["v"], "vec1": ["x3"], "vec2": ["v"], "A": ["s"], "B": ["x"],
    "tensor1": ["y"], "tensor2": ["p"], "index": ["idx"], "mask": ["mask"], "condition": ["mask"],
    "target": ["lab", "y", "p"], "src": ["y"], "source": ["y"], "values": ["y"], "test_elements": ["y"],
    "tensors": ["[x, y]", "(x, y)"], "boundaries": ["v"], "sorted_sequence": ["v"],
    "x1": ["x"], "x2": ["y"], "input1": ["x"], "input2": ["y"], "anchor": ["x"], "positive": ["y"],
    "negative": ["p"], "var": ["p"], "log_input": ["x"],
    "dim": ["1", "0", "-1"], "dims": ["(0, 1)", "[1, 0]", "1, 0"], "keepdim": ["True"], "k": ["2"],
    "dim0": ["0"], "dim1": ["1"], "start_dim": ["1"], "end_dim": ["-1"], "axis": ["1"],
    "alpha": ["0.5", "2"], "beta": ["0.5"], "eps": ["0.001"], "momentum": ["0.3"], "affine": ["False"],
    "bias": ["False"], "track_running_stats": ["False"], "value": ["0.5"], "negative_slope": ["0.2"],
    "in_channels": ["3"], "in_features": ["3", "4"], "num_features": ["3"], "channels": ["3"], "num_channels": ["3"],
    "normalized_shape": ["4", "(3, 4)", "8"], "out_channels": ["4"], "out_features": ["5"], "num_groups": ["3", "1"],
    "kernel_size": ["2", "3", "(2, 3)"], "stride": ["2", "1"], "padding": ["1", "2", "0"], "dilation": ["2"],
    "output_padding": ["1"], "groups": ["3"], "ceil_mode": ["True"], "count_include_pad": ["False"],
    "reduction": ["'sum'", "'none'"], "min": ["-0.5"], "max": ["0.5"], "size": ["(2, 6)", "12", "2, 6"],
    "shape": ["(2, 6)", "2, 6"], "sizes": ["2, 3, 4", "3, 4"], "lambd": ["0.3"], "threshold": ["0.1"], "descending": ["True"],
    "largest": ["False"], "sorted": ["False"], "stable": ["True"], "diagonal": ["1", "-1"], "offset": ["1"],
    "repeats": ["2"], "chunks": ["2"], "sections": ["2"], "split_size_or_sections": ["2", "[1, 3]"],
    "split_size": ["2"], "shifts": ["1"], "decimals": ["1"], "rounding_mode": ["'floor'", "'trunc'"],
    "approximate": ["'tanh'"], "correction": ["0", "2"], "unbiased": ["False"], "mode": ["'nearest'", "'bilinear'"],
    "scale_factor": ["2"], "align_corners": ["True"], "num_embeddings": ["10"], "embedding_dim": ["3"],
    "padding_idx": ["0"], "upper": ["True"], "lower": ["False"], "p": ["0.5", "2"], "n": ["2", "3"],
    "start": ["0", "1"], "step": ["2"], "steps": ["5"], "length": ["2"], "num_classes": ["5"],
    "upscale_factor": ["2"], "downscale_factor": ["2"], "output_size": ["2", "(2, 2)"], "beta1": ["0.5"],
    "margin": ["0.5"], "swap": ["True"], "log_target": ["True"], "full": ["True"], "label_smoothing": ["0.1"],
    "ignore_index": ["0"], "pos_weight": ["v"], "delta": ["0.5"], "norm": ["'ortho'"], "ord": ["2", "'fro'"],
    "num_parameters": ["3", "1"], "init": ["0.1"], "lower_bound": ["0.1"], "upper_bound": ["0.3"],
    "hidden_size": ["4"], "input_size": ["8"], "num_layers": ["2"], "batch_first": ["True"],
    "bidirectional": ["True"], "min_val": ["-0.5"], "max_val": ["0.5"], "scale": ["2.0"], "divisor_override": ["2"],
    "return_indices": ["True"], "count": ["2"], "out_int32": ["True"], "right": ["True"], "side": ["'right'"],
    "return_inverse": ["True"], "return_counts": ["True"], "as_tuple": ["True"], "fill_value": ["0.5"],
    "min_norm": ["0.1"], "maxnorm": ["0.5"], "tau": ["0.5"], "hard": ["True"], "training": ["False"],
    "data": ["[1.0, 2.0]", "[[1, 2], [3, 4]]", "2.5", "[True, False]"],
    "seed": ["0", "42"],
    "fn": [], "generator": [], "out": [], "layout": [], "pin_memory": [], "memory_format": [], "names": [],
    "device": ["'cpu'"], "requires_grad": ["True"], "inplace": ["True"], "dtype": ["torch.float64", "torch.int32"],
}
# candidates for one API's parameter, where the name alone says too little
BY_API: dict[str, dict[str, list[str]]] = {
    **{f"torch.nn.functional.conv{d}d": {"input": [i], "weight": [f"w{d}"], "bias": ["b4"]}
       for d, i in ((1, "seq"), (2, "img"), (3, "vol"))},
    **{f"torch.nn.functional.conv_transpose{d}d": {"input": [i], "weight": [f"wt{d}"], "bias": ["b4"]}
       for d, i in ((1, "seq"), (2, "img"), (3, "vol"))},
    "torch.nn.functional.linear": {"input": ["x"], "weight": ["wl"], "bias": ["b5"]},
    "torch.nn.functional.embedding": {"input": ["ids"], "weight": ["emb"]},
    "torch.nn.functional.batch_norm": {"input": ["img", "seq"], "running_mean": ["g3"], "running_var": ["r3"],
                                       "weight": ["g3"], "bias": ["r3"]},
    "torch.nn.functional.instance_norm": {"input": ["img", "seq"], "weight": ["g3"], "bias": ["r3"]},
    "torch.nn.functional.group_norm": {"input": ["img", "seq"], "weight": ["g3"], "bias": ["r3"]},
    "torch.nn.functional.layer_norm": {"input": ["x", "img"], "weight": ["v"], "bias": ["v"]},
    "torch.nn.functional.prelu": {"input": ["img", "x"], "weight": ["g3", "v"]},
    # a matrix to invert: the square, well-conditioned one (an image's 8x8 slices are near-singular)
    "torch.inverse": {"input": ["s"]}, "torch.Tensor.inverse": {"self": ["s"]},
    # random fills: 4096 draws, so that compare.distribution_difference has enough to go on
    **{f"torch.Tensor.{name}": {"self": ["big"]} for name in (
        "uniform_", "normal_", "bernoulli_", "exponential_", "geometric_", "log_normal_", "cauchy_", "random_")},
    # targets in the loss's domain ("module_input": what a layer is called on)
    "torch.nn.functional.hinge_embedding_loss": {"target": ["pm"]},
    "torch.nn.HingeEmbeddingLoss": {"module_input": ["x, pm"]},
}
# no candidate means the parameter is not generated: it stays untested
SKIP = frozenset(name for name, values in POOLS.items() if not values)
