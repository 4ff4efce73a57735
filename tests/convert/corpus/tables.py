"""Snippets generated from small tables: APIs whose conversion is a rename (or a
table-driven argument fix) get one snippet each, with fixed inputs."""
from __future__ import annotations

HEAD = "import numpy as np\nimport torch\n"
X = "x = torch.tensor(np.linspace(-0.9, 0.9, 12, dtype=np.float32).reshape(3, 4))\n"
POS = "x = torch.tensor(np.linspace(0.1, 2.0, 12, dtype=np.float32).reshape(3, 4))\n"
Y = "y = torch.tensor(np.linspace(0.5, 1.6, 12, dtype=np.float32).reshape(3, 4))\n"

# torch.<name>(x): elementwise on values in (-0.9, 0.9)
UNARY = ["abs", "sin", "cos", "tan", "tanh", "sigmoid", "exp", "expm1", "asin", "acos", "atan", "sinh", "cosh",
         "asinh", "atanh", "neg", "negative", "floor", "ceil", "round", "trunc", "sign", "square", "erf", "erfc",
         "relu", "reciprocal", "frac", "fix", "deg2rad", "rad2deg", "arcsin", "arccos", "arctan", "arctanh",
         "arcsinh", "absolute", "exp2", "sgn", "isfinite", "isnan", "isinf", "signbit", "erfinv", "logit",
         "t", "clone", "flatten", "ravel", "zeros_like", "ones_like", "numel", "nan_to_num"]
# torch.<name>(x) on positive values
POSITIVE = ["log", "log2", "log10", "log1p", "sqrt", "rsqrt", "lgamma", "digamma", "acosh", "arccosh", "i0"]
# torch.<name>(x, y)
BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "pow", "atan2", "hypot", "fmod", "remainder",
          "eq", "ne", "gt", "ge", "lt", "le", "greater", "less", "greater_equal", "less_equal", "not_equal",
          "multiply", "subtract", "divide", "true_divide", "fmax", "fmin", "copysign", "logaddexp", "xlogy",
          "arctan2", "float_power", "floor_divide", "isclose", "dist", "heaviside"]
# torch.<name>(x, dim=1)
REDUCE_DIM = ["sum", "mean", "prod", "amax", "amin", "argmax", "argmin", "logsumexp", "cumprod", "softmax",
              "log_softmax", "std", "var", "cumsum", "all", "any", "count_nonzero", "nansum", "norm"]
# x.<name>() tensor methods
METHODS = ["abs", "sin", "cos", "exp", "tanh", "sigmoid", "neg", "floor", "ceil", "round", "sign", "square",
           "sum", "mean", "max", "min", "argmax", "argmin", "t", "flatten", "clone", "numel", "dim", "float",
           "double", "half", "int", "long", "bool", "isnan", "isfinite", "trunc", "frac", "relu",
           "std", "var", "prod", "all", "any", "erf", "expm1", "reciprocal", "nelement", "norm", "contiguous",
           "tolist", "ndimension", "asin", "acos", "atan", "sinh", "cosh", "tan", "negative", "fix",
           "absolute", "arcsin", "arccos", "arctan", "deg2rad", "isinf", "logit", "signbit"]
METHODS_POSITIVE = ["log", "log2", "log10", "log1p", "sqrt", "rsqrt", "lgamma", "digamma"]
METHODS_BINARY = ["add", "sub", "mul", "div", "pow", "eq", "ne", "gt", "ge", "lt", "le", "maximum", "minimum",
                  "fmod", "remainder", "atan2", "hypot", "greater", "less", "multiply", "subtract", "divide",
                  "true_divide", "logical_and", "logical_or", "logical_xor", "expand_as", "type_as", "fmax", "fmin",
                  "copysign", "xlogy", "not_equal", "floor_divide", "isclose", "dist", "heaviside", "logaddexp"]
# torch.nn.functional.<name>(x)
FUNCTIONAL = ["relu", "relu6", "elu", "selu", "celu", "gelu", "silu", "mish", "softsign", "softplus", "tanhshrink",
              "hardtanh", "hardswish", "hardsigmoid", "leaky_relu", "logsigmoid", "sigmoid", "tanh",
              "hardshrink", "softshrink", "prelu_", "normalize", "softmin"]
# torch.nn.<Name>() activations applied to x
ACTIVATIONS = ["ReLU", "ReLU6", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish", "Softsign", "Softplus", "Tanh",
               "Sigmoid", "Tanhshrink", "Hardtanh", "Hardswish", "Hardsigmoid", "LeakyReLU", "LogSigmoid",
               "Hardshrink", "Softshrink", "Identity", "Flatten"]
# calls that pass their options by keyword (the MindSpore keyword names differ): api -> expression
KEYWORD_CALLS = {
    "torch.squeeze": "torch.squeeze(x[None], dim=0)",
    "torch.stack": "torch.stack([x, y], dim=1)",
    "torch.sort": "torch.sort(y - x, dim=0, descending=True)",
    "torch.argsort": "torch.argsort(y - x, dim=1, descending=True)",
    "torch.index_select": "torch.index_select(x, dim=1, index=torch.tensor([2, 0]))",
    "torch.chunk": "torch.chunk(x, 2, dim=1)",
    "torch.split": "torch.split(x, [1, 3], dim=1)",
    "torch.cummax": "torch.cummax(x, dim=1)",
    "torch.cummin": "torch.cummin(x, dim=0)",
    "torch.logcumsumexp": "torch.logcumsumexp(x, dim=1)",
    "torch.narrow": "torch.narrow(x, dim=1, start=1, length=2)",
    "torch.diff": "torch.diff(x, n=1, dim=0)",
    "torch.repeat_interleave": "torch.repeat_interleave(x, 2, dim=0)",
    "torch.nn.functional.glu": "F.glu(x, dim=1)",
    "torch.nn.functional.threshold": "F.threshold(x, threshold=0.5, value=-1.0)",
    "torch.nn.functional.selu": "F.selu(input=x)",
    "torch.nn.functional.celu": "F.celu(x, alpha=0.5)",
    "torch.nn.functional.relu6": "F.relu6(x * 9, inplace=False)",
    "torch.nn.functional.hardshrink": "F.hardshrink(x, lambd=0.6)",
    "torch.nn.functional.softshrink": "F.softshrink(x, lambd=0.6)",
    "torch.nn.LogSoftmax": "torch.nn.LogSoftmax(dim=0)(x)",
    "torch.nn.Softmax": "torch.nn.Softmax(dim=0)(x)",
    "torch.nn.functional.softmax": "F.softmax(input=x, dim=0)",
    "torch.all": "torch.all(input=x > -0.5, dim=1, keepdim=True)",
    "torch.any": "torch.any(input=x > 0.5, dim=0)",
    "torch.amax": "torch.amax(input=x, dim=1, keepdim=True)",
    "torch.amin": "torch.amin(x, dim=(0, 1))",
    "torch.isclose": "torch.isclose(input=x, other=x + 1e-6, rtol=0, atol=1e-5)",
    "torch.ger": "torch.ger(x[0], vec2=y[1])",
    "torch.nn.GELU": "torch.nn.GELU(approximate='tanh')(x * 4) + torch.nn.GELU('none')(x * 4)",
    "torch.nn.functional.leaky_relu": "F.leaky_relu(x, 0.3)",
    "torch.flatten": "torch.flatten(torch.stack([x, y]), 1)",
}


def _snippet(api: str, body: str, compare: str = "out", tolerance: str = "1e-4") -> str:
    return f"# api: {api}\n# compare: {compare}\n# tolerance: {tolerance}\n{HEAD}{body}"


def generate() -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for n in UNARY:
        out.append((f"torch.{n}", _snippet(f"torch.{n}, torch.tensor", X + f"out = torch.{n}(x)\n")))
    for n in POSITIVE:
        out.append((f"torch.{n}", _snippet(f"torch.{n}", POS + f"out = torch.{n}(x)\n")))
    for n in BINARY:
        out.append((f"torch.{n}", _snippet(f"torch.{n}", X + Y + f"out = torch.{n}(x, y)\n")))
    for n in REDUCE_DIM:
        out.append((f"torch.{n}", _snippet(f"torch.{n}", POS + f"out = torch.{n}(x, dim=1)\n")))
    for n in METHODS:
        out.append((f"torch.Tensor.{n}", _snippet(f"torch.Tensor.{n}", X + f"out = x.{n}()\n")))
    for n in METHODS_POSITIVE:
        out.append((f"torch.Tensor.{n}", _snippet(f"torch.Tensor.{n}", POS + f"out = x.{n}()\n")))
    for n in METHODS_BINARY:
        out.append((f"torch.Tensor.{n}", _snippet(f"torch.Tensor.{n}", X + Y + f"out = x.{n}(y)\n")))
    for n in FUNCTIONAL:
        if n.endswith("_"):
            continue
        body = "import torch.nn.functional as F\n" + X + f"out = F.{n}(x)\n"
        out.append((f"torch.nn.functional.{n}", _snippet(f"torch.nn.functional.{n}", body)))
    for n in ACTIVATIONS:
        body = "import torch.nn as nn\n" + X + f"out = nn.{n}()(x)\n"
        out.append((f"torch.nn.{n}", _snippet(f"torch.nn.{n}", body)))
    for api, call in KEYWORD_CALLS.items():
        body = "import torch.nn.functional as F\n" + X + Y + f"out = {call}\n"
        out.append((f"{api} (keywords)", _snippet(api, body)))
    return out
